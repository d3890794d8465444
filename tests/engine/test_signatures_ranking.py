"""Fault-type signatures (`engine/signatures.py`): which fault an entity's evidence points at, and why."""

from __future__ import annotations

from rootward.domain.evidence import EvidenceRef
from rootward.engine.signals import EntityProfile
from rootward.engine.signatures import classify, log_matches
from rootward.engine.trace_attribution import FaultHint
from tests.engine.small_incidents import ONSET_S, anomaly, change, log


def _faults(profile: EntityProfile, *, onset: int | None = None) -> list[str]:
    return [s.fault_type for s in classify(profile, onset=onset)]


def test_log_templates_map_to_the_fault_types_they_name() -> None:
    disk = log("api", "write /var/lib/data: no space left on device")
    tls = log("api", "x509: certificate has expired or is not yet valid")
    refused = log("api", "dial tcp 10.0.0.7:5432: connection refused")
    matched = log_matches([disk, tls, refused])
    assert matched["disk_full"] == [disk]
    assert matched["certificate_expiry"] == [tls]
    assert matched["dependency_down"] == [refused]


def test_no_space_left_in_own_logs_classifies_as_disk_full_citing_the_line() -> None:
    disk = log("api", "write /var/lib/data: no space left on device")
    profile = EntityProfile("api", "service", True, own_logs=[disk])
    top = classify(profile, onset=ONSET_S)[0]
    assert top.fault_type == "disk_full"
    assert disk.evidence in top.evidence
    assert "its log templates match disk_full" in top.reasons


def test_memory_climb_with_restarts_is_an_oom_kill_not_a_crash_loop() -> None:
    profile = EntityProfile(
        "api",
        "service",
        True,
        resources=[
            anomaly("api", "memory", metric="rss_bytes", shape="ramp", starts_s=-120),
            anomaly("api", "restarts", metric="container_restarts"),
        ],
    )
    faults = _faults(profile, onset=ONSET_S)
    assert faults[0] == "oom_kill"
    assert "crash_loop" not in faults


def test_restarts_right_after_a_deploy_of_the_same_entity_are_its_rollout_not_a_crash_loop() -> None:
    restarts = anomaly("api", "restarts", metric="container_restarts")
    rolled = EntityProfile("api", "service", True, resources=[restarts], changes=[change("api", minutes_before=2)])
    unexplained = EntityProfile("api", "service", True, resources=[restarts])
    assert "crash_loop" not in _faults(rolled, onset=ONSET_S)
    assert _faults(unexplained, onset=ONSET_S)[0] == "crash_loop"


def test_errors_right_after_a_deploy_classify_as_a_deploy_regression_citing_the_deploy() -> None:
    deploy = change("api", minutes_before=4, change_id="deploy-42")
    profile = EntityProfile(
        "api",
        "service",
        True,
        symptoms=[anomaly("api", "errors", metric="http_5xx_rate")],
        own_logs=[log("api", "NullPointerException in CartService.total")],
        changes=[deploy],
    )
    top = classify(profile, onset=ONSET_S, changes_recorded=True)[0]
    assert top.fault_type == "deploy_regression"
    assert deploy.evidence in top.evidence
    assert "deploy deploy-42 before the onset" in top.reasons


def test_bad_deploy_reading_weakens_when_the_change_log_shows_no_deploy_of_the_entity() -> None:
    profile = EntityProfile("api", "service", True, symptoms=[anomaly("api", "errors", metric="http_5xx_rate")])

    def deploy_score(changes_recorded: bool) -> float:
        sigs = {s.fault_type: s for s in classify(profile, onset=ONSET_S, changes_recorded=changes_recorded)}
        return sigs["deploy_regression"].score

    assert deploy_score(changes_recorded=True) < 0.5 * deploy_score(changes_recorded=False)


def test_latency_with_no_resource_cause_and_no_errors_reads_as_network_latency() -> None:
    profile = EntityProfile("api", "service", True, symptoms=[anomaly("api", "latency", metric="p99_latency_ms")])
    assert _faults(profile, onset=ONSET_S)[0] == "network_latency"


def test_a_named_pool_mechanism_outranks_the_generic_errors_mean_a_bad_deploy_reading() -> None:
    profile = EntityProfile(
        "api",
        "service",
        True,
        symptoms=[anomaly("api", "errors", metric="http_5xx_rate")],
        own_logs=[log("api", "HikariPool-1 - Connection is not available, request timed out after 30000ms")],
    )
    faults = _faults(profile, onset=ONSET_S)
    assert faults[0] == "connection_pool_exhaustion"
    assert "deploy_regression" not in faults  # a specific mechanism in its logs: errors do not mean a new version


def test_silent_dependency_named_by_callers_as_refusing_connections_is_down() -> None:
    refused = log("checkout", "POST https://stripe/charges: connection refused")
    profile = EntityProfile("stripe", "external", False, mentions=[refused])
    top = classify(profile, [refused], onset=ONSET_S)[0]
    assert top.fault_type == "dependency_down"
    assert "others' log templates about it match dependency_down" in top.reasons


