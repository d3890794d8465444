"""What a metric's name says: its family (cpu, memory, latency...) and which way is harmful.

Metric names are free text in every convention: Prometheus snake case
(`node_memory_MemAvailable_bytes`), CloudWatch camel case (`FreeableMemory`,
`TargetResponseTime`, `ApproximateAgeOfOldestMessage`), dotted StatsD names.
Names are split into lower-case words first, so one set of generic technology
words reads them all. Nothing here knows a particular system's metrics.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Literal

Family = Literal[
    "cpu",
    "memory",
    "disk",
    "restarts",
    "packet_loss",
    "connections",
    "locks",
    "network",
    "latency",
    "errors",
    "traffic",
    "silence",
    "other",
]

# "FreeableMemory" -> "Freeable_Memory", "HTTPCode_Target_5XX" -> "HTTP_Code_Target_5XX".
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\s.:/-]+")

# Ordered: the first family whose pattern matches the (normalised) name wins. A word must begin
# where a pattern begins (`(?:^|_)`): `workload` is not a load average, `cfs_throttled` is no
# filesystem, `shippingservice_cpu` pings nothing, `bloom_filter` is no OOM.
_W = r"(?:^|_)"
_FAMILY_PATTERNS: tuple[tuple[Family, re.Pattern[str]], ...] = (
    ("restarts", re.compile(rf"{_W}(?:restart|crash|oom)")),
    ("packet_loss", re.compile(rf"{_W}(?:packet|loss|drop|retrans)")),
    # Lock waits and deadlocks: what a database's contended rows look like in its own series.
    ("locks", re.compile(r"(?:^|_)(?:dead)?locks?(?:_|$)|lock_?wait|deadlock")),
    ("connections", re.compile(rf"{_W}(?:conn|pool|thread|socket)")),
    ("disk", re.compile(rf"{_W}(?:disk|fs(?:_|$)|filesystem|volume|inode|storage|iops)")),
    (
        "network",
        re.compile(
            rf"{_W}(?:rtt|round_?trip|network|net(?:_|$)|ping(?:_|$)|tcp|link(?:_|$)|bandwidth|jitter|receive"
            r"|transmit|rx(?:_|$)|tx(?:_|$))"
        ),
    ),
    ("cpu", re.compile(rf"{_W}(?:v?cpu|throttl|load(?:\d+|avg|_?average)?(?:_|$))")),
    ("memory", re.compile(rf"{_W}(?:mem|heap|rss(?:_|$)|gc(?:_|$))")),
    ("traffic", re.compile(rf"{_W}requests?.*_(count|total)$")),  # a counter of timed requests is traffic
    # Work waiting is delay: a queue's backlog and the age of its oldest message grow when consumers slow.
    (
        "latency",
        re.compile(rf"{_W}(?:latenc|duration|p99|p95|p50|response_time|ms$|seconds|lag(?:_|$)|age(?:_|$))"),
    ),
    # Availability is the share of requests that succeeded, and a count of timeouts is a count of failures.
    ("errors", re.compile(rf"{_W}(?:error|fail|5xx|exception|success|availab|unavailab|timeout|timed_out)")),
    (
        "traffic",
        re.compile(rf"{_W}(?:request|rps|qps|throughput|workload|ops(?:_|$)|traffic|invocation|consumed)|^count$"),
    ),
)

# Headroom is named for what is left: free memory, available disk, idle CPU, a credit balance.
_HEADROOM = re.compile(r"(?:^|_)(free|freeable|available|avail|remaining|idle|balance|headroom)(?:_|$)")


# A share of capacity (`disk_used_ratio`, `cpu_busy_ratio`, `memory_utilization`): the engine's headroom
# rules and the "filled up" reading of a level that met its limit take only such series.
CAPACITY_RATIO = re.compile(r"(used|busy|usage)_ratio$|utili[sz]ation(_ratio)?$", re.I)


# A series printed the way Prometheus prints it: `http_requests_total{code="500",method="GET"}`.
_LABEL_SET = re.compile(r"\{([^{}]*)\}\s*$")
_LABEL = re.compile(r"""([A-Za-z_][\w.]*)\s*=~?\s*["']?([^"',]*)["']?""")
# A label that says how a request ended (`code`, `status`, `response_code`, `grpc_code`, `outcome`, `result`) ...
_OUTCOME_KEY = re.compile(r"code|status|outcome|result", re.I)
# ... and the values that say it failed on the server's side: an HTTP 5xx, a failure word, a gRPC
# server-side status. A 4xx is the client's (a 404 is a missing page, not a broken service).
_FAILED_OUTCOME = re.compile(
    r"^(?:5\d\d|5xx|errors?|fail(?:ure|ed)?|server_error|internal|unavailable|unknown|deadline_exceeded"
    r"|data_loss|aborted|resource_exhausted)$"
)


def split_labels(metric: str) -> tuple[str, dict[str, str]]:
    """The series' name and its label set, when it is written after the name as Prometheus prints it."""
    found = _LABEL_SET.search(metric)
    if found is None:
        return metric, {}
    return metric[: found.start()].strip(), {k: v.strip() for k, v in _LABEL.findall(found.group(1))}


