"""The golden set's hard cases: healthy kinds with no-fault truth, hard faults with their twist."""

from __future__ import annotations

import json

from rootward.bundle.load import load_bundle
from rootward.eval.truth import parse_truth
from rootward.sim.hard_cases import KINDS, PER_KIND, hard_case_files
from rootward.sim.healthy import HEALTHY_KINDS
from rootward.sim.render import write_bundle


def test_same_seed_same_bytes_for_every_kind() -> None:
    for kind in KINDS:
        assert hard_case_files(kind, 1, "s") == hard_case_files(kind, 1, "s")


def test_golden_has_at_least_fifteen_healthy_bundles() -> None:
    assert len(HEALTHY_KINDS) * PER_KIND >= 15


def test_healthy_bundles_load_and_carry_no_fault_truth(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for kind in HEALTHY_KINDS:
        bundle_id, files = hard_case_files(kind, 0, "s")
        truth = parse_truth(files["truth.json"].decode())
        assert truth.no_fault and json.loads(files["truth.json"])["kind"] == kind
        bundle = load_bundle(write_bundle(files, tmp_path / bundle_id))
        assert bundle.alerts and bundle.meta.id == bundle_id


def test_noisy_monitor_bundles_carry_its_earlier_firings_or_a_team_note() -> None:
    for index in range(3):
        _, files = hard_case_files("healthy-noisy", index, "s")
        payloads = json.loads(files["alerts.json"])
        resolved = [p for p in payloads if p["status"] == "resolved"]
        noted = any(b"HighLatencyP99" in v for k, v in files.items() if k.startswith("knowledge/bits/"))
        assert resolved or noted


def test_dual_fault_accepts_the_second_cause_and_missing_metric_drops_the_cause_series() -> None:
    _, files = hard_case_files("dual-fault", 0, "s")
    truth = json.loads(files["truth.json"])
    entity, fault = truth["second_fault"]
    assert {"entity": entity, "fault_type": fault} in truth["also_acceptable"]
    _, files = hard_case_files("missing-metric", 0, "s")
    truth = json.loads(files["truth.json"])
    csv = files["metrics.csv"].decode()
    for series in truth["missing_series"]:
        service, metric = series.split("/")
        assert f",{service},{metric}," not in csv
