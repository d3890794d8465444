"""What a specialist is, and the run loop they share.

A specialist tests each hypothesis with deterministic checks per fault type
(rule mode) through its `ToolLayer`; tools outside its manifest raise. It
writes at most one typed `Finding` per hypothesis to working memory. When its
tool budget runs out, the hypotheses it did not reach are reported back so the
result can name them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from rootward.domain.evidence import EvidenceRef
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding, FindingStatus, ToolResult
from rootward.engine.budget import BudgetExceeded
from rootward.engine.memory import WorkingMemory
from rootward.engine.tools import ToolLayer

# Faults that keep requests from arriving: the entity's traffic falls, and a rise is no sign of them.
FALLING_TRAFFIC: frozenset[str] = frozenset({"certificate_expiry"})
# Metric families whose movement a fault type predicts at the faulty entity.
EXPECTED_FAMILIES: dict[str, frozenset[str]] = {
    "cpu_saturation": frozenset({"cpu"}),
    "memory_leak": frozenset({"memory"}),
    "oom_kill": frozenset({"memory", "restarts"}),
    "crash_loop": frozenset({"restarts", "silence"}),
    "disk_full": frozenset({"disk"}),
    "network_latency": frozenset({"latency", "network"}),
    "packet_loss": frozenset({"packet_loss", "network"}),
    "dns_failure": frozenset({"errors"}),
    "dependency_down": frozenset({"errors", "silence"}),
    "connection_pool_exhaustion": frozenset({"connections", "latency"}),
    "db_lock_contention": frozenset({"locks", "latency"}),
    "deploy_regression": frozenset({"errors", "latency"}),
    "config_error": frozenset({"errors", "latency"}),
    # Clients fail the handshake before a request is served: its errors may not count them, its traffic falls.
    "certificate_expiry": frozenset({"errors", "traffic"}),
    "traffic_surge": frozenset({"traffic"}),
}


class Specialist:
    name: ClassVar[str]
    manifest: ClassVar[frozenset[str]]
    # The data source its checks read; when the whole source is missing there is nothing to check.
    source: ClassVar[str | None] = None

    def __init__(self) -> None:
        self._cache: dict[str, ToolResult] = {}

    def call(self, tools: ToolLayer, name: str, **args: str) -> ToolResult:
        """Call a tool once per distinct invocation: several hypotheses often share an entity."""
        key = f"{name}:{sorted(args.items())}"
        if key not in self._cache:
            self._cache[key] = tools.call(name, **args)
        return self._cache[key]

    def check(self, hypothesis: Hypothesis, tools: ToolLayer) -> Finding | None:
        raise NotImplementedError

    def skip(self, hypotheses: list[Hypothesis], memory: WorkingMemory, gap: str) -> None:
        """The source is missing for the whole incident: say so once per hypothesis, spend no tool call."""
        for h in hypotheses:
            memory.add(replace(finding(h, "inconclusive", 0.0, f"not tested: {gap}"), specialist=self.name))

    def run(self, hypotheses: list[Hypothesis], tools: ToolLayer, memory: WorkingMemory) -> list[str]:
        """Test every hypothesis; return a note for each one the budget left untested."""
        self._cache = {}
        untested: list[str] = []
        for h in hypotheses:
            before = len(tools.calls)
            try:
                finding = self.check(h, tools)
            except BudgetExceeded as exc:
                untested.append(f"{h.id} not evaluated by {self.name}: {exc.detail}")
                continue
            if finding is not None:
                memory.add(
                    Finding(
                        hypothesis_id=finding.hypothesis_id,
                        status=finding.status,
                        evidence=finding.evidence,
                        confidence=finding.confidence,
                        summary=finding.summary,
                        specialist=self.name,
                        tool_calls=tuple(tools.calls[before:]) or finding.tool_calls,
                    )
                )
        return untested


def finding(
    h: Hypothesis,
    status: FindingStatus,
    confidence: float,
    summary: str,
    evidence: list[EvidenceRef] | tuple[EvidenceRef, ...] = (),
) -> Finding:
    return Finding(
        hypothesis_id=h.id,
        status=status,
        evidence=tuple(dict.fromkeys(evidence)),
        confidence=round(max(0.0, min(1.0, confidence)), 3),
        summary=summary,
    )
