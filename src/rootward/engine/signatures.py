"""Fault-type signatures: which fault types an entity's evidence points at.

Each fault type of the closed vocabulary has a signature over three kinds of
evidence: log templates (generic technology words: "no space left", "x509",
"NXDOMAIN"...), which metric families moved, and changes just before the
onset. A specific mechanism (pool, disk, DNS...) outranks the generic
"something changed" types, which remain as alternatives.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rootward.context.anomaly import Anomaly
from rootward.context.changes import ChangeItem
from rootward.context.log_signals import LogSignal
from rootward.domain.evidence import EvidenceRef
from rootward.engine.signals import CHANGE_GRACE_AFTER_S, EARLY_STEP_S, EntityProfile, strength
from rootward.engine.trace_attribution import FaultHint

# Locks named, and a slow query: the database was slow, which locks, a pinned CPU, a cold cache or a
# missing index all make. A slow query alone reads as lock contention at SLOW_QUERY_SHARE, under what
# names a mechanism (NAMED_MECHANISM): the spans' or a monitor's reading of the same slowness comes first.
_LOCK_WORDS = (
    r"deadlock|lock wait|lock timeout|could not obtain lock|locknotavailable|waiting for (table )?lock|row lock"
)
_SLOW_QUERY = r"slow query"
LOCKS_NAMED = re.compile(_LOCK_WORDS, re.I)
SLOW_QUERY_SHARE = 0.4

LOG_SIGNATURES: dict[str, re.Pattern[str]] = {
    "connection_pool_exhaustion": re.compile(
        # "pool" alone is ambiguous (a ZFS or storage pool fills up; that is a disk).
        r"connection pool|pool (is )?exhausted|pool is (probably )?full|"
        r"(db|database|connection|thread|worker|http) ?pool|"
        r"connection is not available|acquir\w* (a )?connection|too many (db |database )?connections|"
        r"max_?connections|remaining connection slots|waiting for (a|an idle) connection|pool timeout",
        re.I,
    ),
    "disk_full": re.compile(
        r"no space|enospc|disk (is )?full|quota exceeded|read-only file ?system|inodes?\b|diskpressure|"
        r"ephemeral-storage",
        re.I,
    ),
    "oom_kill": re.compile(r"oom ?kill|out of memory|killed process|memory cgroup|exit code 137|oomkilled", re.I),
    "memory_leak": re.compile(r"outofmemoryerror|heap|gc overhead|allocation fail|memory pressure|high memory", re.I),
    "crash_loop": re.compile(
        r"crashloop|back-?off restarting|exited with (code|status)|restarting (container|process)|segfault|"
        r"segmentation fault|startup probe failed|liveness probe failed",
        re.I,
    ),
    "certificate_expiry": re.compile(
        r"x509|certificate|(tls|ssl) ?handshake|pkix|certpath|cert_?verify|cert(ificate)? (has )?expired", re.I
    ),
    "dns_failure": re.compile(
        r"nxdomain|no such host|name resolution|could not (be )?resolve|host not found|resolv|\bdns\b|servfail|"
        r"name or service not known|"
        r"getaddrinfo|eai_again|unknownhost|lookup \S+ on",
        re.I,
    ),
    "db_lock_contention": re.compile(rf"{_LOCK_WORDS}|{_SLOW_QUERY}", re.I),
    "dependency_down": re.compile(
        r"connection refused|econnrefused|\brefused\b|no route to host|unreachable|circuit breaker|"
        r"service unavailable|\b503\b|no healthy upstream|upstream connect error|not responding|(?<!link )\bis down\b|"
        r"readiness probe failed|nodenotready|node is not ready",
        re.I,
    ),
    # A network link going down and up ("NIC Link is Down", "link status definitely down", a
    # switch port's "changed state to down") drops what crosses it: a network fault, not a process down.
    "packet_loss": re.compile(
        r"packet loss|retransmi|reset by peer|connection reset|broken pipe|checksum|"
        r"\blink (is |status \w+ )?down|link flap|carrier (lost|off)|changed state to down",
        re.I,
    ),
    "traffic_surge": re.compile(
        r"rate limit|too many requests|\b429\b|queue (is )?full|overload|backpressure|shedding", re.I
    ),
    "cpu_saturation": re.compile(r"throttl|cpu|high load|run queue", re.I),
    "config_error": re.compile(
        r"config|invalid (value|setting|option)|missing (key|setting|env)|unknown (option|flag|key)|feature flag|"
        r"parse error|authentication failed|invalid credentials|permission denied|unauthori[sz]ed|access denied|"
        r"forbidden|\b40[13]\b|exceeded quota|createcontainerconfigerror|(secret|configmap) \S+ not found",
        re.I,
    ),
    "deploy_regression": re.compile(
        r"exception|nullpointer|typeerror|attributeerror|undefined|panic|stack ?trace|traceback|"
        r"internal server error|\b500\b|unhandled|imagepullbackoff|errimagepull|failed to pull image|"
        r"manifest unknown",
        re.I,
    ),
    "network_latency": re.compile(r"timed? ?out|deadline exceeded|slow|latency", re.I),
}

# Mechanisms name what broke; "deploy_regression"/"config_error" name what changed; latency is the weakest.
SPECIFICITY: dict[str, float] = {
    "network_latency": 0.35,
    "deploy_regression": 0.6,
    "config_error": 0.6,
    "cpu_saturation": 0.9,
}

METRIC_SIGNATURES: dict[str, str] = {
    "cpu": "cpu_saturation",
    "disk": "disk_full",
    "packet_loss": "packet_loss",
    "connections": "connection_pool_exhaustion",
    "locks": "db_lock_contention",
    "memory": "memory_leak",
    "restarts": "crash_loop",
    "network": "network_latency",
    "silence": "dependency_down",
}


@dataclass
class Signature:
    fault_type: str
    score: float
    evidence: list[EvidenceRef] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def _log_weight(signals: list[LogSignal]) -> float:
    n = sum(s.onset_count for s in signals)
    return min(1.0, 0.35 + math.log1p(n) / math.log1p(60)) if n else 0.0


# The name of an object printed with its fields, `HTTPConnectionPool(host='api', port=80)`: it says
# where something happened, not what (urllib3 puts its pool's in front of every timeout and refusal).
_OBJECT_NAME = re.compile(r"\b[A-Za-z_][\w.]*(?=\(\s*\w+\s*=)")


# The word that says something was raised, not what: `SocketTimeoutException`, `requests.exceptions.ReadTimeout`.
_RAISED = re.compile(r"exceptions?", re.I)


def faults_named(template: str) -> list[str]:
    """The faults whose words the template says, object names printed with their fields left out.

    An exception that says what happened is what happened: `java.net.SocketTimeoutException:
    Read timed out` is a timeout and `ConnectException: Connection refused` a callee not
    answering, not a code fault, which "exception" alone would read it as; one that names
    a bug of its own (`NullPointerException`, a 500, `unhandled`) still is.
    """
    return list(_faults_named(template))


# The ranking asks this of the same few hundred templates for every pair of entities it weighs
# (tens of thousands of regex scans on a 40-service map); the answer depends on the text alone.
@functools.lru_cache(maxsize=8192)
def _faults_named(template: str) -> tuple[str, ...]:
    text = _OBJECT_NAME.sub("", template)
    named = [fault for fault, pattern in LOG_SIGNATURES.items() if pattern.search(text)]
    code = LOG_SIGNATURES["deploy_regression"]
    if "deploy_regression" in named and len(named) > 1 and not code.search(_RAISED.sub(" ", text)):
        named.remove("deploy_regression")
    return tuple(named)


def log_matches(signals: list[LogSignal]) -> dict[str, list[LogSignal]]:
    out: dict[str, list[LogSignal]] = {}
    for s in signals:
        for fault in faults_named(s.template):
            out.setdefault(fault, []).append(s)
    return out


def log_readings(signals: list[LogSignal]) -> dict[str, list[LogSignal]]:
    """Each line read as the most specific faults it names, not also as every vaguer word in it.

    "slow query ... lock wait" says what was slow; "TLS handshake timeout" what timed out: the
    generic word ("slow", "timed out") is the mechanism's symptom, not a second mechanism.
    """
    out: dict[str, list[LogSignal]] = {}
    for s in signals:
        named = faults_named(s.template)
        top = max((SPECIFICITY.get(f, 1.0) for f in named), default=0.0)
        for fault in named:
            if SPECIFICITY.get(fault, 1.0) == top:
                out.setdefault(fault, []).append(s)
    return out


# What a step in memory counts for: it follows load (caches, buffers, a bigger batch); a leak climbs,
# and a process at its limit is killed.
LOAD_FOLLOWING_MEMORY = 0.3
# A resource that started moving this long after the incident's onset is a consequence, not a cause.
LATE_S = 120
# A climb that began this long before the onset was building up to it (a leak, a filling disk).
LONG_RAMP_S = 10 * 60
METRIC_SPECIFICITY: dict[str, float] = {"cpu_saturation": 0.9}
# A change this close before the onset, at an entity failing on its own, is the prime suspect.
FRESH_CHANGE_S = 15 * 60
# Restarts this close to a deploy of the same entity are its rollout.
ROLLOUT_S = 10 * 60
# A request rate at least this many times its baseline is a surge in its own right; a smaller rise
# (a daily swing, a partner's batch) that exhausted a resource leaves the exhausted limit the finding.
DOUBLED = 2.0
# A request rate this many times its baseline (or more) is a surge at all.
SURGE_RATIO = 1.5
# Weight left to a CPU rise that slowed nothing while errors rose.
UNSLOWED_CPU = 0.5
# Weight left to the crash-loop reading of a restart counter that rose by one: a loop restarts
# again and again (the back-off retries within minutes); one restart is a rollout, a kill, a probe.
SINGLE_RESTART = 0.4
# Entity kinds of the spec whose failure has one typical form.
KIND_HINTS: dict[str, str] = {"dns": "dns_failure"}
# Weight of a mechanism that the name of an alert firing on the entity states (`ProbeSSLCertExpired`):
# what its monitor saw, but a name, not a measurement (as a kind's typical failure).
ALERT_NAMED = 0.5
# Where a CamelCase alert name breaks into words: `ProbeSSLCertExpired` -> `Probe SSL Cert Expired`.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[_\-.:]+")


class _Signatures:
    """Accumulates fault-type signatures: each piece of evidence adds score, cites and a reason."""

    def __init__(self) -> None:
        self.by_fault: dict[str, Signature] = {}

    def add(self, fault: str, score: float, ev: list[EvidenceRef], reason: str) -> None:
        s = self.by_fault.setdefault(fault, Signature(fault, 0.0))
        s.score += score
        s.evidence += [e for e in ev if e not in s.evidence]
        s.reasons.append(reason)


def _log_signatures(sig: _Signatures, profile: EntityProfile, borrowed: list[LogSignal]) -> None:
    """What its own log templates, and others' templates about it, say the fault is."""
    own_voice = bool(profile.own_logs or profile.resources)
    for fault, matched in log_readings(profile.own_logs).items():
        sig.add(
            fault,
            _log_weight(matched) * SPECIFICITY.get(fault, 1.0) * _named_share(fault, matched),
            [m.evidence for m in matched[:3]],
            f"its log templates match {fault}",
        )
    for fault, matched in log_readings(borrowed).items():
        if fault == "dependency_down" and profile.own_logs:
            continue  # an entity that is logging its own failures is not simply "down"
        weight = _log_weight(matched) * SPECIFICITY.get(fault, 1.0) * (0.4 if own_voice else 1.0)
        weight *= _named_share(fault, matched)
        sig.add(fault, weight, [m.evidence for m in matched[:3]], f"others' log templates about it match {fault}")


