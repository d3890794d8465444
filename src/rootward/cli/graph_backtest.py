"""Text rendering of `rootward graph backtest`: one row per dynamics and topology."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_HEADER = (
    f"{'dynamics':<8} {'topology':<16} {'cases':>5} {'coverage':>8} {'control':>7} {'ratio':>6} "
    f"{'hit':>6} {'hit ratio':>9} {'on time':>7} {'|err| p50':>9}"
)


def _num(value: Any, width: int, digits: int = 3) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def _row(mode: str, name: str, s: dict[str, Any]) -> str:
    err = s.get("timing_median_error_s")
    return (
        f"{mode:<8} {name:<16} {s['cases']:>5} {_num(s['coverage'], 8)} {_num(s['control_coverage'], 7)} "
        f"{_num(s['control_ratio'], 6)} {_num(s['hit_coverage'], 6)} {_num(s['hit_control_ratio'], 9)} "
        f"{_num(s['timing_accuracy'], 7)} {'-' if err is None else f'{err:.0f} s':>9}"
    )


def render_backtest(reports: dict[str, dict[str, Any]]) -> Iterator[str]:
    """A table of every report (prior, learned), overall and per topology, then targets and skips."""
    first = next(iter(reports.values()))
    yield (
        f"{first['cases']} incidents, {first['timed_cases']} with a known onset (an alert counts only inside "
        f"its predicted delay window); control: {first['shuffles']} shuffled graphs per topology, seed {first['seed']}"
    )
    yield _HEADER
    for mode, report in reports.items():
        yield _row(mode, "all", report)
        if len(report["per_topology"]) > 1:
            for name, summary in report["per_topology"].items():
                yield _row("", name, summary)
    yield f"target: coverage >= {first['target_coverage']}, control ratio <= {first['target_control_ratio']}"
    if first["skipped"]:
        yield f"skipped: {', '.join(first['skipped'])}"
