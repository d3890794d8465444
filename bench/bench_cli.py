"""CLI start-up: `import rootward.cli`, `rootward --help` and loading the settings, each in a fresh interpreter.

Every verb pays the start-up before it does anything, and the tests and the
docs run the CLI hundreds of times. Wall-clock times swing with whatever else
runs on the machine, so the import is also reported as `-X importtime`'s
cumulative microseconds, which move much less; each figure is the best of
RUNS runs. The property itself (no heavy module at start-up) is a test:
tests/cli/test_startup_imports.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"  # this checkout's code, whatever is installed
RUNS = 7


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOTWARD_")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return env


def _import_us(module: str) -> int:
    """`-X importtime`'s cumulative microseconds for importing `module` (and all it imports)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    for line in reversed(done.stderr.splitlines()):
        fields = [part.strip() for part in line.removeprefix("import time:").split("|")]
        if len(fields) == 3 and fields[2] == module:
            return int(fields[1])
    raise RuntimeError(f"no importtime line for {module}: {done.stderr[-500:]}")


def _wall_s(code: str, *args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, *args], env=_env(), capture_output=True, check=True)
    return time.perf_counter() - started


def main() -> dict[str, object]:
    result: dict[str, object] = {
        "runs": RUNS,
        "import_cli_importtime_us": min(_import_us("rootward.cli") for _ in range(RUNS)),
        "import_settings_importtime_us": min(_import_us("rootward.settings") for _ in range(RUNS)),
        "import_cli_wall_s": round(min(_wall_s("import rootward.cli") for _ in range(RUNS)), 3),
        "help_wall_s": round(min(_wall_s("from rootward.cli import main; main()", "--help") for _ in range(RUNS)), 3),
        "python_bare_wall_s": round(min(_wall_s("pass") for _ in range(RUNS)), 3),
    }
    (HERE / "results" / "cli.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
