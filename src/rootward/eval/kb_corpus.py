"""A realistic, deterministic knowledge corpus for the simulator's topologies.

Runbooks for every (service, fault) that can happen to that kind of service
(web shop, homelab, data pipeline), some of them stale, some with a stale
legacy copy beside a fresh rewrite; and postmortems of past incidents with
their own triggers, impact, error codes and fixes. Same seed, same corpus, so
`rootward kb eval` and the benchmark are reproducible without shipping 1,500
files.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from rootward.bundle.validate import parse_document
from rootward.domain.knowledge import Document
from rootward.eval.kb_faults import ALL_SERVICES, FAULTS, Fault, Svc

DEFAULT_SEED = 7
DEFAULT_POSTMORTEMS = 1260
CORPUS_NOW = date(2026, 10, 1)  # "today" of the corpus: staleness is measured from here
LEGACY_SHARE = 0.12  # combos with a stale legacy copy beside the fresh runbook
STALE_SHARE = 0.15  # runbooks that are simply old


@dataclass(frozen=True)
class CorpusFile:
    path: str  # relative to the knowledge root
    text: str  # with front matter


def combos() -> list[tuple[Svc, Fault]]:
    return [(s, f) for s in ALL_SERVICES for f in FAULTS if s.kind in f.kinds]


def error_code(svc: Svc, fault: Fault) -> str:
    """A stable code per (service, fault); codes of one service share its prefix on purpose."""
    n = 1000 + (zlib.crc32(f"{svc.name}:{fault.name}".encode()) % 8999)
    return f"{svc.code}-E{n}"


def monitor_name(svc: Svc, fault: Fault) -> str:
    return "".join(p.capitalize() for p in svc.name.split("-")) + fault.monitor


def runbook_path(svc: Svc, fault: Fault, legacy: bool = False) -> str:
    slug = fault.name.replace("_", "-")
    return f"runbooks/legacy/{svc.name}-{slug}.md" if legacy else f"runbooks/{svc.name}-{slug}.md"


def _front(services: list[str], monitors: list[str], updated: date) -> str:
    svc = services[0] if len(services) == 1 else "[" + ", ".join(services) + "]"
    return f"---\nservice: {svc}\nmonitors: [{', '.join(monitors)}]\nupdated: {updated.isoformat()}\n---\n"


def _runbook(svc: Svc, fault: Fault, updated: date, rng: random.Random, legacy: bool) -> str:
    code = error_code(svc, fault)
    monitor = monitor_name(svc, fault)
    symptoms = rng.sample(fault.doc_symptoms, len(fault.doc_symptoms))
    steps = list(fault.diagnosis)
    rng.shuffle(steps)
    commands = [c.format(svc=svc.name, code=code) for c in fault.commands]
    fixes = [fault.legacy_fix] if legacy else list(fault.fixes)
    lines = [
        f"# {svc.name}: {fault.human}" + (" (old wiki page)" if legacy else ""),
        "",
        "## When this fires",
        f"{monitor} fires for {svc.name} when {symptoms[0]}. "
        f"Typical log line: `{code}` ({fault.code_meaning}). In the {svc.topology} topology "
        f"{svc.name} is a {svc.kind}.",
        "",
        "## Diagnosis",
    ]
    for i, step in enumerate(steps[:3], start=1):
        lines.append(f"{i}. {step}")
        if i == 1:
            lines += ["   ```", f"   {commands[0]}", "   ```"]
    lines.append(f"4. {steps[3]}")
    lines += ["", "```bash", commands[-1], "```", "", "## Mitigation"]
    lines += [f"{i}. {fix}" for i, fix in enumerate(fixes, start=1)]
    lines += [
        "",
        "## Background",
        f"Past causes: {'; '.join(rng.sample(fault.causes, 2))}. Also seen: {symptoms[-1]}.",
    ]
    if legacy:
        lines.append("This page predates the current platform and was never reviewed after the migration.")
    return _front([svc.name], [monitor], updated) + "\n".join(lines) + "\n"


_IMPACTS = (
    "returned errors to {pct}% of requests",
    "was degraded",
    "was unavailable",
    "served slow responses",
    "dropped work silently",
)
_TRIGGERS = (
    "Trigger: {cause}.",
    "It started when {cause}.",
    "The change that set it off: {cause}.",
)
_DETECTIONS = (
    "{monitor} paged the on-call after {det} minutes; logs showed `{code}`.",
    "A customer report arrived before any alert; later we found `{code}` in the logs.",
    "Detected by {monitor} after {det} minutes.",
)
_ACTIONS = (
    "Add an alert on the leading signal.",
    "Write a regression test.",
    "Update the runbook with the commands that worked.",
    "Review capacity assumptions.",
    "Add a canary stage to the pipeline.",
    "Document the dependency in the service catalog.",
)


def _postmortem(n: int, svc: Svc, fault: Fault, when: date, rng: random.Random) -> CorpusFile:
    code = error_code(svc, fault)
    monitor = monitor_name(svc, fault)
    cause = rng.choice(fault.causes)
    duration = rng.randint(6, 240)
    impact = rng.choice(_IMPACTS).format(pct=rng.randint(2, 60))
    symptom = rng.choice(fault.doc_symptoms)
    fix = rng.choice(fault.fixes)
    detection = rng.choice(_DETECTIONS).format(monitor=monitor, det=rng.randint(1, 30), code=code)
    lines = [
        f"# Postmortem INC-{n}: {svc.name} {impact.split(' ')[0]} {impact.split(' ', 1)[-1]}",
        "",
        "## Summary",
        f"On {when.isoformat()} {svc.name} {impact} for {duration} minutes because {symptom}.",
        "",
        "## Root cause",
        f"{fault.human.capitalize()} on {svc.name}. " + rng.choice(_TRIGGERS).format(cause=cause),
        "",
        "## Detection",
        detection,
        "",
        "## Resolution",
        fix,
        "",
        "## Action items",
        *[f"- {a}" for a in rng.sample(_ACTIONS, 2)],
    ]
    slug = fault.name.replace("_", "-")
    path = f"postmortems/{when.year}/INC-{n}-{svc.name}-{slug}.md"
    return CorpusFile(path, _front([svc.name], [monitor], when) + "\n".join(lines) + "\n")


def _bits(svc: Svc, rng: random.Random) -> CorpusFile:
    faults = [f for f in FAULTS if svc.kind in f.kinds]
    f1, f2 = rng.sample(faults, 2)
    text = (
        f"# {svc.name} team notes\n\n"
        f"- {monitor_name(svc, f1)} is flaky during the nightly batch; check the batch window first.\n"
        f"- Known cliff: {f2.human} starts when {rng.choice(f2.doc_symptoms)}.\n"
        f"- Owner: team-{svc.topology}; escalate in #{svc.name}-oncall.\n"
    )
    return CorpusFile(f"bits/{svc.name}.md", text)


def generate_files(
    seed: int = DEFAULT_SEED, postmortems: int = DEFAULT_POSTMORTEMS, now: date = CORPUS_NOW
) -> list[CorpusFile]:
    rng = random.Random(seed)
    files: list[CorpusFile] = []
    pairs = combos()
    for svc, fault in pairs:
        roll = rng.random()
        if roll < LEGACY_SHARE:
            fresh = now - timedelta(days=rng.randint(3, 60))
            old = now - timedelta(days=rng.randint(200, 700))
            files.append(CorpusFile(runbook_path(svc, fault), _runbook(svc, fault, fresh, rng, False)))
            files.append(CorpusFile(runbook_path(svc, fault, True), _runbook(svc, fault, old, rng, True)))
        else:
            age = rng.randint(100, 500) if roll < LEGACY_SHARE + STALE_SHARE else rng.randint(1, 85)
            updated = now - timedelta(days=age)
            files.append(CorpusFile(runbook_path(svc, fault), _runbook(svc, fault, updated, rng, False)))
    for i in range(postmortems):
        svc, fault = rng.choice(pairs)
        when = now - timedelta(days=rng.randint(5, 1500))
        files.append(_postmortem(4000 + i, svc, fault, when, rng))
    files += [_bits(svc, rng) for svc in ALL_SERVICES]
    return files


def generate_documents(
    seed: int = DEFAULT_SEED, postmortems: int = DEFAULT_POSTMORTEMS, now: date = CORPUS_NOW
) -> list[Document]:
    """The corpus parsed exactly as `kb ingest` would parse it from disk."""
    return [parse_document(f.path, f.text) for f in generate_files(seed, postmortems, now)]


def write_corpus(root: Path, seed: int = DEFAULT_SEED, postmortems: int = DEFAULT_POSTMORTEMS) -> int:
    """Write the corpus as Markdown files under `root` (for `rootward kb ingest`); returns the count."""
    files = generate_files(seed, postmortems)
    for f in files:
        target = root / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f.text, encoding="utf-8")
    return len(files)
