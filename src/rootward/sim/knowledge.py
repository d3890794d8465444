"""The knowledge a team would have written down before the incident.

Runbooks for the alerts in the bundle, the team's notes (`bits/<service>.md`)
for a few services and now and then an old postmortem. Some notes help (the
noisy service is known to be noisy), some are stale or beside the point, as
in real wikis; none of them names the answer.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rootward.sim.scenario import Scenario

_RUNBOOK_STEPS = {
    "HighLatencyP99": (
        "Open the latency panel and find which downstream call got slow first.",
        "Compare the dependencies' p99 in the same window; the one that got slow earliest is the place to look.",
        "Check for deploys and config changes in the last hour.",
        "Check the host the pods run on (CPU steal, disk, network).",
    ),
    "HighErrorRate": (
        "Group the errors by message; one new message usually dominates.",
        "Errors naming a dependency mean that dependency may be the cause; check it before rolling back.",
        "If a deploy went out shortly before, compare error messages with the version in the log lines.",
    ),
    "TargetDown": (
        "Check whether the process is running and whether its host is up.",
        "Callers logging 'connection refused' confirm the target is down rather than the scrape.",
    ),
    "NodeFilesystemAlmostFull": (
        "Find the largest directories with `du -xh --max-depth=2 /var | sort -h`.",
        "Rotate or compress old logs; never delete database files by hand.",
    ),
    "KubePodCrashLooping": (
        "`kubectl logs --previous` shows why the last start failed.",
        "A crash right after start with the same message every time is not a resource problem.",
    ),
}
_GENERIC_STEPS = (
    "Confirm the alert against the dashboard.",
    "Check what changed recently and what depends on the alerting component.",
)


def runbook(alertname: str, service: str, updated: str = "2026-02-01") -> str:
    steps = _RUNBOOK_STEPS.get(alertname, _GENERIC_STEPS)
    body = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    return (
        f"---\nservice: {service}\nmonitors: [{alertname}]\nupdated: {updated}\n---\n"
        f"# {alertname}\n\nWhat to do when {alertname} fires.\n\n{body}\n"
    )


def bits(sc: Scenario, name: str, rng: random.Random) -> str:
    ent = sc.topology.get(name)
    lines = [f"# {name} notes", ""]
    if name == sc.noisy_service:
        lines.append(
            f"- {name} logs 'failed to refresh feature flags' and 'metrics push to gateway failed' all day; "
            "these errors are known and harmless."
        )
    if ent.depends_on:
        lines.append(f"- Calls {', '.join(ent.depends_on)}.")
    if ent.runs_on:
        lines.append(f"- Runs on {ent.runs_on[0]}; it shares the machine with other workloads.")
    lines.append(
        rng.choice(
            (
                "- Nightly batch at 02:00 makes p99 noisy for ~10 minutes; do not page for that.",
                "- Owner: team-core. Escalate via #core-oncall.",
                "- Autoscaling is capped; a sudden traffic rise can outpace it.",
                "- Uses a shared DB pool; pool settings live in the service's config map.",
            )
        )
    )
    return "\n".join(lines) + "\n"


def postmortem(sc: Scenario, rng: random.Random) -> str:
    ent = rng.choice([e for e in sc.topology.entities if e.family != "external"])
    what = rng.choice(
        (
            ("disk filled up with debug logs", "disk_full"),
            ("a deploy introduced a null pointer", "deploy_regression"),
            ("the DB pool was too small for Black Friday", "connection_pool_exhaustion"),
        )
    )
    when = datetime.fromtimestamp(sc.onset - 90 * 86400, tz=UTC)
    return (
        f"---\nservice: {ent.name}\nupdated: {when:%Y-%m-%d}\n---\n# Postmortem: {ent.name} outage\n\n"
        f"Impact: 40 minutes of elevated errors.\n\nRoot cause: {what[0]}.\n\n"
        "Action items: add an alert, document the fix in the runbook.\n"
    )


def knowledge_for(sc: Scenario, rng: random.Random) -> dict[str, str]:
    docs: dict[str, str] = {}
    for alert in sc.alerts[:2]:
        slug = alert.name.lower()
        # Mostly maintained runbooks, now and then a stale one (written more than a year ago).
        age_days = rng.randint(400, 700) if rng.random() < 0.15 else rng.randint(10, 200)
        updated = datetime.fromtimestamp(sc.onset - age_days * 86400, tz=UTC).strftime("%Y-%m-%d")
        docs[f"runbooks/{slug}.md"] = runbook(alert.name, alert.entity, updated)
    pool = [e.name for e in sc.topology.entities if e.family == "service"]
    chosen = set(rng.sample(pool, k=min(len(pool), rng.randint(1, 3))))
    if sc.noisy_service and rng.random() < 0.6:
        chosen.add(sc.noisy_service)
    for name in sorted(chosen):
        docs[f"bits/{name}.md"] = bits(sc, name, rng)
    if rng.random() < 0.25:
        docs["postmortems/2025-11-20-outage.md"] = postmortem(sc, rng)
    return docs