def _named_share(fault: str, matched: list[LogSignal]) -> float:
    """How much of a reading the lines name: slow queries with no lock named say "slow", not "locks"."""
    if fault == "db_lock_contention" and not any(LOCKS_NAMED.search(m.template) for m in matched):
        return SLOW_QUERY_SHARE
    return 1.0


def _alert_signatures(sig: _Signatures, alerts: Sequence[tuple[str, EvidenceRef]]) -> bool:
    """The mechanisms that alerts firing on the entity are named for (`KubePodCrashLooping`, `DNSErrorsHigh`).

    Read with the log vocabulary, in words and run together (`crash looping`, `crashlooping`); only
    mechanisms count: a name saying latency, errors or a change (`HighLatencyP99`) is a symptom's.
    Returns whether any alert named one.
    """
    named = False
    for name, ref in alerts:
        for fault in alert_faults(name):
            sig.add(fault, ALERT_NAMED, [ref], f"the alert that fired on it is named for it ({name})")
            named = True
    return named


def alert_faults(name: str) -> list[str]:
    """The mechanisms an alert's name states (`ProbeSSLCertExpired` -> certificate_expiry), if any."""
    words = _CAMEL.sub(" ", name).lower()
    return [
        fault
        for fault, pattern in LOG_SIGNATURES.items()
        if SPECIFICITY.get(fault, 1.0) >= 0.9 and (pattern.search(words) or pattern.search(words.replace(" ", "")))
    ]


