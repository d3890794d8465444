""" "Why not X?": why a candidate is not the root cause, from the investigation's own record.

The answer comes from what the investigation already holds: X's hypothesis
(its status and confidence against the leader's), what it ruled out and on
which evidence, and, when X was never a candidate, the evidence that names
it. Like the follow-up answerer it says nothing the investigation did not
cite.
"""

from __future__ import annotations

from rootward.domain.investigation import InvestigationResult
from rootward.engine.followup import Answer, answer


def _names(target: str, *fields: str) -> bool:
    """`target` is one of the fields: an entity as written, or a fault type with spaces for underscores."""
    wanted = target.lower().strip().replace(" ", "_")
    return bool(wanted) and any(wanted == f.lower() for f in fields if f)


def why_not(result: InvestigationResult, target: str) -> Answer:
    top = result.top
    lines: list[str] = []
    cited: list[str] = []
    for ruled in result.ruled_out:
        if _names(target, ruled.entity, ruled.fault_type):
            ids = [e for e in ruled.evidence if e in result.evidence]
            lines.append(f"{ruled.entity} ({ruled.fault_type}) was ruled out: {ruled.reason}" + _ids(ids))
            cited += ids
    for h in result.hypotheses:
        if not _names(target, h.entity, h.fault_type):
            continue
        ids = [e for e in h.evidence if e in result.evidence]
        if top is not None and h.id == top.id:
            lines.append(
                f"{h.entity} ({h.fault_type}) is the leading hypothesis: {h.status}, "
                f"confidence {h.confidence:.2f}" + _ids(ids)
            )
        else:
            leader = f"; the leader is {top.entity} ({top.fault_type}) at {top.confidence:.2f}" if top else ""
            lines.append(
                f"{h.entity} ({h.fault_type}) was tested: {h.status}, confidence {h.confidence:.2f}{leader}" + _ids(ids)
            )
        cited += ids
    if lines:
        return Answer("\n".join(lines), tuple(dict.fromkeys(cited)))
    tested = ", ".join(dict.fromkeys(h.entity for h in result.hypotheses)) or "none"
    mentioned = answer(result, target)
    intro = f"{target} was not a candidate this investigation tested (it tested: {tested})."
    if not mentioned.evidence:
        return Answer(f"{intro} It holds no evidence about {target}.", ())
    return Answer(f"{intro} Evidence that names it:\n{mentioned.text}", mentioned.evidence)


def _ids(ids: list[str]) -> str:
    return f" [{', '.join(ids)}]" if ids else ""