def test_a_surge_that_came_after_the_entitys_own_symptoms_is_their_consequence() -> None:
    slow = anomaly("api", "latency", metric="latency_p99_ms")
    retries = anomaly("api", "traffic", metric="requests_per_s", baseline=100, after=180, starts_s=600)
    after = EntityProfile("api", "service", True, symptoms=[slow], traffic=[retries])
    assert "traffic_surge" not in {s.fault_type for s in classify(after, onset=ONSET_S)}
    # The same surge with the latency, or leading it, is what made it slow.
    first = anomaly("api", "traffic", metric="requests_per_s", baseline=100, after=180, starts_s=-60)
    before = EntityProfile("api", "service", True, symptoms=[slow], traffic=[first])
    assert classify(before, onset=ONSET_S)[0].fault_type == "traffic_surge"


def test_request_surge_is_the_cause_and_the_saturation_it_brings_counts_less() -> None:
    cpu = anomaly("api", "cpu", metric="cpu_seconds")
    surge = anomaly("api", "traffic", metric="requests_per_s", baseline=100, after=350)
    surged = EntityProfile("api", "service", True, resources=[cpu], traffic=[surge])
    alone = EntityProfile("api", "service", True, resources=[cpu])
    surged_sigs = {s.fault_type: s.score for s in classify(surged, onset=ONSET_S)}
    alone_sigs = {s.fault_type: s.score for s in classify(alone, onset=ONSET_S)}
    assert max(surged_sigs, key=lambda f: surged_sigs[f]) == "traffic_surge"
    assert surged_sigs["cpu_saturation"] < alone_sigs["cpu_saturation"]


def test_memory_that_keeps_resetting_is_an_oom_kill_without_a_restart_series_or_a_log() -> None:
    resets = anomaly("db", "memory", metric="memory_bytes", baseline=415e6, after=751e6, peak=1009e6, shape="resets")
    top = classify(EntityProfile("db", "service", True, resources=[resets]), onset=ONSET_S)[0]
    assert top.fault_type == "oom_kill"
    assert "killed at a limit" in " ".join(top.reasons)
    stepped = anomaly("db", "memory", metric="memory_bytes", baseline=415e6, after=751e6, peak=1009e6)
    sigs = {s.fault_type for s in classify(EntityProfile("db", "service", True, resources=[stepped]), onset=ONSET_S)}
    assert "oom_kill" not in sigs


def test_a_pool_a_moderate_rise_in_requests_used_up_is_the_pools_exhaustion() -> None:
    # +60 % requests (a swing any service sees) filled a pool of 30 connections: the limit is the finding.
    pool = anomaly("auth", "connections", metric="db_connections_in_use", baseline=5.5, after=30, score=24.0)
    rise = anomaly("auth", "traffic", metric="request_rate", baseline=119, after=191, score=11.7)
    moderate = EntityProfile("auth", "service", True, resources=[pool], traffic=[rise])
    assert classify(moderate, onset=ONSET_S)[0].fault_type == "connection_pool_exhaustion"
    # Requests at three times their level are a surge in their own right, whatever they fill up.
    tripled = anomaly("auth", "traffic", metric="request_rate", baseline=119, after=360, score=11.7)
    surged = EntityProfile("auth", "service", True, resources=[pool], traffic=[tripled])
    assert classify(surged, onset=ONSET_S)[0].fault_type == "traffic_surge"


def test_a_resource_that_moved_well_after_the_onset_counts_less_as_a_cause() -> None:
    timely = EntityProfile("api", "service", True, resources=[anomaly("api", "disk", starts_s=0)])
    late = EntityProfile("api", "service", True, resources=[anomaly("api", "disk", starts_s=600)])
    assert classify(late, onset=ONSET_S)[0].score < classify(timely, onset=ONSET_S)[0].score


def test_a_failing_dns_entity_is_read_as_a_dns_failure() -> None:
    profile = EntityProfile("coredns", "dns", True, symptoms=[anomaly("coredns", "latency")])
    assert "dns_failure" in _faults(profile, onset=ONSET_S)


def test_a_resolver_whose_errors_rose_fails_as_dns_not_as_its_code() -> None:
    errors = anomaly("coredns", "errors", metric="dns_errors_total", score=200.0)
    profile = EntityProfile("coredns", "dns", True, symptoms=[errors])
    assert _faults(profile, onset=ONSET_S) == ["dns_failure"]


def test_failures_without_any_known_mechanism_fall_back_to_dependency_down() -> None:
    profile = EntityProfile("api", "service", True, own_logs=[log("api", "request failed")])
    sigs = classify(profile, onset=ONSET_S)
    assert [(s.fault_type, s.reasons) for s in sigs] == [("dependency_down", ["failures with no specific mechanism"])]