def _one_restart(a: Anomaly) -> bool:
    """A restart counter that counted exactly one restart since the onset (a rate or a gauge is not read)."""
    counts = a.baseline.is_integer() and a.peak.is_integer()
    return counts and a.direction == "up" and a.peak - a.baseline == 1


def _metric_signatures(
    sig: _Signatures,
    profile: EntityProfile,
    onset: int | None,
    oom_logged: bool,
    surge: list[Anomaly],
    *,
    unslowed_errors: bool = False,
) -> bool:
    """What its resource series say; returns whether a resource is a strong enough cause on its own.

    `unslowed_errors`: errors rose at or around the entity while its watched latency did not. CPU
    saturation shows as slower work; a CPU rise beside errors and unchanged latency is the cost
    of the failing path (exceptions, retries), not the cause.
    """
    fams: dict[str, Anomaly] = {}
    for a in sorted(profile.resources, key=lambda a: -a.score):
        fams.setdefault(a.family, a)
    restarts = fams.get("restarts")
    resource_cause = False
    for family, a in fams.items():
        mapped = METRIC_SIGNATURES.get(family)
        if mapped is None:
            continue
        fault = mapped
        w = 0.4 + 0.6 * strength(a.score)
        why = f"{a.metric}{' per ' + a.derived if a.derived else ''} moved {a.direction} ({a.shape})"
        long_ramp = a.shape == "ramp" and onset is not None and a.onset <= onset - LONG_RAMP_S
        if onset is not None and a.onset > onset + LATE_S:
            w *= 0.4
            why += " after the onset"
        elif onset is not None and a.shape != "ramp" and a.onset < onset - EARLY_STEP_S:
            w *= 0.4  # as in its own evidence (`EntityProfile.timely_resource_strength`): background
            why += f", {(onset - a.onset) // 60} minutes before the onset"
        if family == "memory":
            if restarts is not None or oom_logged or a.shape == "resets":
                said = (
                    "memory rose and the process was killed or restarted"
                    if restarts is not None or oom_logged
                    else "memory climbed and fell back to where it started, again and again: killed at a limit"
                )
                sig.add("oom_kill", w, [a.evidence] + ([restarts.evidence] if restarts else []), said)
                w *= 0.9 if long_ramp else 0.4
            elif a.shape != "ramp":
                w *= LOAD_FOLLOWING_MEMORY
        if family == "restarts" and ("memory" in fams or oom_logged):
            continue
        if family == "restarts" and any(
            c.kind == "deploy" and abs(a.onset - int(c.time.timestamp())) <= ROLLOUT_S for c in profile.changes
        ):
            continue  # a restart when a deploy rolls out is the rollout, not a crash
        if family == "restarts" and _one_restart(a):
            w *= SINGLE_RESTART
            why += ", but only once: a crash loop restarts again and again"
        if any(x.ratio >= DOUBLED for x in surge) and fault in ("cpu_saturation", "connection_pool_exhaustion"):
            w *= 0.6  # saturation under a surge is the surge's doing; a limit a swing of +50 % exhausts is the limit
        if unslowed_errors and fault == "cpu_saturation":
            w *= UNSLOWED_CPU
            why += ", but its latency did not rise while errors did"
        w *= METRIC_SPECIFICITY.get(fault, 1.0)
        resource_cause = resource_cause or w >= 0.45
        sig.add(fault, w, [a.evidence], why)
    return resource_cause


