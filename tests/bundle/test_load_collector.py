"""Loading pauses the cyclic garbage collector and always gives it back as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from tests.bundle.tiny import write_bundle


def test_collector_is_paused_while_parsing_and_on_again_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rootward.bundle.load as load

    seen: list[bool] = []
    parse_logs = load.parse_logs
    monkeypatch.setattr(load, "parse_logs", lambda text: seen.append(gc.isenabled()) or parse_logs(text))
    assert gc.isenabled()
    bundle = load_bundle(write_bundle(tmp_path))
    assert seen == [False] and gc.isenabled()
    assert bundle.logs is not None and bundle.logs[0].message == "boom"


def test_collector_is_on_again_after_a_bundle_that_fails_to_load(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    (root / "logs.jsonl").write_text("{not json\n")
    with pytest.raises(BundleError, match="logs.jsonl line 1"):
        load_bundle(root)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(tmp_path: Path) -> None:
    gc.disable()
    try:
        load_bundle(write_bundle(tmp_path))
        assert not gc.isenabled()
    finally:
        gc.enable()
