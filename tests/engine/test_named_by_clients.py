"""What does not make an entity whose clients say how it failed a victim (`victims.victim_of_dependency`):
its host's memory stepping up, or a dependency's stray line."""

from __future__ import annotations

from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import anomaly, incident, log

KINDS = {"api": "service", "web": "service", "coredns": "dns", "node-1": "node", "node-2": "node"}
EDGES = [
    ("api", "coredns", "depends_on"),
    ("web", "coredns", "depends_on"),
    ("api", "node-1", "runs_on"),
    ("coredns", "node-1", "runs_on"),
    ("web", "node-2", "runs_on"),
]


def test_a_resolver_its_clients_cannot_resolve_through_is_not_its_hosts_victim() -> None:
    """Clients on two nodes fail to resolve names; the resolver's node also had its memory step up.

    Before, the node's unrelated memory step (no limit reached) made the resolver "a guest
    of a host with a stronger resource signal", its victim at a third of its score, and the
    node, lent its guests' lookup failures, came first.
    """
    lines = [
        log("api", "dial tcp: lookup web on <IP>:<NUM>: server misbehaving", onset_count=60),
        log("web", "getaddrinfo EAI_AGAIN payments", onset_count=60),
        log("coredns", "[ERROR] plugin/errors: <NUM> <*> A: read udp <IP>-><IP>: i/o timeout", onset_count=30),
    ]
    memory = anomaly("node-1", "memory", metric="memory_bytes", baseline=4e9, after=5e9, score=48.0)
    ctx = incident(kinds=KINDS, edges=EDGES, alerting=["api", "web"], anomalies=[memory], logs=lines)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["coredns"].victim_of is None
    assert max(scores.values(), key=lambda s: s.score).entity == "coredns"
    assert scores["coredns"].signatures[0].fault_type == "dns_failure"


def test_a_service_whose_clients_say_its_certificate_expired_passes_on_no_stray_retry() -> None:
    """Every client of pricing says its certificate has expired; pricing itself logs nothing.

    A dependency of pricing had logged one `retrying idempotent call` line since the onset.
    Before, that made pricing "a quiet entity passing on a failing dependency", its victim,
    and pricing dropped out of the first three behind its loud clients.
    """
    kinds = {"web": "service", "booking": "service", "pricing": "service", "fx": "service"}
    edges = [
        ("web", "pricing", "depends_on"),
        ("booking", "pricing", "depends_on"),
        ("pricing", "fx", "depends_on"),
    ]
    expired = "x509: certificate has expired or is not yet valid: current time <TS> is after <TS>"
    lines = [
        log("web", f"Post <URL>: {expired}", onset_count=150),
        log("booking", f"Get <URL>: {expired}", onset_count=150),
        log("fx", "retrying idempotent call attempt=<NUM> req_id=<HEX>", onset_count=1, severity="warning"),
    ]
    ctx = incident(kinds=kinds, edges=edges, alerting=["web", "booking"], logs=lines)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["pricing"].victim_of is None
    assert scores["pricing"].signatures[0].fault_type == "certificate_expiry"


def test_a_dependency_whose_memory_rose_until_it_was_killed_starved_its_clients() -> None:
    """drm's memory stepped up and it was OOM-killed; its two clients say their upstream answered 503.

    A memory step alone follows load and starves no one, so it counts for little when asking
    whether a dependency's trouble is what its clients pass on. A step that ended in the process
    being killed is no load following: the clients' 503s are its restarts. Before, the clients,
    louder and naming no one, kept their own readings and one came first.
    """
    kinds = {"manifest": "service", "player": "service", "drm": "service"}
    edges = [("manifest", "drm", "depends_on"), ("player", "drm", "depends_on")]
    lines = [
        log("manifest", "upstream upstream returned HTTP 503: Service Unavailable req_id=<HEX>", onset_count=74),
        log("player", "HttpServerErrorException$ServiceUnavailable: 503 Service Unavailable", onset_count=78),
        log("drm", "container drm terminated: reason=OOMKilled exitCode=137 restartCount=1", onset_count=1),
    ]
    series = [
        anomaly("drm", "memory", metric="memory_bytes", baseline=9.8e8, after=1.6e9, score=18.0, starts_s=60),
        anomaly("manifest", "errors", metric="error_rate", baseline=0.0, after=0.2, score=60.0, starts_s=60),
        anomaly("player", "errors", metric="error_rate", baseline=0.0, after=0.2, score=60.0, starts_s=60),
    ]
    ctx = incident(kinds=kinds, edges=edges, alerting=["manifest", "player"], anomalies=series, logs=lines)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["manifest"].victim_of == "drm"
    assert max(scores.values(), key=lambda s: s.score).entity == "drm"