def lead_of(c: ChangeItem) -> int:
    """How long before the onset a change came, as far as its evidence can date it.

    A version read from the logs was deployed no later than the first line stating it, which
    may come a while after the rollout (when the service first logs something that carries
    its version, often the failure itself). First seen within CHANGE_GRACE_AFTER_S after the
    onset, it may have come before it: it reads as at the onset. A recorded change is dated.
    """
    if c.from_logs and -CHANGE_GRACE_AFTER_S <= c.seconds_before_onset < 0:
        return 0
    return c.seconds_before_onset


def _traffic_and_change_signatures(sig: _Signatures, profile: EntityProfile, surge: list[Anomaly]) -> None:
    """A request-rate surge, and the deploys and config changes shortly before the onset."""
    if surge:
        top = max(surge, key=lambda a: a.ratio)
        sig.add(
            "traffic_surge",
            0.5 + 0.5 * strength(top.score) + (0.3 if top.ratio >= DOUBLED else 0.0),
            [top.evidence],
            f"request rate rose x{top.ratio:.1f}",
        )
    for c in profile.changes:
        lead = lead_of(c)
        near = max(0.0, 1.0 - max(0, lead) / (2 * 3600))
        fresh = 0 <= lead <= FRESH_CHANGE_S and bool(profile.own_logs or profile.symptoms)
        if c.kind == "deploy":
            # A deploy minutes before this entity's own failures began: precedence and locality.
            sig.add(
                "deploy_regression",
                0.35 + 0.45 * near + (0.5 if fresh else 0.0),
                [c.evidence],
                f"deploy {c.id} before the onset"
                if c.seconds_before_onset >= 0
                else f"deploy {c.id}, first logged {-c.seconds_before_onset} s after the onset",
            )
        elif c.kind in ("config", "feature_flag"):
            sig.add(
                "config_error",
                0.35 + 0.45 * near + (0.5 if fresh else 0.0),
                [c.evidence],
                f"{c.kind} change {c.id} before the onset",
            )


