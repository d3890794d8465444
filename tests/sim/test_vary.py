"""Variants rename entities everywhere, shift time consistently and stay valid bundles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rootward.bundle.load import load_bundle
from rootward.sim.generate import generate
from rootward.sim.vary import renamer, shift_iso, vary_bundle


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    [made] = generate(tmp_path_factory.mktemp("src"), count=1, seed=5, faults=["connection_pool_exhaustion"])
    return made.path


def test_variant_renames_every_entity_in_every_file(source: Path, tmp_path: Path) -> None:
    [variant] = vary_bundle(source, tmp_path, count=1, seed=1)
    old, new = load_bundle(source), load_bundle(variant)
    assert old.topology and new.topology
    old_names = set(old.topology.entities)
    assert not old_names & set(new.topology.entities)
    assert len(new.topology.entities) == len(old_names)
    assert not {s.service for s in new.metrics or []} & old_names
    assert not {r.service for r in new.logs or []} & old_names
    assert not {a.service for a in new.alerts} & old_names
    truth = json.loads((variant / "truth.json").read_text())
    assert truth["root_cause"]["entity"] in new.topology.entities
    for item in truth["also_acceptable"]:
        assert item["entity"] in new.topology.entities
    assert new.id == f"{old.id}-v0"
    assert len(new.logs or []) == len(old.logs or [])


def test_variant_shifts_all_times_by_the_same_amount(source: Path, tmp_path: Path) -> None:
    [variant] = vary_bundle(source, tmp_path, count=1, seed=2)
    old, new = load_bundle(source), load_bundle(variant)
    delta = new.meta.fired_at - old.meta.fired_at
    assert delta.total_seconds() != 0
    assert new.meta.window_start - old.meta.window_start == delta
    assert (new.logs or [])[0].ts - (old.logs or [])[0].ts == delta
    assert (new.metrics or [])[0].timestamps[0] - (old.metrics or [])[0].timestamps[0] == int(delta.total_seconds())


def test_variants_are_deterministic(source: Path, tmp_path: Path) -> None:
    [a] = vary_bundle(source, tmp_path / "a", count=1, seed=3)
    [b] = vary_bundle(source, tmp_path / "b", count=1, seed=3)
    for f in a.rglob("*"):
        if f.is_file():
            assert f.read_bytes() == (b / f.relative_to(a)).read_bytes()


def test_renamer_respects_name_boundaries() -> None:
    rx = renamer({"node-1": "x", "cart": "y", "cart-redis": "z"})
    text = "node-1 node-10 cart-redis cart cartography pod cart-7f9c"
    assert rx.sub(lambda m: {"node-1": "x", "cart": "y", "cart-redis": "z"}[m[1]], text) == (
        "x node-10 z y cartography pod y-7f9c"
    )


def test_shift_keeps_zero_time_and_fraction() -> None:
    from datetime import timedelta

    assert shift_iso("0001-01-01T00:00:00Z", timedelta(days=1)) == "0001-01-01T00:00:00Z"
    assert shift_iso("2026-01-01T23:59:59.120Z", timedelta(seconds=2)) == "2026-01-02T00:00:01.120Z"
