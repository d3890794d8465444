"""Earlier faults of a session: each bends its cause's series and spans until it ends, and only then."""

from __future__ import annotations

import csv
import io
import json
import random
import statistics
from datetime import datetime

import pytest

from rootward.sim.generate import bundle_files, plan_bundles
from rootward.sim.previous_faults import LASTS_S, add_previous_faults, check_previous
from rootward.sim.render import render
from rootward.sim.scenario import Scenario, build_scenario
from rootward.sim.topologies import BUILT_IN
from rootward.sim.trace_faults import Bends, Failure, _add_until

TOPO = BUILT_IN["shop"]


def _pair(fault: str, earlier: list[str], minutes: list[int], k: int = 0) -> tuple[Scenario, Scenario]:
    """The same incident twice: alone, and after earlier faults of the given types."""

    def build() -> Scenario:
        return build_scenario(TOPO, fault, random.Random(f"previous-test/{fault}/{k}"), f"p-{k}")

    alone, after = build(), build()
    add_previous_faults(after, earlier, minutes, random.Random(f"previous-test/earlier/{k}"))
    return alone, after


def _rows(files: dict[str, bytes]) -> dict[tuple[str, str, int], float]:
    reader = csv.DictReader(io.StringIO(files["metrics.csv"].decode()))
    return {(r["service"], r["metric"], int(r["timestamp"])): float(r["value"]) for r in reader}


def test_an_earlier_cpu_fault_bends_its_series_only_while_it_runs() -> None:
    alone, after = _pair("deploy_regression", ["cpu_saturation"], [10])
    (p,) = after.previous
    assert p.onset == after.onset - 600 and p.end == p.onset + LASTS_S
    before, with_earlier = _rows(render(alone, random.Random(1))), _rows(render(after, random.Random(1)))
    assert before.keys() == with_earlier.keys()
    changed = {k for k in before if before[k] != with_earlier[k]}
    assert changed and all(p.onset - 600 <= t < p.end for _, _, t in changed)  # a CPU fault climbs a while first
    running = [k for k in before if k[:2] == (p.cause.name, "cpu_usage") and p.onset + 120 <= k[2] < p.end]
    assert running and all(with_earlier[k] > 1.5 * before[k] for k in running)


def test_an_earlier_fault_slows_its_spans_until_it_ends() -> None:
    _, after = _pair("deploy_regression", ["cpu_saturation"], [12], k=1)
    (p,) = after.previous
    spans = [json.loads(line) for line in render(after, random.Random(2))["traces.jsonl"].decode().splitlines()]

    def median_ms(lo: int, hi: int) -> float:
        own = [
            s["duration_ms"]
            for s in spans
            if s["service"] == p.cause.name
            and s.get("kind") == "server"
            and lo <= datetime.fromisoformat(s["start"].replace("Z", "+00:00")).timestamp() < hi
        ]
        assert len(own) >= 5
        return statistics.median(own)

    during, later = median_ms(p.onset + 120, p.end), median_ms(p.end + 30, after.onset)
    assert during > 1.5 * later


def test_the_incident_itself_stays_what_the_seed_makes_it() -> None:
    alone, after = _pair("network_latency", ["deploy_regression", "cpu_saturation"], [8, 16], k=2)
    assert len(after.previous) == 2
    for a, b in ((alone.cause, after.cause), (alone.onset, after.onset), (alone.alerts, after.alerts)):
        assert a == b
    truth = json.loads(render(after, random.Random(3))["truth.json"])
    assert truth["root_cause"] == {"entity": alone.cause.name, "fault_type": "network_latency"}
    assert [e["fault_type"] for e in truth["previous_faults"]] == [p.fault_type for p in after.previous]


def test_an_earlier_faulty_deploy_is_rolled_back_when_it_ends() -> None:
    _, after = _pair("cpu_saturation", ["deploy_regression"], [9], k=3)
    (p,) = after.previous
    deploys = [c for c in after.changes if c["service"] == p.cause.name and str(c["id"]).startswith("deploy")]
    assert any(c["time"] == p.end and str(c["summary"]).startswith("roll back") for c in deploys)
    assert any(int(c["time"]) < p.onset for c in deploys)


def test_without_earlier_faults_a_bundle_is_unchanged() -> None:
    topo, fault = plan_bundles(1, [TOPO], ["disk_full"])[0]
    assert bundle_files(topo, fault, 7, 0, 500) == bundle_files(topo, fault, 7, 0, 500, previous=None)


@pytest.mark.parametrize("minutes", [[3], [8, 10], [8, 8], [-8]])
def test_earlier_faults_must_be_over_before_the_next_starts(minutes: list[int]) -> None:
    with pytest.raises(ValueError, match="at least 6 minutes"):
        check_previous(minutes)


def test_the_same_entity_bent_twice_holds_each_fault_in_its_own_time() -> None:
    now = Bends(fail={"a": Failure(lambda t: 0.5 if t >= 100 else 0.0, "incident")}, slow={"a": lambda t: 3.0})
    earlier = Bends(fail={"a": Failure(lambda t: 0.9, "earlier")}, slow={"a": lambda t: 2.0, "b": lambda t: 4.0})
    _add_until(now, earlier, 50)
    assert [now.fail["a"].chance(t) for t in (10, 60, 120)] == [0.9, 0.0, 0.5]
    assert now.fail["a"].message == "incident"
    assert [now.slow["a"](t) for t in (10, 60)] == [2.0, 3.0]
    assert [now.slow["b"](t) for t in (10, 60)] == [4.0, 1.0]
