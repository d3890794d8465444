"""Per-entity evidence profiles: what moved on each entity, what its callers say about it.

Pure functions over a `Context`. The hypothesis ranker and the specialists
both read these profiles, so "what counts as a signal" lives in one place.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from rootward.context.anomaly import RESOURCE_FAMILIES, Anomaly
from rootward.context.assemble import Context
from rootward.context.changes import ChangeItem
from rootward.context.log_signals import LogSignal, names_entity
from rootward.context.metric_names import is_headroom
from rootward.context.technologies import families_named, kind_family
from rootward.context.topology import Subgraph

# A change this long before the onset can still be its cause; after the onset it cannot.
CHANGE_HORIZON_S = 6 * 3600
CHANGE_GRACE_AFTER_S = 120
# A failure template must repeat this often after the onset before it can blame another entity.
MIN_BLAME_LINES = 3
# A step this long before the incident's onset did not trigger it.
EARLY_STEP_S = 5 * 60
# Kinds nobody deploys code to here: physical/virtual infrastructure and third parties.
INFRA_KINDS = frozenset(
    {
        "host",
        "node",
        "vm",
        "hypervisor",
        "network",
        "firewall",
        "switch",
        "router",
        "link",
        "storage",
        "disk",
        "nic",
        "external",
        "saas",
        "third_party",
        "third-party",
        "vendor",
    }
)


def strength(score: float, threshold: float = 4.0) -> float:
    """Map a robust z (>= threshold) to 0..1 on a log scale: 4 -> 0.2, ~100 -> 1."""
    if score < threshold:
        return 0.0
    return min(1.0, math.log1p(score / threshold) / math.log1p(25.0))


def is_bad_direction(a: Anomaly) -> bool:
    """Whether the move is the harmful way for its family (success rates and headroom fall, most things rise)."""
    if a.family == "silence":
        return True
    if a.family == "errors" and re.search(r"success|availab|ok", a.metric, re.I):
        return a.direction == "down"
    if a.family == "traffic":
        return True
    if is_headroom(a.metric):
        return a.direction == "down"  # free memory, available disk, idle CPU: what is left shrinks
    return a.direction == "up"


@dataclass
class EntityProfile:
    entity: str
    kind: str
    has_telemetry: bool
    symptoms: list[Anomaly] = field(default_factory=list)  # latency / errors, harmful direction
    resources: list[Anomaly] = field(default_factory=list)  # cpu, memory, disk... harmful direction
    traffic: list[Anomaly] = field(default_factory=list)
    own_logs: list[LogSignal] = field(default_factory=list)  # changed failure templates of the entity
    mentions: list[LogSignal] = field(default_factory=list)  # others' changed failure templates naming it
    changes: list[ChangeItem] = field(default_factory=list)  # its changes shortly before the onset
    onset: int | None = None
    # Where a hole of the log source began that its failure lines may have begun in: its onset from
    # them says only "by then" (`LogSignal.began_unseen`).
    unseen_since: int | None = None
    aliases: tuple[str, ...] = ()  # the host names its map gives it: others' lines name it by these
    alert_faults: frozenset[str] = frozenset()  # mechanisms the alerts firing on it are named for
    # Its spans timed the wait around the calls into it, pooled and per caller, and it did not grow.
    network_clear: bool = False
    # Its tail latency rose while its median held: a share of its requests slow, most not (`tail_latency`).
    tail_only: bool = False
    # A latency of its own rose and turned erratic about its new level (`tail_latency.erratic`).
    erratic: bool = False
    # It reports latency or errors of its own (a series, spans or logs): a store with CPU and memory
    # series only cannot say it was slow; its callers' symptoms are all there is of that (`silent_dependency`).
    reports_symptoms: bool = True

    @property
    def symptom_strength(self) -> float:
        return max((strength(a.score) for a in self.symptoms), default=0.0)

    @property
    def resource_strength(self) -> float:
        return max((strength(a.score) for a in self.resources), default=0.0)

    def timely_resource_strength(
        self, onset: int | None, *, memory_step_share: float = 1.0, families: frozenset[str] | None = None
    ) -> float:
        """Resource strength, discounting steps that began long before the incident.

        A saturated host hurts its guests within a minute or two; a step that
        began many minutes before anything else broke is background, not the
        trigger. Ramps (leaks, filling disks) are expected to start early.
        `memory_step_share`: what a memory step (not a climb, not kills at a limit)
        counts for, where the question is whether it starved something else.
        `families`: only the resources of these families (all when None).
        """
        best = 0.0
        for a in self.resources:
            if families is not None and a.family not in families:
                continue
            w = strength(a.score)
            if onset is not None and a.shape != "ramp" and a.onset < onset - EARLY_STEP_S:
                w *= 0.4
            if a.family == "memory" and a.shape in ("step", "spike"):
                w *= memory_step_share
            best = max(best, w)
        return best

    @property
    def log_strength(self) -> float:
        n = sum(s.onset_count for s in self.own_logs)
        return min(1.0, math.log1p(n) / math.log1p(50)) if n else 0.0

    @property
    def mention_strength(self) -> float:
        n = sum(s.onset_count for s in self.mentions)
        return min(1.0, math.log1p(n) / math.log1p(50)) if n else 0.0

    @property
    def deployable(self) -> bool:
        """Hosts, VMs, network gear and third parties are not deployed to by us."""
        return self.kind.lower() not in INFRA_KINDS

    @property
    def abnormal(self) -> bool:
        return bool(self.symptoms or self.resources or self.own_logs)

    def families(self) -> set[str]:
        return {a.family for a in self.resources + self.symptoms + self.traffic}


# In a name-resolution failure the name is what could not be resolved, not what failed.
NAME_RESOLUTION = re.compile(
    r"nxdomain|no such host|name resolution|could not (be )?resolve|host not found|servfail|name or service not known|"
    r"getaddrinfo|"
    r"eai_again|unknownhost|lookup \S+ on",
    re.I,
)


def mentions(signal: LogSignal, entity: str, aliases: tuple[str, ...] = ()) -> bool:
    """Whether a log signal names the entity as the thing that failed (template or representative line).

    Blame needs repetition: a caller that cannot reach something says so on every
    request, while one or two forged lines cannot point the investigation elsewhere.
    A name inside a path is a route or a file, not a service (`log_signals.names_entity`).
    """
    if signal.onset_count < MIN_BLAME_LINES or _names_a_lookup(signal.template, signal.example):
        return False
    return names_entity(signal, entity, aliases)


@functools.lru_cache(maxsize=8192)
def _names_a_lookup(template: str, example: str) -> bool:
    """A name-resolution failure (memoised: `mentions` is asked of each signal once per entity)."""
    return NAME_RESOLUTION.search(template) is not None or NAME_RESOLUTION.search(example) is not None


def _named_by_technology(
    signal: LogSignal, topology: Subgraph, profiles: dict[str, EntityProfile]
) -> EntityProfile | None:
    """The one dependency of the line's service of the kind its technology names, if there is one.

    `redis upstream:6379: connection reset by peer` names no host, but its service calls one
    cache: that one (`context.technologies`). Two caches, or none, and the line names nobody.
    Blame needs repetition here as with names (`mentions`).
    """
    if signal.onset_count < MIN_BLAME_LINES:
        return None
    if _names_a_lookup(signal.template, signal.example):
        return None
    families = sorted(families_named(signal.template) | families_named(signal.example))
    if not families:
        return None
    deps = [d for d in topology.dependencies(signal.service) if d in profiles]
    for family in families:
        of_kind = [d for d in deps if kind_family(profiles[d].kind) == family]
        if len(of_kind) == 1:
            return profiles[of_kind[0]]
    return None


def entity_profiles(ctx: Context) -> dict[str, EntityProfile]:
    onset = int((ctx.window.onset or ctx.window.fired_at).timestamp())
    reporting = {s.service for s in ctx.series if s.family in ("latency", "errors")}
    reporting |= {e for e, kinds in ctx.telemetry.items() if {"traces", "logs"} & set(kinds)}
    profiles = {
        e: EntityProfile(
            entity=e,
            kind=ctx.topology.kinds.get(e, "unknown"),
            has_telemetry=bool(ctx.telemetry.get(e)),
            aliases=ctx.topology.aliases.get(e, ()),
            reports_symptoms=e in reporting,
        )
        for e in ctx.topology.entities
    }
    for a in ctx.anomalies:
        p = profiles.get(a.service)
        if p is None or not is_bad_direction(a):
            continue
        if a.family in RESOURCE_FAMILIES:
            p.resources.append(a)
        elif a.family in ("latency", "errors"):
            p.symptoms.append(a)
        elif a.family == "traffic":
            p.traffic.append(a)
        p.onset = a.onset if p.onset is None else min(p.onset, a.onset)
    changed_failures = [s for s in ctx.logs if s.changed and s.is_failure]
    for s in changed_failures:
        p = profiles.get(s.service)
        if p is not None:
            p.own_logs.append(s)
            if s.first_ts is not None:
                first = int(s.first_ts.timestamp())
                p.onset = first if p.onset is None else min(p.onset, first)
            if s.began_unseen is not None:
                hole = int(s.began_unseen.timestamp())
                p.unseen_since = hole if p.unseen_since is None else min(p.unseen_since, hole)
        for other in profiles.values():
            if other.entity != s.service and mentions(s, other.entity, other.aliases):
                other.mentions.append(s)
        named = _named_by_technology(s, ctx.topology, profiles)
        if named is not None and s not in named.mentions:
            named.mentions.append(s)
    for c in ctx.changes:
        p = profiles.get(c.service)
        if p is not None and -CHANGE_GRACE_AFTER_S <= c.seconds_before_onset <= CHANGE_HORIZON_S:
            p.changes.append(c)
    del onset
    return profiles