def test_connections_reset_by_a_cache_killed_for_memory_are_the_cache_failing() -> None:
    """identity logs `connection reset by peer` on its cache, which was OOM-killed and restarted.

    A process killed resets every connection open to it: its clients' resets say what came back
    from a call, as a refusal or a 503 does, and are no mechanism of the client's own. Before,
    the reset read as packet loss at identity, a mechanism of its own that kept it from being
    anyone's victim, and it came first. One kill line is enough to say the process died.
    """
    kinds = {"identity": "service", "token-cache": "cache"}
    edges = [("identity", "token-cache", "depends_on")]
    lines = [
        log("identity", "redis upstream:<NUM>: connection reset by peer", onset_count=134),
        log("token-cache", "container token-cache terminated: reason=OOMKilled exitCode=137", onset_count=1),
    ]
    series = [
        anomaly("token-cache", "memory", metric="memory_bytes", baseline=2e8, after=3.5e8, score=17.8),
        anomaly("identity", "errors", metric="error_rate", baseline=0.0, after=0.1, score=40.0, starts_s=30),
    ]
    ctx = incident(kinds=kinds, edges=edges, alerting=["identity"], anomalies=series, logs=lines)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["identity"].victim_of == "token-cache"
    assert max(scores.values(), key=lambda s: s.score).entity == "token-cache"


def test_one_kill_line_says_the_process_died_though_its_series_are_missing() -> None:
    """The cache's metrics are not scraped: its one `OOMKilled` line is all it shows.

    A line or two of a dependency does not account for a caller whose error rate rose, unless the
    line says the process was killed or crashed: it was down until it restarted.
    """
    kinds = {"identity": "service", "token-cache": "cache"}
    edges = [("identity", "token-cache", "depends_on")]
    lines = [
        log("identity", "redis upstream:<NUM>: connection reset by peer", onset_count=134),
        log("token-cache", "container token-cache terminated: reason=OOMKilled exitCode=137", onset_count=1),
    ]
    errors = anomaly("identity", "errors", metric="error_rate", baseline=0.0, after=0.1, score=40.0, starts_s=30)
    ctx = incident(kinds=kinds, edges=edges, alerting=["identity"], anomalies=[errors], logs=lines)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["identity"].victim_of == "token-cache"


def test_resets_with_no_dependency_failing_stay_the_callers_own() -> None:
    """The same resets with the cache showing nothing: nothing failed to pass on."""
    kinds = {"identity": "service", "token-cache": "cache"}
    edges = [("identity", "token-cache", "depends_on")]
    lines = [log("identity", "redis upstream:<NUM>: connection reset by peer", onset_count=134)]
    ctx = incident(kinds=kinds, edges=edges, alerting=["identity"], logs=lines)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["identity"].victim_of is None
    assert scores["identity"].signatures[0].fault_type == "packet_loss"


def test_a_line_that_names_a_technology_names_the_one_dependency_of_that_kind() -> None:
    """`redis upstream:6379: connection reset by peer` from the auth service, whose one cache was OOM-killed.

    The line names no host (a proxy's upstream), so the cache killed every 9 minutes got nothing
    from its client's 60 resets, and the client came first with packet loss of its own.
    """
    kinds = {"auth": "service", "sessions": "cache", "auth-db": "database", "gw": "service"}
    edges = [("gw", "auth", "depends_on"), ("auth", "sessions", "depends_on"), ("auth", "auth-db", "depends_on")]
    lines = [
        log("auth", "redis upstream:<NUM>: connection reset by peer", onset_count=60),
        log("sessions", "container sessions terminated: reason=OOMKilled exitCode=<NUM>", onset_count=1),
    ]
    ctx = incident(kinds=kinds, edges=edges, alerting=["gw"], logs=lines)
    scores = {s.entity: s for s in score_entities(ctx)}
    assert max(scores.values(), key=lambda s: s.score).entity == "sessions"

    two_caches = {**kinds, "tokens": "cache"}
    ctx = incident(kinds=two_caches, edges=[*edges, ("auth", "tokens", "depends_on")], alerting=["gw"], logs=lines)
    assert max(score_entities(ctx), key=lambda s: s.score).entity == "auth"  # which cache, the line does not say
