"""Every way a bundle can break the spec gives an error naming file, line and field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rootward.bundle.format import BundleError
from rootward.bundle.load import load_bundle
from tests.bundle.tiny import ALERT, CHANGE, INCIDENT, LOG, write_bundle


def _err(tmp_path: Path, name: str, text: str | None) -> str:
    root = write_bundle(tmp_path / "b")
    if text is None:
        (root / name).unlink()
    else:
        (root / name).write_text(text)
    with pytest.raises(BundleError) as info:
        load_bundle(root)
    return str(info.value)


def test_minimal_bundle_is_valid(tmp_path: Path) -> None:
    bundle = load_bundle(write_bundle(tmp_path / "b"))
    assert bundle.id == "tiny-01" and bundle.missing == []


CASES = [
    # required files
    ("incident.yaml", None, r"^incident.yaml: required file is missing"),
    ("alerts.json", None, r"^alerts.json: required file is missing"),
    # incident.yaml
    ("incident.yaml", "a: [1,\n", r"^incident.yaml: not valid YAML"),
    ("incident.yaml", "- 1\n", r"^incident.yaml: expected a mapping"),
    ("incident.yaml", INCIDENT.replace("rootward-bundle/v1", "v0"), r"field 'format' must be 'rootward-bundle/v1'"),
    ("incident.yaml", INCIDENT.replace("id: tiny-01\n", ""), r"required field 'id' is missing"),
    ("incident.yaml", INCIDENT.replace("title: Tiny\n", ""), r"required field 'title' is missing"),
    ("incident.yaml", INCIDENT.replace("fired_at: '2026-03-14T14:32:00Z'\n", ""), r"required field 'fired_at'"),
    ("incident.yaml", INCIDENT.split("window:")[0], r"required field 'window' is missing"),
    ("incident.yaml", INCIDENT.replace("tiny-01", "Tiny 01"), r"field 'id' must match"),
    ("incident.yaml", INCIDENT.replace("  end: '2026-03-14T15:00:00Z'\n", ""), r"'window' must have 'start' and 'end'"),
    ("incident.yaml", INCIDENT.replace("15:00:00Z", "13:00:00Z"), r"'window.end' must be after 'window.start'"),
    ("incident.yaml", INCIDENT.replace("'2026-03-14T14:32:00Z'", "yesterday"), r"field 'fired_at': 'yesterday' is not"),
    ("incident.yaml", INCIDENT.replace("'2026-03-14T14:32:00Z'", "2026-03-14T14:32:00"), r"'fired_at'.*no time zone"),
    ("incident.yaml", INCIDENT.replace("'2026-03-14T14:32:00Z'", "'2026-03-14T14:32:00'"), r"'fired_at'.*no time zone"),
    ("incident.yaml", INCIDENT.replace("'2026-03-14T14:32:00Z'", "12"), r"field 'fired_at': expected an RFC 3339"),
    # alerts.json
    ("alerts.json", "[{", r"^alerts.json line 1: not valid JSON"),
    ("alerts.json", "[]", r"^alerts.json: holds no payload"),
    ("alerts.json", "[1]", r"^alerts.json payload 0: expected an object"),
    ("alerts.json", json.dumps([{"alerts": []}]), r"^alerts.json payload 0: field 'alerts'"),
    ("alerts.json", json.dumps({"alerts": [{**ALERT, "status": "weird"}]}), r"payload 0: field 'alerts.0.status'"),
    ("alerts.json", json.dumps({"alerts": [{**ALERT, "startsAt": "never"}]}), r"payload 0: field 'alerts.0.startsAt'"),
    # topology.yaml
    ("topology.yaml", "entities: [\n", r"^topology.yaml: not valid YAML"),
    ("topology.yaml", "entities: [a, b]\n", r"^topology.yaml: field 'entities' must be a mapping"),
    ("topology.yaml", "entities:\n  api: [1, 2]\n", r"^topology.yaml: entity 'api' must be a mapping"),
    # logs.jsonl
    ("logs.jsonl", LOG + "\n{oops\n", r"^logs.jsonl line 2: not valid JSON"),
    ("logs.jsonl", "[1]\n", r"^logs.jsonl line 1: expected an object"),
    ("logs.jsonl", '{"ts": "2026-03-14T14:31:02Z", "service": "api"}\n', r"line 1: required field 'message'"),
    ("logs.jsonl", LOG + "\n" + LOG.replace("2026-03-14T14:31:02Z", "soon"), r"^logs.jsonl line 2: field 'ts'"),
    # metrics.csv
    ("metrics.csv", "time,svc,metric,value\n", r"^metrics.csv line 1: header must be"),
    ("metrics.csv", "", r"^metrics.csv line 1: header must be"),
    ("metrics.csv", "timestamp,service,metric,value\n1773498600,api,error_rate\n", r"line 2: expected 4 columns"),
    ("metrics.csv", "timestamp,service,metric,value\nnoon,api,x,1\n", r"line 2: timestamp 'noon' is not epoch"),
    ("metrics.csv", "timestamp,service,metric,value\n1,api,x,abc\n", r"line 2: value 'abc' is not a number"),
    ("metrics.csv", "timestamp,service,metric,value\n1,,x,1\n", r"line 2: service and metric must not be empty"),
    # changes.json
    ("changes.json", "[{", r"^changes.json line 1: not valid JSON"),
    ("changes.json", "{}", r"^changes.json: expected a JSON array"),
    ("changes.json", "[1]", r"^changes.json item 0: expected an object"),
    ("changes.json", json.dumps([{"id": "x", "kind": "deploy", "service": "api"}]), r"item 0: required field 'time'"),
    ("changes.json", json.dumps([{**CHANGE, "kind": "yolo"}]), r"item 0: field 'kind' must be one of"),
    ("changes.json", json.dumps([CHANGE, {**CHANGE, "time": "later"}]), r"item 1: field 'time'"),
    # knowledge
    ("knowledge/runbooks/api.md", "---\nservice: [api\n---\n# x\n", r"^knowledge/runbooks/api.md: front matter is not"),
    ("knowledge/runbooks/api.md", "---\n- a\n---\n# x\n", r"^knowledge/runbooks/api.md: front matter must be a"),
    ("knowledge/runbooks/api.md", "---\nupdated: someday\n---\n# x\n", r"front matter 'updated' is not a date"),
]


@pytest.mark.parametrize(("name", "text", "message"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_validation_error_names_the_file_line_and_field(
    tmp_path: Path, name: str, text: str | None, message: str
) -> None:
    assert re.search(message, _err(tmp_path, name, text))


def test_missing_optional_files_are_gaps_not_errors(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    for name in ("topology.yaml", "logs.jsonl", "metrics.csv", "changes.json"):
        (root / name).unlink()
    bundle = load_bundle(root)
    assert bundle.missing == ["topology.yaml", "logs.jsonl", "metrics.csv", "changes.json"]
    assert bundle.gaps()[0] == "topology.yaml: source missing from bundle"


def test_unknown_files_and_keys_are_ignored(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (root / "extra.bin").write_bytes(b"\x00\x01")
    (root / "logs.jsonl").write_text(LOG[:-1] + ', "trace_id": "t1"}\n')
    bundle = load_bundle(root)
    assert bundle.logs and bundle.logs[0].extra == {"trace_id": "t1"}


def test_path_that_is_neither_dir_nor_archive(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="no such bundle"):
        load_bundle(tmp_path / "nope")
    plain = tmp_path / "bundle.zip"
    plain.write_text("x")
    with pytest.raises(BundleError, match="a bundle is a directory or a .tar.gz"):
        load_bundle(plain)


def test_broken_archives(tmp_path: Path) -> None:
    import tarfile

    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"not a tarball")
    with pytest.raises(BundleError, match=r"bad.tar.gz: cannot read tar.gz"):
        load_bundle(bad)
    empty = tmp_path / "empty.tar.gz"
    (tmp_path / "x.txt").write_text("x")
    with tarfile.open(empty, "w:gz") as tar:
        tar.add(tmp_path / "x.txt", arcname="x.txt")
    with pytest.raises(BundleError, match="no incident.yaml inside the archive"):
        load_bundle(empty)