def failed_outcome(labels: dict[str, str]) -> bool:
    """Whether a label says the requests the series counts ended in a server-side failure."""
    return any(_OUTCOME_KEY.search(k) and _FAILED_OUTCOME.match(words_of(v)) for k, v in labels.items())


# Asked of the same few hundred names for every series, by each detector in turn (~10 % of anomaly detection).
@functools.lru_cache(maxsize=8192)
def words_of(metric: str) -> str:
    """The name as lower-case words joined by underscores, whatever its convention."""
    return _SEPARATORS.sub("_", _CAMEL.sub("_", metric)).lower()


@functools.lru_cache(maxsize=8192)
def family_of(metric: str) -> Family:
    """The family the name says; a series of requests that failed (`{code="503"}`) counts errors."""
    name, labels = split_labels(metric)
    if failed_outcome(labels):
        return "errors"
    words = words_of(name)
    for family, pattern in _FAMILY_PATTERNS:
        if pattern.search(words):
            return family
    return "other"


def is_headroom(metric: str) -> bool:
    """Whether the series measures what is left (so falling is the harmful way)."""
    return _HEADROOM.search(words_of(metric)) is not None


_SUCCESS_SHARE = re.compile(r"(?:^|_)(?:success|availab)")


def is_success_share(metric: str) -> bool:
    """Whether the series is a share of requests that succeeded (an availability), not a count of failures."""
    return family_of(metric) == "errors" and _SUCCESS_SHARE.search(words_of(metric)) is not None


def success_ceiling(metric: str, values: Iterable[float]) -> float:
    """Where a success share is bounded (100 for percent, 1 for a ratio); 0.0 for any other series.

    A success rate lives just under its ceiling, so what moves is its distance
    from it: 99.9 % -> 93 % is the failing share going from 0.1 to 7 points.
    A spread floor taken as a share of the level itself (5 % of 99.9 is five
    points) would hide exactly that; taken as a share of the distance from the
    ceiling, it reads like the error rate it is.
    """
    if not is_success_share(metric):
        return 0.0
    top = max((v for v in values if v == v), default=0.0)  # NaN != NaN: no sample
    return 100.0 if top > 1.0 else 1.0


# The quantile a latency series' name states: `latency_p50_ms`, `latency-90` (RCAEval), `p99`,
# `http_request_duration_seconds{quantile="0.95"}`, `median`; a `_50`/`_90` word, or `pNN`/`pNNN`.
_QUANTILE_WORD = re.compile(r"(?:^|_)p?(50|75|90|95|99|999)(?:_|$)")
_QUANTILE_LABEL = re.compile(r"""quantile\s*=\s*["']?(0?\.\d+)""")


def latency_quantile(metric: str) -> float | None:
    """The quantile of the requests a latency series reports (0.5 for a median), if its name says one."""
    if family_of(metric) != "latency":
        return None
    if label := _QUANTILE_LABEL.search(metric):
        return float(label.group(1))
    words = words_of(split_labels(metric)[0])
    if re.search(r"(?:^|_)median(?:_|$)", words):
        return 0.5
    found = _QUANTILE_WORD.search(words)
    if found is None:
        return None
    digits = found.group(1)
    return int(digits) / 10 ** len(digits)
