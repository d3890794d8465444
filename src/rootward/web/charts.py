"""Server-side SVG sparkline of a cited metric window, with its baseline.

No chart library and no JavaScript: the console stays fast and works with
scripts off.
"""

from __future__ import annotations

from html import escape
from typing import Any

WIDTH, HEIGHT, PAD = 600, 140, 6


def metric_svg(data: dict[str, Any], label: str) -> str:
    ts: list[float] = data.get("t") or []
    vs: list[float] = data.get("v") or []
    if len(ts) < 2:
        return ""
    t0, t1 = min(ts), max(ts)
    lo = min(vs + ([data["baseline"]] if data.get("baseline") is not None else []))
    hi = max(vs + ([data["baseline"]] if data.get("baseline") is not None else []))
    span_t = (t1 - t0) or 1.0
    span_v = (hi - lo) or 1.0

    def x(t: float) -> float:
        return PAD + (t - t0) / span_t * (WIDTH - 2 * PAD)

    def y(v: float) -> float:
        return HEIGHT - PAD - (v - lo) / span_v * (HEIGHT - 2 * PAD)

    points = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in zip(ts, vs, strict=True))
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}">']
    window = data.get("window")
    if window:
        w0, w1 = max(window[0], t0), min(window[1], t1)
        if w1 > w0:
            parts.append(f'<rect class="window" x="{x(w0):.1f}" y="0" width="{x(w1) - x(w0):.1f}" height="{HEIGHT}"/>')
    if data.get("baseline") is not None:
        yb = y(data["baseline"])
        parts.append(f'<line class="baseline" x1="{PAD}" x2="{WIDTH - PAD}" y1="{yb:.1f}" y2="{yb:.1f}"/>')
    parts.append(f'<polyline class="series" points="{points}"/>')
    parts.append(f"<title>{escape(label)}: min {lo:.4g}, max {hi:.4g}</title></svg>")
    return "".join(parts)
