"""One benchmark batch in a process of its own: investigate each bundle given, print one JSON line per bundle.

`python -m bench.real_data_batch BUNDLE...` is what `bench_investigate` runs
per variant, so the memory figures are this process's own (the interpreter,
imports and the investigation), not the benchmark driver's.

Per bundle, in rule mode with default settings (what `rootward investigate`
does): time to first hypothesis and total as the engine records them in
`result.timing` (from the start of the investigation, bundle loading
included), the CPU time of the whole investigation (what it costs when the
machine is not shared: wall times on a loaded machine are longer), and the
peak resident set size while it ran. The peak is Linux's VmHWM, reset before
each bundle through /proc/self/clear_refs, so each figure is the process's
real high-water mark during that investigation (interpreter, imports and
whatever earlier investigations left allocated included, ~100-250 MB); where the reset is not possible the figure is
`ru_maxrss`, the process's peak so far, and the output says so.

The phases (bundle load, metric scoring, log signals) are timed by wrapping
those three functions where the engine calls them; the wrappers only read the
clock, so the investigation itself is unchanged.
"""

from __future__ import annotations

import contextlib
import json
import resource
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import rootward.context.assemble as assemble
import rootward.engine.stages as stages
from rootward.engine.entry_point import investigate_bundle

CLEAR_REFS = Path("/proc/self/clear_refs")
STATUS = Path("/proc/self/status")


def _reset_peak() -> bool:
    try:
        CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


def _peak_rss_mb(resettable: bool) -> float:
    if resettable:
        for line in STATUS.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return kib / 1024 if sys.platform != "darwin" else kib / 2**20


@contextlib.contextmanager
def _timed(
    module: Any, name: str, phases: dict[str, float], note: Callable[[Any], None] | None = None
) -> Iterator[None]:
    original = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = original(*args, **kwargs)
        phases[name] = phases.get(name, 0.0) + (time.perf_counter() - started) * 1000
        if note is not None:
            note(result)
        return result

    setattr(module, name, wrapper)
    try:
        yield
    finally:
        setattr(module, name, original)


def measure(path: Path) -> dict[str, Any]:
    """One investigation of `path`: its timings, phases, sizes and peak memory."""
    phases: dict[str, float] = {}
    sizes: dict[str, int] = {}

    def note_sizes(bundle: Any) -> None:
        sizes["spans"] = len(bundle.spans or ())
        sizes["log_lines"] = len(bundle.logs or ())
        sizes["metric_samples"] = sum(len(s.timestamps) for s in bundle.metrics or ())

    resettable = _reset_peak()
    cpu = time.process_time()
    with (
        _timed(stages, "load_bundle", phases, note_sizes),
        _timed(assemble, "detect_anomalies", phases),
        _timed(assemble, "log_signals", phases),
    ):
        result = investigate_bundle(path)
    cpu_ms = (time.process_time() - cpu) * 1000
    return {
        "bundle": path.name,
        "status": result.status,
        "top": f"{result.hypotheses[0].entity}/{result.hypotheses[0].fault_type}" if result.hypotheses else None,
        "first_hypothesis_ms": result.timing.first_hypothesis_ms,
        "total_ms": result.timing.total_ms,
        "cpu_ms": round(cpu_ms, 1),
        "peak_rss_mb": round(_peak_rss_mb(resettable), 1),
        "memory": "VmHWM reset per bundle" if resettable else "ru_maxrss of the process so far",
        "phases_ms": {k: round(v, 1) for k, v in phases.items()},
        **sizes,
    }


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv]
    if not paths:
        return 0
    investigate_bundle(paths[0])  # warm-up: imports and first-use caches, not what an alert waits for
    for path in paths:
        print(json.dumps(measure(path)), flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"process_peak_rss_mb": round(peak / 1024 if sys.platform != "darwin" else peak / 2**20, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