def test_an_entity_with_no_evidence_has_no_signature() -> None:
    assert classify(EntityProfile("api", "service", True), onset=ONSET_S) == []


def _slower_own_work(score: float = 0.8) -> FaultHint:
    ref = EvidenceRef("trace", "traces.jsonl:api@1000-1300", "api self time p50 12 ms -> 40 ms")
    return FaultHint("cpu_saturation", score, (ref,), "api's own work per call rose")


def test_slower_own_work_in_traces_confirms_the_mechanism_the_resource_series_name() -> None:
    leak = EntityProfile(
        "api", "service", True, resources=[anomaly("api", "memory", metric="rss_bytes", shape="ramp", starts_s=-120)]
    )
    sigs = classify(leak, onset=ONSET_S, trace=[_slower_own_work()])
    assert sigs[0].fault_type == "memory_leak"
    assert any(r.startswith("traces agree") for r in sigs[0].reasons)
    assert "cpu_saturation" not in {s.fault_type for s in sigs}


def test_slower_own_work_in_traces_names_saturation_when_nothing_else_names_a_mechanism() -> None:
    quiet = EntityProfile("api", "service", True)
    assert classify(quiet, onset=ONSET_S, trace=[_slower_own_work()])[0].fault_type == "cpu_saturation"


def test_a_cpu_rise_beside_errors_is_the_failing_paths_cost_when_its_watched_latency_did_not_rise() -> None:
    cpu = anomaly("ads", "cpu", metric="cpu_usage", score=12.0, baseline=0.001, after=0.003)
    caller_errors = [anomaly("web", "errors", metric="error_rate", score=200.0, baseline=0.0, after=0.1)]
    profile = EntityProfile("ads", "service", True, resources=[cpu])

    def faults(*, latency_watched: bool, slowed: bool) -> list[str]:
        p = profile
        if slowed:
            p = EntityProfile("ads", "service", True, resources=[cpu], symptoms=[anomaly("ads", "latency")])
        sigs = classify(p, onset=ONSET_S, reach_errors=caller_errors, latency_watched=latency_watched)
        return [s.fault_type for s in sigs]

    assert faults(latency_watched=True, slowed=False)[0] == "deploy_regression"
    # Where latency is not watched, or did rise, the CPU rise keeps its weight.
    assert faults(latency_watched=False, slowed=False)[0] == "cpu_saturation"
    assert faults(latency_watched=True, slowed=True)[0] == "cpu_saturation"


def test_rising_lock_waits_at_a_database_read_as_lock_contention_not_an_exhausted_pool() -> None:
    waits = anomaly("orders-db", "locks", metric="lock_waits", score=30.0, baseline=0.2, after=6.0)
    busy = anomaly("orders-db", "connections", metric="db_connections_in_use", score=12.0, baseline=20, after=60)
    top = classify(EntityProfile("orders-db", "database", True, resources=[waits, busy]), onset=ONSET_S)[0]
    assert top.fault_type == "db_lock_contention"
    assert waits.evidence in top.evidence


def test_a_restart_counter_that_counted_one_restart_is_not_read_as_a_crash_loop() -> None:
    def failing(restarts_after: float) -> EntityProfile:
        restarts = anomaly("api", "restarts", metric="restarts_total", baseline=0.0, after=restarts_after)
        return EntityProfile(
            "api",
            "service",
            True,
            symptoms=[anomaly("api", "errors", metric="http_5xx_rate")],
            resources=[restarts],
        )

    once = classify(failing(1.0), onset=ONSET_S)
    again = classify(failing(5.0), onset=ONSET_S)
    assert once[0].fault_type == "deploy_regression"
    assert "only once" in next(s for s in once if s.fault_type == "crash_loop").reasons[0]
    assert again[0].fault_type == "crash_loop"


def test_an_alert_named_for_a_mechanism_names_it_and_a_symptoms_alert_does_not() -> None:
    cert = EvidenceRef("alert", "alerts.json:aa11", "ProbeSSLCertExpired on api")
    slow = EvidenceRef("alert", "alerts.json:bb22", "HighLatencyP99 on api")
    profile = EntityProfile("api", "service", True, symptoms=[anomaly("api", "errors", metric="http_5xx_rate")])
    named = classify(profile, onset=ONSET_S, alerts=[("ProbeSSLCertExpired", cert), ("HighLatencyP99", slow)])
    assert named[0].fault_type == "certificate_expiry" and named[0].evidence == [cert]
    looping = classify(profile, onset=ONSET_S, alerts=[("KubePodCrashLooping", cert)])
    assert looping[0].fault_type == "crash_loop"
    plain = classify(profile, onset=ONSET_S, alerts=[("HighLatencyP99", slow)])
    assert [s.fault_type for s in plain] == [s.fault_type for s in classify(profile, onset=ONSET_S)]
