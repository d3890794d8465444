"""What a failure line's words name: the claim, not the names of the objects printed in it."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from rootward.context.log_signals import LogSignal
from rootward.engine.signals import EntityProfile
from rootward.engine.signatures import classify, faults_named, log_readings
from rootward.engine.victims import victim_of_dependency
from tests.engine.small_incidents import ONSET_S, anomaly, log

# urllib3 prints its pool in front of every timeout and refusal, whatever happened.
URLLIB3_TIMEOUT = (
    "requests.exceptions.ReadTimeout: HTTPConnectionPool(host='upstream', port=<NUM>): Read timed out. "
    "(read timeout=<NUM>)"
)


def test_an_object_printed_with_its_fields_names_where_not_what() -> None:
    assert "connection_pool_exhaustion" not in faults_named(URLLIB3_TIMEOUT)
    assert "network_latency" in faults_named(URLLIB3_TIMEOUT)
    refused = "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api', port=443): Connection refused"
    assert "dependency_down" in faults_named(refused)
    assert "connection_pool_exhaustion" not in faults_named(refused)


def test_the_fields_of_a_printed_object_and_named_pools_still_speak() -> None:
    assert "disk_full" in faults_named("write failed: OSError(errno=28, strerror='No space left on device')")
    assert "connection_pool_exhaustion" in faults_named("Connection pool is full, discarding connection: api")
    hikari = "HikariPool-1 - Connection is not available, request timed out after <NUM>ms."
    assert "connection_pool_exhaustion" in faults_named(hikari)
    apache = "ConnectionPoolTimeoutException: Timeout waiting for connection from pool"
    assert "connection_pool_exhaustion" in faults_named(apache)


def test_a_caller_timing_out_through_urllib3_passes_on_its_slow_dependency() -> None:
    """Read as pool exhaustion, the line was a mechanism of the caller's own, and the caller no victim."""
    timeouts = log("tracking", URLLIB3_TIMEOUT, onset_count=80)
    profiles = {
        "tracking": EntityProfile("tracking", "service", True, own_logs=[timeouts], onset=ONSET_S + 90),
        "geo": EntityProfile("geo", "service", True, symptoms=[anomaly("geo", "latency")], onset=ONSET_S),
    }
    g = nx.DiGraph()
    g.add_edge("tracking", "geo", relation="depends_on")
    borrowed: dict[str, list[LogSignal]] = defaultdict(list)
    assert victim_of_dependency("tracking", profiles["tracking"], g, profiles, borrowed, ONSET_S, 0.0) == "geo"


def test_a_line_reads_as_the_most_specific_faults_it_names() -> None:
    """ "slow query ... lock wait" says what was slow: no second, network reading of the word "slow"."""
    slow_query = log("ledger", "slow query detected: lock wait on table <NAME> took <NUM> ms", onset_count=40)
    handshake = log("ledger", "TLS handshake timeout talking to <HOST>", onset_count=40)
    timeout = log("ledger", "request to <HOST> timed out after <NUM> ms", onset_count=40)
    readings = log_readings([slow_query, handshake, timeout])
    assert readings["db_lock_contention"] == [slow_query]
    assert readings["certificate_expiry"] == [handshake]
    assert readings["network_latency"] == [timeout]
    profile = EntityProfile("ledger", "service", True, own_logs=[slow_query], onset=ONSET_S)
    assert [s.fault_type for s in classify(profile, onset=ONSET_S)] == ["db_lock_contention"]


def test_a_network_link_going_down_is_a_network_fault_not_a_process_down() -> None:
    """A link that flaps drops what crosses it; "is down" said of a link is not a dependency gone away.

    Before, a node's `NIC Link is Down` lines, repeated at every flap, read as dependency_down and
    ranked above the packet loss they cause, with or without the node's own loss series.
    """
    for line in (
        "kernel: igb 0000:03:00.0 lan3: NIC Link is Down",
        "kernel: bond0: (slave eth0): link status definitely down, disabling slave",
        "%LINK-3-UPDOWN: Interface GigabitEthernet0/1, changed state to down",
        "eth0: carrier lost",
    ):
        assert faults_named(line) == ["packet_loss"], line
    assert faults_named("payments-db is down, page the DBA") == ["dependency_down"]
    assert faults_named("igb 0000:03:00.0 lan3: NIC Link is Up 1000 Mbps Full Duplex") == []


def test_an_exception_that_says_what_happened_is_what_happened_not_a_code_fault() -> None:
    """`SocketTimeoutException: Read timed out` is a timeout; "exception" only says it was raised.

    Before, every timeout or refusal a Java or Python client raised also read as a code
    fault, and as the more specific reading it was the only one: a caller timing out on a
    delayed search cluster read as a bad deploy of its own.
    """
    assert faults_named(URLLIB3_TIMEOUT) == ["network_latency"]
    assert faults_named("java.net.SocketTimeoutException: Read timed out") == ["network_latency"]
    assert faults_named("java.net.ConnectException: Connection refused (Connection refused)") == ["dependency_down"]
    assert faults_named("java.net.UnknownHostException: search: Temporary failure in name resolution") == [
        "dns_failure"
    ]
    # An exception naming a bug of its own, or only that something was raised, is still a code fault.
    assert faults_named("java.lang.NullPointerException: timeout was null") == ["deploy_regression", "network_latency"]
    assert faults_named("java.lang.RuntimeException: order 42 has no price") == ["deploy_regression"]
    assert "deploy_regression" in faults_named("HttpServerErrorException: 500 Internal Server Error (timed out)")
