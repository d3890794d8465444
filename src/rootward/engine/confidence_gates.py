"""Confidence gates: what an analysis of a given confidence is allowed to do.

Below 0.5 it is analysis only (no remediation proposal); below 0.7 it is
flagged for a human; a confidence of 0.8 or more that no cited tool output
backs is capped below 0.8 and flagged `evidence_missing`.
"""

from __future__ import annotations

from rootward.domain.investigation import ConfidenceGates, Finding

ANALYSIS_ONLY_BELOW = 0.5
HUMAN_REVIEW_BELOW = 0.7
UNBACKED_CAP_FROM = 0.8
UNBACKED_CAP = 0.79


def backed_by_tool_output(findings: list[Finding]) -> bool:
    """Some validated finding cites evidence that came out of a tool call."""
    return any(f.status == "validated" and f.evidence and f.tool_calls for f in findings)


def apply_gates(confidence: float, findings: list[Finding]) -> ConfidenceGates:
    evidence_missing = confidence >= UNBACKED_CAP_FROM and not backed_by_tool_output(findings)
    if evidence_missing:
        confidence = UNBACKED_CAP
    return ConfidenceGates(
        confidence=round(confidence, 3),
        analysis_only=confidence < ANALYSIS_ONLY_BELOW,
        needs_human=confidence < HUMAN_REVIEW_BELOW,
        evidence_missing=evidence_missing,
    )
