"""`make bench`: run every bench/bench_*.py module; each writes bench/results/<name>.json.

A benchmark module exposes `main() -> dict` and writes its own result file.
A failing benchmark is reported and the others still run.
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    (HERE / "results").mkdir(exist_ok=True)
    only = {name.replace("-", "_") for name in sys.argv[1:]}  # BENCH=llm-local names bench_llm_local
    failed = []
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem
        if only and name not in only and name.removeprefix("bench_") not in only:
            continue
        print(f"== {name}", flush=True)
        started = time.monotonic()
        try:
            importlib.import_module(f"bench.{name}").main()
        except Exception:
            traceback.print_exc()
            failed.append(name)
        print(f"   {name} took {time.monotonic() - started:.1f}s", flush=True)
    if failed:
        print("failed:", ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
