"""Logs specialist: do failure templates at (or about) the entity carry the fault's signature?

A code fault need not log an error: a template that appeared at the entity
itself at the onset (any level; `context.log_shifts`) is direct evidence that
its code took a new path, and validates a code-fault hypothesis when no
failure template says more.
"""

from __future__ import annotations

from rootward.context.log_shifts import LogShift
from rootward.context.log_signals import LogSignal
from rootward.domain.hypothesis import Hypothesis
from rootward.domain.investigation import Finding
from rootward.engine.signatures import LOG_SIGNATURES, faults_named
from rootward.engine.specialists.base import Specialist, finding
from rootward.engine.tools import ToolLayer

# Fault types that always leave their own words in logs: silence argues against them. Not a
# process that dies: SIGKILL leaves no line and a crash before its logger starts none, and the
# orchestrator (restarts, events, an alert), not its own logs, says it (oom_kill, crash_loop).
LOG_SPECIFIC = frozenset(
    {
        "disk_full",
        "certificate_expiry",
        "dns_failure",
        "connection_pool_exhaustion",
        "db_lock_contention",
    }
)

# Faults of the code itself: a new path through it shows as a template it never logged before.
CODE_FAULTS = frozenset({"deploy_regression"})
# The p-value a new template needs to validate on its own (far below the detector's own bar).
SHIFT_VALIDATES_P = 1e-4


class LogsSpecialist(Specialist):
    name = "logs"
    source = "logs"
    manifest = frozenset({"log_templates", "log_shifts", "log_mentions", "dependent_logs"})

    def check(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        own = self.call(tools, "log_templates", entity=h.entity)
        failing: list[LogSignal] = [s for s in own.data if s.changed and s.is_failure]
        if h.fault_type in LOG_SIGNATURES:
            matched = [s for s in failing if h.fault_type in faults_named(s.template)]
            if not matched:
                mentions = self.call(tools, "log_mentions", entity=h.entity)
                matched = [s for s in mentions.data if h.fault_type in faults_named(s.template)]
            if not matched and own.status == "no_data":
                shared = self.call(tools, "dependent_logs", entity=h.entity)
                matched = [s for s in shared.data if h.fault_type in faults_named(s.template)]
            if matched:
                n = sum(s.onset_count for s in matched)
                lead = matched[0]
                where = "its own logs" if lead.service == h.entity else f"{lead.service}'s logs"
                conf = min(0.9, 0.45 + 0.05 * n) if len({s.service for s in matched}) > 1 or n >= 5 else 0.45
                return finding(
                    h,
                    "validated",
                    conf,
                    f'{n} new or surging log lines in {where} match {h.fault_type}: "{lead.template[:120]}"',
                    [s.evidence for s in matched[:4]],
                )
        if own.status == "no_data":
            return finding(h, "inconclusive", 0.15, f"no logs from {h.entity} in the incident window")
        if h.fault_type in CODE_FAULTS:
            shifted = self._appeared(h, tools)
            if shifted:
                return shifted
        if h.fault_type in LOG_SPECIFIC and not failing:
            return finding(h, "invalidated", 0.5, f"{h.entity}'s logs show no new failures, and {h.fault_type} would")
        if failing:
            return finding(
                h,
                "inconclusive",
                0.3,
                f'{h.entity} logs new failures, none specific to {h.fault_type}: "{failing[0].template[:120]}"',
                [failing[0].evidence],
            )
        return None

    def _appeared(self, h: Hypothesis, tools: ToolLayer) -> Finding | None:
        """Validate a code fault from templates that appeared (or surged) at the entity itself."""
        result = self.call(tools, "log_shifts", entity=h.entity)
        shifts: list[LogShift] = [
            s for s in result.data if s.appeared and s.service == h.entity and s.p_value <= SHIFT_VALIDATES_P
        ]
        if not shifts:
            return None
        lead = next((s for s in shifts if s.kind == "new"), shifts[0])
        n = sum(s.onset_count for s in shifts)
        conf = min(0.7, (0.45 if lead.kind == "new" else 0.35) + 0.05 * (len(shifts) - 1))
        what = "a new log template" if lead.kind == "new" else "a log template surging"
        return finding(
            h,
            "validated",
            conf,
            f"{h.entity} logs {what} since the onset ({len(shifts)} shifted, {n} lines, levels "
            f'{", ".join(sorted(lead.levels)) or "none"}): "{lead.template[:120]}"',
            [s.evidence for s in shifts[:4]],
        )
