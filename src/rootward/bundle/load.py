"""Read a bundle directory or `.tar.gz` into a `Bundle`, validating every file.

Every file access goes through `_read_bytes`, which refuses truth.json: only
the evaluation harness reads it (see `rootward.eval.truth`). A `.tar.gz` is
extracted without it, so the investigation cannot find it on disk either.
"""

from __future__ import annotations

import gc
import json
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rootward.bundle.format import (
    ALERTS_FILE,
    CHANGES_FILE,
    GAPS_FILE,
    INCIDENT_FILE,
    KNOWLEDGE_DIR,
    LOGS_FILE,
    METRICS_FILE,
    REQUIRED_FILES,
    TOPOLOGY_FILE,
    TRACES_FILE,
    TRUTH_FILE,
    Bundle,
    BundleError,
    TruthAccessDenied,
)
from rootward.bundle.metric_epochs import NOTE_KEY, SPAN_KEY, in_seconds, outside_note
from rootward.bundle.validate import (
    parse_alerts,
    parse_changes,
    parse_document,
    parse_incident,
    parse_logs,
    parse_metrics,
    parse_topology,
    parse_traces,
)


def _read_bytes(root: Path, name: str) -> bytes:
    """The only way this package reads a bundle file; truth.json is refused by name."""
    if Path(name).name == TRUTH_FILE or name.endswith("/" + TRUTH_FILE):
        raise TruthAccessDenied("truth.json is for the evaluation harness only")
    return (root / name).read_bytes()


def _read_text(root: Path, name: str) -> str:
    return _read_bytes(root, name).decode("utf-8")


def _extract_tar(path: Path) -> tuple[Path, tempfile.TemporaryDirectory[str]]:
    tmp = tempfile.TemporaryDirectory(prefix="rootward-bundle-")
    dest = Path(tmp.name)
    try:
        with tarfile.open(path, "r:gz") as tar:
            members = [m for m in tar.getmembers() if Path(m.name).name != TRUTH_FILE]
            tar.extractall(dest, members=members, filter="data")
    except (tarfile.TarError, OSError) as exc:
        tmp.cleanup()
        raise BundleError(f"{path.name}: cannot read tar.gz ({exc})") from None
    candidates = [p.parent for p in dest.rglob(INCIDENT_FILE)]
    if not candidates:
        tmp.cleanup()
        raise BundleError(f"{path.name}: no incident.yaml inside the archive")
    return min(candidates, key=lambda p: len(p.parts)), tmp


@contextmanager
def acyclic_allocations() -> Iterator[None]:
    """No cyclic garbage collection while the parsers allocate.

    A real bundle is tens of thousands of records (spans, log lines, metric
    samples), none of them in a reference cycle. Allocated with the collector
    on, they trigger hundreds of young collections and, in a process that
    already holds other investigations, a full one that walks the whole heap
    (~100-200 ms at 20,000 spans and 20,000 log lines) to free nothing. With it
    paused, they are examined once when it resumes. Reference counting still
    frees everything as usual; the collector is resumed only if it was on (so
    a pause inside another, as loading inside context assembly, is one pause).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_bundle(path: str | Path) -> Bundle:
    """Read and validate a bundle directory or `.tar.gz`; never touches truth.json."""
    with acyclic_allocations():
        return _load(path)


def _load(path: str | Path) -> Bundle:
    src = Path(path)
    tmp = None
    if src.is_file() and (src.name.endswith(".tar.gz") or src.name.endswith(".tgz")):
        root, tmp = _extract_tar(src)
    elif src.is_dir():
        root = src
    elif not src.exists():
        raise BundleError(f"{src}: no such bundle directory or archive")
    else:
        raise BundleError(f"{src}: a bundle is a directory or a .tar.gz")
    for required in REQUIRED_FILES:
        if not (root / required).is_file():
            raise BundleError(f"{required}: required file is missing")
    meta = parse_incident(_read_text(root, INCIDENT_FILE))
    payloads, alerts = parse_alerts(_read_text(root, ALERTS_FILE))
    bundle = Bundle(root=root, meta=meta, alert_payloads=payloads, alerts=alerts, _tmp=tmp)
    bundle.gap_reasons = _gap_reasons(root)
    if (root / TOPOLOGY_FILE).is_file():
        bundle.topology = parse_topology(_read_text(root, TOPOLOGY_FILE))
    else:
        bundle.missing.append(TOPOLOGY_FILE)
    if (root / LOGS_FILE).is_file():
        bundle.logs = parse_logs(_read_text(root, LOGS_FILE))
    else:
        bundle.missing.append(LOGS_FILE)
    if (root / METRICS_FILE).is_file():
        metrics, note = in_seconds(parse_metrics(_read_text(root, METRICS_FILE)), int(meta.fired_at.timestamp()))
        bundle.metrics = metrics
        if note:
            bundle.gap_reasons.setdefault(NOTE_KEY, note)
        if outside := outside_note(metrics, meta.window_start, meta.window_end):
            bundle.gap_reasons.setdefault(SPAN_KEY, outside)
    else:
        bundle.missing.append(METRICS_FILE)
    if (root / TRACES_FILE).is_file():
        bundle.spans = parse_traces(_read_bytes(root, TRACES_FILE))
    else:
        bundle.missing.append(TRACES_FILE)
    if (root / CHANGES_FILE).is_file():
        bundle.changes = parse_changes(_read_text(root, CHANGES_FILE))
    else:
        bundle.missing.append(CHANGES_FILE)
    kdir = root / KNOWLEDGE_DIR
    if kdir.is_dir():
        docs = []
        for file in sorted(kdir.rglob("*.md")):
            rel = file.relative_to(kdir).as_posix()
            docs.append(parse_document(rel, _read_text(kdir, rel)))
        bundle.documents = docs
    else:
        bundle.missing.append(KNOWLEDGE_DIR)
    return bundle


def _gap_reasons(root: Path) -> dict[str, str]:
    """`gaps.json` of a live snapshot: why each missing source is missing."""
    if not (root / GAPS_FILE).is_file():
        return {}
    try:
        reasons = json.loads(_read_text(root, GAPS_FILE))
    except json.JSONDecodeError as exc:
        raise BundleError(f"{GAPS_FILE} line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(reasons, dict):
        return {}
    return {str(k): str(v) for k, v in reasons.items()}
