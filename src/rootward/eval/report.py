"""The evaluation report (JSON and Markdown) and the baseline gate.

The JSON is what `--baseline` compares against later, so its keys are stable:
`summary`, `by_fault_type`, `by_topology`, `bundles`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rootward.eval.score import BundleScore, breakdown, summarize

REPORT_VERSION = 1


def build_report(scores: Sequence[BundleScore], wall_s: float = 0.0, jobs: int = 1) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "summary": summarize(scores) | {"wall_s": round(wall_s, 2), "jobs": jobs},
        "by_fault_type": breakdown(scores, lambda s: s.fault_type),
        "by_topology": breakdown(scores, lambda s: s.topology),
        "bundles": [s.to_dict() for s in scores],
    }


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{100 * float(v):.1f}%"


def _ms(v: Any) -> str:
    return "n/a" if v is None else f"{float(v):.0f} ms"


def to_markdown(report: dict[str, Any]) -> str:
    s = report["summary"]
    if not s.get("bundles"):
        return "# rootward evaluation\n\nNo bundles found.\n"
    lines = [
        "# rootward evaluation",
        "",
        f"{s['bundles']} bundles, {s.get('wall_s', 0)} s wall clock with {s.get('jobs', 1)} job(s).",
        "",
        "| metric | value |",
        "|---|---|",
    ]
    for key in ("ac@1", "ac@3", "avg@5", "entity@1", "entity@3"):
        lines.append(f"| {key.upper() if key.startswith('ac') else key} | {_pct(s[key])} |")
    lines += [
        f"| citation accuracy | {_pct(s['citation_accuracy'])} ({s['cites']} cites) |",
        f"| claims with evidence | {_pct(s['claims_with_evidence'])} ({s['claims']} claims) |",
        f"| dangling evidence ids | {s['dangling_evidence_ids']} |",
        f"| validated | {_pct(s['validated_rate'])} |",
        f"| inconclusive | {_pct(s['inconclusive_rate'])} |",
        f"| false escalation (inconclusive, truth in evidence) | {_pct(s['false_escalation_rate'])} |",
        f"| failed | {_pct(s['failed_rate'])} ({s['errors']} engine errors) |",
        f"| no_fault on healthy bundles | {_pct(s.get('no_fault_recall'))} ({s.get('no_fault_bundles', 0)} bundles) |",
        f"| no_fault on fault bundles | {_pct(s.get('false_no_fault_rate'))} ({s.get('fault_bundles', 0)} bundles) |",
        f"| median time to first hypothesis | {_ms(s['median_first_hypothesis_ms'])} |",
        f"| median total time | {_ms(s['median_total_ms'])} |",
        "",
    ]
    for title, key in (("By fault type", "by_fault_type"), ("By topology", "by_topology")):
        lines += [f"## {title}", "", "| group | n | AC@1 | AC@3 | Avg@5 | entity@1 |", "|---|---|---|---|---|---|"]
        for name, g in report[key].items():
            cells = [str(g["bundles"]), *(_pct(g[k]) for k in ("ac@1", "ac@3", "avg@5", "entity@1"))]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    misses = [b for b in report["bundles"] if b["hit_rank"] != 1]
    if misses:
        lines += ["## Misses", "", "| bundle | truth | status | top hypotheses | note |", "|---|---|---|---|---|"]
        for b in misses:
            note = b["error"] or (f"{len(b['bad_cites'])} bad cites" if b["bad_cites"] else "")
            lines.append(f"| {b['bundle']} | {b['truth']} | {b['status']} | {', '.join(b['top']) or '-'} | {note} |")
        lines.append("")
    return "\n".join(lines)


# The no-fault gate: at least this share of healthy bundles called `no_fault`, at most this share of fault ones.
MIN_NO_FAULT_RECALL = 0.9
MAX_FALSE_NO_FAULT = 0.02


@dataclass(frozen=True)
class Regression:
    metric: str
    baseline: float
    current: float
    margin: float
    rising: bool = False  # a rate that must stay below a limit went above it

    def __str__(self) -> str:
        if self.rising:
            return f"{self.metric} is {self.current:.4f}, above its limit {self.baseline:.4f}"
        if self.margin == 0.0 and self.metric == "no_fault_recall":
            return f"{self.metric} is {self.current:.4f}, below its limit {self.baseline:.4f}"
        return f"{self.metric} dropped from {self.baseline:.4f} to {self.current:.4f} (allowed drop {self.margin:.4f})"


def compare(
    current: dict[str, Any],
    baseline: dict[str, Any],
    ac1_margin: float = 0.05,
    cite_margin: float = 0.0,
    *,
    min_no_fault: float = MIN_NO_FAULT_RECALL,
    max_false_no_fault: float = MAX_FALSE_NO_FAULT,
) -> list[Regression]:
    """Regressions of AC@1 and citation accuracy beyond their margins (a missing value counts as 0),
    and the no-fault verdict's two rates against their limits."""
    out = []
    for metric, margin in (("ac@1", ac1_margin), ("citation_accuracy", cite_margin)):
        before = float(baseline.get("summary", {}).get(metric) or 0.0)
        now = float(current.get("summary", {}).get(metric) or 0.0)
        if before - now > margin + 1e-9:
            out.append(Regression(metric, before, now, margin))
    return out + no_fault_regressions(current, min_recall=min_no_fault, max_false=max_false_no_fault)


def no_fault_regressions(current: dict[str, Any], *, min_recall: float, max_false: float) -> list[Regression]:
    """The verdict's own gate, absolute: healthy bundles must mostly get `no_fault`, fault bundles almost never.

    Measured only where the set has such bundles (a set without healthy ones has no recall to check).
    """
    s = current.get("summary", {})
    out: list[Regression] = []
    recall = s.get("no_fault_recall")
    if s.get("no_fault_bundles") and recall is not None and float(recall) < min_recall - 1e-9:
        out.append(Regression("no_fault_recall", min_recall, float(recall), 0.0))
    false_rate = s.get("false_no_fault_rate")
    if s.get("fault_bundles") and false_rate is not None and float(false_rate) > max_false + 1e-9:
        out.append(Regression("false_no_fault_rate", max_false, float(false_rate), 0.0, rising=True))
    return out
