"""Server-side SVG chart of a cited metric window, with its baseline.

No chart library and no JavaScript: the console stays fast and works with
scripts off. The chart is labelled (value range, baseline, UTC times of the
series and of the cited window) so it can be read without hovering.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Any

WIDTH, HEIGHT = 1000, 170
LEFT, RIGHT, TOP, BOTTOM = 64, 8, 8, 22  # gutters for the value and time labels


def _hhmm(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%H:%M")


def _num(v: float) -> str:
    return f"{v:.4g}"


def metric_svg(data: dict[str, Any], label: str) -> str:
    ts: list[float] = data.get("t") or []
    vs: list[float] = data.get("v") or []
    if len(ts) < 2:
        return ""
    baseline = data.get("baseline")
    t0, t1 = min(ts), max(ts)
    lo = min(vs + ([baseline] if baseline is not None else []))
    hi = max(vs + ([baseline] if baseline is not None else []))
    span_t = (t1 - t0) or 1.0
    span_v = (hi - lo) or 1.0

    def x(t: float) -> float:
        return LEFT + (t - t0) / span_t * (WIDTH - LEFT - RIGHT)

    def y(v: float) -> float:
        return HEIGHT - BOTTOM - (v - lo) / span_v * (HEIGHT - TOP - BOTTOM)

    points = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in zip(ts, vs, strict=True))
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}">']
    parts.append(f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" y2="{HEIGHT - BOTTOM}"/>')
    window = data.get("window")
    if window:
        w0, w1 = max(window[0], t0), min(window[1], t1)
        if w1 > w0:
            parts.append(
                f'<rect class="window" x="{x(w0):.1f}" y="{TOP}" width="{x(w1) - x(w0):.1f}" '
                f'height="{HEIGHT - TOP - BOTTOM}"/>'
                f'<text class="label cited" x="{x(w0):.1f}" y="{HEIGHT - 6}" text-anchor="middle">{_hhmm(w0)}</text>'
                f'<text class="label cited" x="{x(w1):.1f}" y="{HEIGHT - 6}" text-anchor="middle">{_hhmm(w1)}</text>'
            )
    if baseline is not None:
        yb = y(baseline)
        parts.append(f'<line class="baseline" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yb:.1f}" y2="{yb:.1f}"/>')
        parts.append(
            f'<text class="label" x="{WIDTH - RIGHT}" y="{yb - 5:.1f}" text-anchor="end">'
            f"baseline {_num(baseline)}</text>"
        )
    parts.append(f'<polyline class="series" points="{points}"/>')
    parts.append(f'<text class="label" x="{LEFT - 6}" y="{TOP + 10}" text-anchor="end">{_num(hi)}</text>')
    parts.append(f'<text class="label" x="{LEFT - 6}" y="{HEIGHT - BOTTOM}" text-anchor="end">{_num(lo)}</text>')
    parts.append(f'<text class="label" x="{LEFT}" y="{HEIGHT - 6}">{_hhmm(t0)}</text>')
    parts.append(f'<text class="label" x="{WIDTH - RIGHT}" y="{HEIGHT - 6}" text-anchor="end">{_hhmm(t1)} UTC</text>')
    parts.append(f"<title>{escape(label)}: min {_num(lo)}, max {_num(hi)}</title></svg>")
    return "".join(parts)
