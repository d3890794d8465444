"""The spans' own change point: the onset the trace comparison uses when the metrics give none."""

from __future__ import annotations

from datetime import timedelta

from rootward.context.trace_evidence import compared_windows, trace_findings
from rootward.context.trace_onset import trace_onset
from rootward.context.window import incident_window
from tests.context.span_factory import BASELINE, FIRED_AT, ONSET, Phase, incident_spans

CALLS = {"frontend": ["checkout", "catalog"], "checkout": ["payment", "cart"]}


def test_the_onset_is_where_the_calls_into_a_delayed_callee_got_slower() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(network_ms={"cart": 80}))
    found = trace_onset(spans, BASELINE[0], FIRED_AT)
    assert found is not None
    assert abs((found - ONSET).total_seconds()) <= 10  # the calls are 3 s apart after the onset


def test_a_service_whose_own_work_slowed_sets_the_onset_too() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(own_ms={"payment": 60}))
    found = trace_onset(spans, BASELINE[0], FIRED_AT)
    assert found is not None and abs((found - ONSET).total_seconds()) <= 10


def test_calls_that_got_faster_are_a_recovery_not_an_onset() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(network_ms={"cart": 80}), Phase())
    assert trace_onset(spans, BASELINE[0], FIRED_AT) is None


def test_nothing_changed_gives_no_onset() -> None:
    assert trace_onset(incident_spans(CALLS, "frontend", Phase(), Phase()), BASELINE[0], FIRED_AT) is None
    assert trace_onset([], BASELINE[0], FIRED_AT) is None


def test_without_a_metric_onset_the_spans_onset_splits_the_comparison() -> None:
    window = incident_window(FIRED_AT, before=timedelta(minutes=10))  # no onset from the metrics
    (base_lo, base_hi), (after_lo, after_hi) = compared_windows(window, timedelta(minutes=1), ONSET)
    assert base_hi == after_lo == ONSET
    assert after_hi >= FIRED_AT and base_lo < ONSET
    # Without it, the fixed guess puts calls from before the fault on the "after" side.
    (_, guess_hi), (guess_lo, _) = compared_windows(window, timedelta(minutes=1))
    assert guess_lo < ONSET - timedelta(minutes=1)


def test_a_fault_found_only_by_the_spans_onset_is_compared_on_the_right_side() -> None:
    spans = incident_spans(CALLS, "frontend", Phase(), Phase(network_ms={"cart": 80}))
    window = incident_window(FIRED_AT, before=timedelta(minutes=10))
    spans_onset = trace_onset(spans, window.baseline_start, FIRED_AT)
    found = compared_windows(window, timedelta(minutes=1), spans_onset)

    def cart(windows: tuple[tuple, tuple]) -> bool:
        return any(
            f.kind == "network" and f.where == "checkout->cart" and f.up
            for f in trace_findings(spans, baseline=windows[0], during=windows[1])
        )

    assert found[0][1] == found[1][0] and abs((found[0][1] - ONSET).total_seconds()) <= 10
    assert cart(found)