# A latency climb with no resource behind it reads first as a leak whose memory is not watched (a process
# slowing as its heap grows; a delay steps), at this share of the delay reading, which stays second.
CLIMB_SHARE = 1.2


# Why latency with no cause of its own reads as lost packets: the tail alone moved, or the series turned erratic.
_LOSSY = {
    True: ", its tail only: its median held, as when lost packets cost some requests a retransmission",
    False: ", and it turned erratic about its new level: a delay moves every request alike, lost packets"
    " cost some requests and seconds a retransmission and not others",
}


def _symptom_signatures(
    sig: _Signatures,
    profile: EntityProfile,
    reach_errors: list[Anomaly],
    *,
    mechanism_named: bool,
    resource_cause: bool,
) -> None:
    """Errors read as a code fault, latency without a resource cause as delay on the path (packet loss
    where only its tail slowed, `EntityProfile.tail_only`), unless its logs or its alerts name a
    mechanism. Where its spans show the wait around the calls into it unchanged
    (`EntityProfile.network_clear`), the latency is its own work taking longer with no resource behind
    it: its code; unless its own lines say what it waited on timed out (a disk, a callee of its own)."""
    own_errors = [a for a in profile.symptoms if a.family == "errors"]
    errors = sorted(own_errors + reach_errors, key=lambda a: -a.score)
    latency = [a for a in profile.symptoms if a.family == "latency"]
    if errors and not mechanism_named and profile.deployable:
        w = 0.3 + 0.3 * strength(errors[0].score)
        sig.add(
            "deploy_regression",
            w * (0.5 if resource_cause else 1.0),
            [errors[0].evidence],
            "errors rose (a code fault shows as errors; saturation and delay as latency)",
        )
    if latency and not resource_cause and not own_errors and not mechanism_named:
        network_clear = profile.network_clear and "network_latency" not in log_matches(profile.own_logs)
        code = network_clear and profile.deployable
        lossy = profile.tail_only or profile.erratic
        sig.add(
            "deploy_regression" if code else "packet_loss" if lossy else "network_latency",
            0.3 * (0.5 + strength(latency[0].score)),
            [latency[0].evidence],
            "latency rose with no resource cause and no errors of its own"
            + (", and its spans show no wait outside its own work" if network_clear else "")
            + ("" if code or not lossy else _LOSSY[profile.tail_only]),
        )
        if latency[0].shape == "ramp" and not code and not lossy:
            sig.add(
                "memory_leak",
                0.3 * (0.5 + strength(latency[0].score)) * CLIMB_SHARE,
                [latency[0].evidence],
                "a leak: its latency climbed steadily with no resource of its own to show it (a delay steps)",
            )


