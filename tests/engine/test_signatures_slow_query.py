"""A slow query says the database was slow, not why: it reads as lock contention only weakly.

Locks, a pinned CPU, a cold cache and a missing index all make slow queries. Callers'
`slow query on orders-db` lines alone keep lock contention as a reading under what names
a mechanism, so the database's own CPU alert or its spans' own-work reading comes first;
lines that name a lock (`Lock wait timeout exceeded`, `deadlock detected`) still do.
"""

from __future__ import annotations

from rootward.domain.evidence import EvidenceRef
from rootward.engine.signals import EntityProfile
from rootward.engine.signatures import NAMED_MECHANISM, classify
from tests.engine.small_incidents import ONSET_S, log

CPU_ALERT = ("PostgresHighCPU", EvidenceRef("alert", "alerts.json:0", "PostgresHighCPU on orders-db"))


def _db() -> EntityProfile:
    return EntityProfile("orders-db", "database", True)


def _slow() -> list:
    return [log("orders", "slow query on orders-db: <NUM>ms SELECT ... (threshold 500ms)", severity="warning")]


def test_slow_queries_alone_read_as_locks_below_a_named_mechanism() -> None:
    sigs = classify(_db(), _slow(), onset=ONSET_S)
    locks = next(s for s in sigs if s.fault_type == "db_lock_contention")
    assert 0 < locks.score < NAMED_MECHANISM


def test_the_databases_own_cpu_alert_outranks_its_callers_slow_queries() -> None:
    top = classify(_db(), _slow(), onset=ONSET_S, alerts=[CPU_ALERT])[0]
    assert top.fault_type == "cpu_saturation"


def test_lines_naming_a_lock_still_read_as_lock_contention_first() -> None:
    locks = [log("orders", "ERROR: Lock wait timeout exceeded; try restarting transaction")]
    top = classify(_db(), locks + _slow(), onset=ONSET_S, alerts=[CPU_ALERT])[0]
    assert top.fault_type == "db_lock_contention"
    assert top.score >= NAMED_MECHANISM
