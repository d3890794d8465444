"""Variants of a bundle: same incident, other names, other times, other scales.

An engine that is right for the right reasons gives the same answer when
every entity is renamed (consistently, in every file including logs, metrics
and truth), the clock is shifted and the metric units change. A result that
changes under `vary` depends on names or absolute values, not on the evidence.
"""

from __future__ import annotations

import random
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from rootward.sim.signals import COUNTER_METRICS, INTEGER_METRICS, RATIO_METRICS, fmt

_ADJECTIVES = (
    "amber", "brisk", "cobalt", "dusty", "ember", "fallow", "gilded", "hollow", "ivory", "jade", "keen",
    "lunar", "misty", "nimble", "opal", "plain", "quiet", "rusty", "sable", "tidal", "umber", "vivid",
    "woven", "young", "zesty",
)  # fmt: skip
_NOUNS = (
    "otter", "heron", "lynx", "maple", "quartz", "falcon", "badger", "cedar", "delta", "fjord", "gecko",
    "harbor", "iris", "juniper", "kestrel", "lagoon", "marten", "newt", "orchid", "pebble", "raven",
    "sparrow", "thistle", "walrus", "yarrow",
)  # fmt: skip
# Words that are structure, not entity names; never renamed even if a topology uses them.
_RESERVED = frozenset(
    {
        "format", "id", "title", "window", "start", "end", "service", "level", "message", "host", "pod", "ts",
        "kind", "entities", "depends_on", "runs_on", "timestamp", "metric", "value", "version", "status",
        "labels", "annotations", "alerts",
    }
)  # fmt: skip
_ISO_RE = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})")
_TEXT_FILES = (
    "incident.yaml", "alerts.json", "topology.yaml", "logs.jsonl", "traces.jsonl", "changes.json", "truth.json",
)  # fmt: skip
_SCALED = ("latency_p99_ms", "request_rate", "cpu_usage", "memory_bytes", "network_rtt_ms")


def entity_names(bundle: Path) -> list[str]:
    """Every entity the topology declares or names as a target."""
    data = (
        yaml.safe_load((bundle / "topology.yaml").read_text(encoding="utf-8"))
        if (bundle / "topology.yaml").is_file()
        else {}
    )
    names: set[str] = set()
    for name, spec in ((data or {}).get("entities") or {}).items():
        names.add(str(name))
        for key in ("depends_on", "runs_on"):
            value = (spec or {}).get(key)
            names.update(str(v) for v in (value if isinstance(value, list) else [value] if value else []))
    return sorted(n for n in names if n not in _RESERVED)


def rename_map(names: list[str], rng: random.Random) -> dict[str, str]:
    used: set[str] = set()
    out: dict[str, str] = {}
    for name in names:
        while True:
            new = f"{rng.choice(_ADJECTIVES)}-{rng.choice(_NOUNS)}"
            if new not in used and new not in names:
                break
        used.add(new)
        out[name] = new
    return out


def renamer(mapping: dict[str, str]) -> re.Pattern[str]:
    """One regex for all names, longest first, bounded so `node-1` never matches inside `node-10`."""
    alternatives = "|".join(re.escape(n) for n in sorted(mapping, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])({alternatives})(?![A-Za-z0-9_])")


def shift_iso(text: str, delta: timedelta) -> str:
    def sub(m: re.Match[str]) -> str:
        if m[1] < "1900":  # Alertmanager's zero time ("0001-01-01T00:00:00Z") means "not ended"
            return m[0]
        when = datetime.fromisoformat(m[1] + ("+00:00" if m[3] == "Z" else m[3])) + delta
        base = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S") if m[3] == "Z" else when.strftime("%Y-%m-%dT%H:%M:%S")
        return base + (m[2] or "") + m[3]

    return _ISO_RE.sub(sub, text)


def _transform(text: str, pattern: re.Pattern[str] | None, mapping: dict[str, str], delta: timedelta) -> str:
    if pattern is not None:
        text = pattern.sub(lambda m: mapping[m[1]], text)
    return shift_iso(text, delta)


def _metrics(text: str, mapping: dict[str, str], delta_s: int, scale: dict[str, float]) -> str:
    lines = text.splitlines()
    out = lines[:1]
    for line in lines[1:]:
        if not line:
            continue
        ts, service, metric, value = line.split(",", 3)
        v = float(value)
        if metric in scale and metric not in RATIO_METRICS | INTEGER_METRICS | COUNTER_METRICS:
            v *= scale[metric]
        out.append(f"{int(float(ts)) + delta_s},{mapping.get(service, service)},{metric},{fmt(v)}")
    return "\n".join(out) + "\n"


def vary_bundle(src: Path, out: Path, count: int, seed: int) -> list[Path]:
    """Write `count` variants of bundle `src` under `out` (each `<id>-v<k>`)."""
    meta = yaml.safe_load((src / "incident.yaml").read_text(encoding="utf-8"))
    base_id = str(meta["id"])
    names = entity_names(src)
    written = []
    for k in range(count):
        rng = random.Random(f"rootward-vary/{seed}/{base_id}/{k}")
        mapping = rename_map(names, rng)
        pattern = renamer(mapping) if mapping else None
        delta = timedelta(days=rng.randint(-200, 200), seconds=rng.randint(0, 86399))
        scale = {m: round(rng.uniform(0.5, 2.0), 3) for m in _SCALED}
        new_id = f"{base_id}-v{k}"
        dest = out / new_id
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)

        for name in _TEXT_FILES:
            if (src / name).is_file():
                text = _transform((src / name).read_text(encoding="utf-8"), pattern, mapping, delta)
                if name == "incident.yaml":
                    text = re.sub(r"(?m)^id: .*$", f"id: {new_id}", text)
                (dest / name).write_text(text, encoding="utf-8")
        if (src / "metrics.csv").is_file():
            text = (src / "metrics.csv").read_text(encoding="utf-8")
            (dest / "metrics.csv").write_text(
                _metrics(text, mapping, int(delta.total_seconds()), scale), encoding="utf-8"
            )
        kdir = src / "knowledge"
        for file in sorted(kdir.rglob("*")) if kdir.is_dir() else []:
            if not file.is_file():
                continue
            rel = file.relative_to(kdir).as_posix()
            if rel.startswith("bits/") and file.stem in mapping:
                rel = f"bits/{mapping[file.stem]}{file.suffix}"
            target = dest / "knowledge" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_transform(file.read_text(encoding="utf-8"), pattern, mapping, delta), encoding="utf-8")
        written.append(dest)
    return written