# A span change says where, and what kind of thing changed: its own work, the wait around it,
# errors it raised, calls nobody answered. Each kind is what several mechanisms look like in a
# trace; when the entity's own logs or resource series name one of them, the trace confirms
# that mechanism instead of naming its own.
TRACE_CONSISTENT: dict[str, frozenset[str]] = {
    "cpu_saturation": frozenset(
        {
            "cpu_saturation",
            "memory_leak",
            "oom_kill",
            "db_lock_contention",
            "connection_pool_exhaustion",
            "disk_full",
            "traffic_surge",
            "config_error",
        }
    ),
    "network_latency": frozenset(
        {"network_latency", "packet_loss", "cpu_saturation", "connection_pool_exhaustion", "db_lock_contention"}
    ),
    "deploy_regression": frozenset(
        {"deploy_regression", "config_error", "certificate_expiry", "dns_failure", "disk_full", "oom_kill"}
        | {"crash_loop"}
    ),
    "dependency_down": frozenset({"dependency_down", "crash_loop", "oom_kill", "dns_failure", "certificate_expiry"}),
}
# Share of a CPU reading a costlier new version keeps where no change history can rule it out.
COSTLIER_CODE = 0.5
# A signature from the entity's own logs or resources at least this strong names a mechanism.
NAMED_MECHANISM = 0.45


def _add_trace_hint(acc: _Signatures, hint: FaultHint, named: dict[str, float]) -> None:
    consistent = [f for f in named if f in TRACE_CONSISTENT.get(hint.fault_type, frozenset({hint.fault_type}))]
    if not consistent or hint.fault_type in consistent:
        acc.add(hint.fault_type, hint.score, list(hint.evidence), f"traces: {hint.reason}")
        return
    fault = max(consistent, key=lambda f: (named[f], f))
    acc.add(fault, hint.score, list(hint.evidence), f"traces agree: {hint.reason}")


def _costlier_code(acc: _Signatures, profile: EntityProfile) -> None:
    """Its own work costs more: saturation, or a new version's costlier code path (an N+1 query,
    exceptions built by the thousand). With no change history to rule the second out, it stays a
    reading of the same CPU rise. The spans' own-work reading already carries its own alternative.
    """
    cpu = acc.by_fault.get("cpu_saturation")
    if cpu is None or not profile.deployable or not any(a.family == "cpu" for a in profile.resources):
        return
    floor = cpu.score * COSTLIER_CODE
    code = acc.by_fault.get("deploy_regression")
    have = code.score if code is not None else 0.0
    if have < floor:
        acc.add("deploy_regression", floor - have, cpu.evidence[:2], "or a new version's costlier code path")


# What a new version's code can cost at the entity itself: the mechanisms a bad deploy shows as.
COSTLIER_MECHANISMS = ("cpu_saturation", "db_lock_contention", "memory_leak", "connection_pool_exhaustion")
# How far a fresh deploy's reading is put above the mechanism it explains.
DEPLOY_FIRST_MARGIN = 0.05
# A new version strains a mechanism once it serves the load (rolled out, caches cold, the busy hour):
# its own deploy this long before the rise is still the first suspect for it.
COSTLIER_DEPLOY_S = 30 * 60


def _fresh_deploy_first(acc: _Signatures, profile: EntityProfile, surge: list[Anomaly]) -> None:
    """A CPU, lock or memory rise that began minutes after the entity's own deploy is that deploy's cost.

    An N+1 query, a lock taken per row, a cache that never evicts: a new version
    shows as the mechanism it strains, so "CPU saturation" is true but not the
    cause, and scaling up would hide a rollback's worth of fix. The deploy leads
    when it came within COSTLIER_DEPLOY_S before the onset and no traffic surge
    explains the load; the mechanism stays the second reading, with its evidence.
    """
    fresh = [c for c in profile.changes if c.kind == "deploy" and 0 <= lead_of(c) <= COSTLIER_DEPLOY_S]
    code = acc.by_fault.get("deploy_regression")
    if surge or not fresh or code is None:
        return
    lead = max((acc.by_fault[f] for f in COSTLIER_MECHANISMS if f in acc.by_fault), key=lambda x: x.score, default=None)
    if lead is None or lead.score < code.score:
        return
    deploy, mechanism = fresh[0], lead.fault_type.replace("_", " ")
    if deploy.seconds_before_onset < 0:  # read from the logs, first stated just after the onset
        late = -deploy.seconds_before_onset
        when = f"its new version, deployed by then, was first logged {late} s into its {mechanism}"
    else:
        when = f"its {mechanism} began {deploy.seconds_before_onset / 60:.0f} min after its own deploy"
    acc.add(
        "deploy_regression",
        lead.score - code.score + DEPLOY_FIRST_MARGIN,
        [deploy.evidence],
        f"{when}: the new version's cost",
    )


