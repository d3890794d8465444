"""A client stating the mechanism its dependency's own alert is named for is that dependency's victim."""

from __future__ import annotations

from rootward.engine.hypotheses import score_entities
from tests.engine.small_incidents import alert, anomaly, change, incident, log

KINDS = {"edge": "gateway", "web": "service", "mobile": "service", "search": "service"}
EDGES = [("edge", "web", "depends_on"), ("edge", "mobile", "depends_on"), ("mobile", "search", "depends_on")]
HANDSHAKE = (
    "javax.net.ssl.SSLHandshakeException: PKIX path validation failed: "
    "java.security.cert.CertPathValidatorException: validity check failed"
)


def test_a_client_failing_to_validate_a_certificate_points_at_the_server_whose_probe_fired() -> None:
    """edge cannot validate a certificate on 120 calls, naming no one; web's TLS probe fired.

    Before, edge's lines were a certificate expiry of its own (it logged them) and edge came
    first; web, with only its alert, was not ranked at all.
    """
    ctx = incident(
        kinds=KINDS,
        edges=EDGES,
        alerting=["edge"],
        anomalies=[
            anomaly("edge", "errors", metric="error_rate", baseline=0.001, after=0.3, score=90.0),
            anomaly("search", "latency", metric="latency_p99_ms", baseline=40, after=70, score=12.0),
        ],
        logs=[log("edge", HANDSHAKE, onset_count=120)],
        changes=[change("search", minutes_before=6)],
    )
    ctx = ctx.model_copy(update={"alerts": [*ctx.alerts, alert("web", name="ProbeSSLCertExpired")]})
    scores = {s.entity: s for s in score_entities(ctx)}
    assert scores["edge"].victim_of == "web"
    assert max(scores.values(), key=lambda s: s.score).entity == "web"
    assert scores["web"].signatures[0].fault_type == "certificate_expiry"
