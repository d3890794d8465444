from __future__ import annotations

from rootward.web.charts import metric_svg

T0 = 1_780_660_800  # 2026-06-05 12:00 UTC


def test_chart_labels_range_baseline_and_cited_window_in_utc() -> None:
    data = {
        "t": [T0 + 60 * i for i in range(30)],
        "v": [100.0] * 15 + [900.0] * 15,
        "baseline": 100.0,
        "window": [T0 + 60 * 15, T0 + 60 * 25],
    }
    svg = metric_svg(data, "payment latency_p99_ms")
    assert svg.startswith('<svg class="chart"') and svg.endswith("</svg>")
    assert ">900<" in svg and ">100<" in svg  # value range
    assert "baseline 100" in svg
    assert ">12:15<" in svg and ">12:25<" in svg  # the cited window
    assert ">12:00<" in svg and "12:29 UTC" in svg  # the series
    assert 'class="window"' in svg


def test_chart_escapes_its_label_and_needs_two_points() -> None:
    svg = metric_svg({"t": [T0, T0 + 60], "v": [1.0, 2.0]}, '<script>"x"</script>')
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert metric_svg({"t": [T0], "v": [1.0]}, "one point") == ""