def classify(
    profile: EntityProfile,
    borrowed: list[LogSignal] | None = None,
    *,
    onset: int | None = None,
    reach_errors: list[Anomaly] | None = None,
    changes_recorded: bool = False,
    trace: Sequence[FaultHint] = (),
    latency_watched: bool = False,
    alerts: Sequence[tuple[str, EvidenceRef]] = (),
) -> list[Signature]:
    """Fault types for a fault *at* this entity, best first, each with its evidence.

    `borrowed` are log signals from other entities that point at this one
    (callers naming it, or dependents sharing a symptom): the main evidence a
    dependency without telemetry has, and weaker when the entity speaks for
    itself. `reach_errors` are error-rate rises of its callers, standing in for
    an error series the entity lacks: a code fault shows as errors, while
    saturation and delay show as latency. `changes_recorded` says whether the
    change history of the scope holds anything at all: when it does and shows no
    deploy of this entity, errors alone are weak evidence of a bad deploy; when it
    is empty (nothing records deploys), errors are all we have. `trace` are the
    fault types the span change attributed to this entity points at
    (`trace_attribution`). `latency_watched` says the entity has a latency
    series of its own, so that latency which did not rise is known not to have. `alerts` are the
    (name, cite) of the alerts firing on the entity, whose names may state a mechanism.
    """
    acc = _Signatures()
    own_matches = log_matches(profile.own_logs)
    _log_signatures(acc, profile, borrowed or [])
    mechanism_named = any(SPECIFICITY.get(f, 1.0) >= 0.9 for f in own_matches)
    # A surge that came after the entity's own symptoms is their consequence (retries, failover), not their cause.
    first_symptom = min((a.onset for a in profile.symptoms), default=None)
    surge = [
        a
        for a in profile.traffic
        if a.direction == "up"
        and a.ratio >= SURGE_RATIO
        and (first_symptom is None or a.onset <= first_symptom + LATE_S)
    ]
    errored = bool(reach_errors) or any(a.family == "errors" for a in profile.symptoms)
    unslowed = latency_watched and errored and not any(a.family == "latency" for a in profile.symptoms)
    resource_cause = _metric_signatures(acc, profile, onset, "oom_kill" in own_matches, surge, unslowed_errors=unslowed)
    _traffic_and_change_signatures(acc, profile, surge)
    # A mechanism its monitor is named for speaks as one its logs name: the symptoms' readings give way.
    mechanism_named = _alert_signatures(acc, alerts) or mechanism_named
    hinted = KIND_HINTS.get(profile.kind.lower())
    if hinted and (profile.abnormal or borrowed):
        # So does the one failure its kind has: a resolver's errors are names not resolving, not its code.
        acc.add(hinted, 0.5, [a.evidence for a in profile.symptoms[:1]], f"a {profile.kind} failing fails this way")
        mechanism_named = True
    # What its own logs and resource series name, before the weaker readings of symptoms.
    named = {f: s.score for f, s in acc.by_fault.items() if s.score >= NAMED_MECHANISM}
    _symptom_signatures(
        acc, profile, list(reach_errors or []), mechanism_named=mechanism_named, resource_cause=resource_cause
    )
    for hint in trace:
        _add_trace_hint(acc, hint, named)
    if not changes_recorded:
        _costlier_code(acc, profile)
    _fresh_deploy_first(acc, profile, surge)
    sig = acc.by_fault
    if changes_recorded and "deploy_regression" in sig and not any(c.kind == "deploy" for c in profile.changes):
        # "A new version introduced it" needs a new version: the change log has deploys, none of this entity.
        sig["deploy_regression"].score *= 0.35
        sig["deploy_regression"].reasons.append("but the change history shows no deploy of it")
    if "oom_kill" in own_matches and "crash_loop" in sig:
        # A container killed for memory restarts and backs off: the kill is the mechanism, the loop its echo.
        sig["crash_loop"].score *= 0.5
        sig["crash_loop"].reasons.append("but the restarts follow out-of-memory kills")
    if not sig and (profile.symptoms or profile.own_logs or borrowed):
        logs = profile.own_logs + (borrowed or [])
        ev = [a.evidence for a in profile.symptoms[:1]] + [s.evidence for s in logs[:1]]
        acc.add("dependency_down", 0.1, ev, "failures with no specific mechanism")
    return sorted(sig.values(), key=lambda s: (-s.score, s.fault_type))
