"""metrics.csv read by columns gives the series the row loop gives, and leaves every odd file to it."""

from __future__ import annotations

import math

import pytest

from rootward.bundle import metrics_columns, validate
from rootward.bundle.format import BundleError
from rootward.bundle.metrics_columns import read_metric_columns
from rootward.domain.telemetry import MetricSeries

HEADER = "timestamp,service,metric,value\n"


def _row_by_row(text: str, monkeypatch: pytest.MonkeyPatch) -> list[MetricSeries]:
    with monkeypatch.context() as patch:
        patch.setattr(validate, "read_metric_columns", lambda _text: None)
        return validate.parse_metrics(text)


def _same(a: list[MetricSeries], b: list[MetricSeries]) -> bool:
    """Equal series, NaN equal to NaN (a NaN sample is never == itself)."""

    def key(s: MetricSeries) -> tuple[object, ...]:
        return (s.service, s.metric, s.timestamps, tuple("nan" if math.isnan(v) else v for v in s.values))

    return [key(s) for s in a] == [key(s) for s in b]


PLAIN = [
    HEADER + "2,api,cpu,0.7\n1,api,cpu,0.5\n1,api,mem,9\n",  # out of time order
    HEADER + "1,b,x,1\n1,a,y,2\n2,b,x,3\n2,a,y,4",  # no final newline, keys out of order
    HEADER.replace("\n", "\r\n") + "1,api,cpu,0.5\r\n2,api,cpu,0.7\r\n",  # CRLF, as Nezha's files
    HEADER + "1,api,cpu,3\n1,api,cpu,2\n1,api,cpu,nan\n0,api,cpu,1\n",  # ties at one time: ordered by value
    HEADER + "1.9,api,cpu,-0.0\n2.5,api,cpu,1e-300\n3,api,cpu, 4 \n4,api,cpu,1_000\n5,api,cpu,inf\n",
    HEADER + "1,émetteur,débit,1.5\n",  # UTF-8 names
    HEADER,
]


@pytest.mark.parametrize("text", PLAIN)
def test_a_plain_file_reads_as_the_row_loop_reads_it(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    columns = read_metric_columns(text)
    assert columns is not None
    assert _same(columns, _row_by_row(text, monkeypatch))


def test_series_are_read_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics_columns, "CHUNK_CHARS", 40)
    rows = [f"{t},svc{t % 3},m{t % 5},{t * 0.1}" for t in range(300, 0, -1)]
    text = HEADER + "\n".join(rows) + "\n"
    columns = read_metric_columns(text)
    assert columns is not None and len(columns) == 15
    assert _same(columns, _row_by_row(text, monkeypatch))


ODD = [
    HEADER + "1,api,cpu,0.5\n\n2,api,cpu,0.7\n",  # a blank line
    HEADER + "1,api,cpu,0.5,extra\n",  # a fifth column
    HEADER + '1,"api",cpu,0.5\n',  # quoted
    HEADER + "1,api,cpu,0.5\r\n2,api,cpu,0.7\n",  # mixed line ends
    HEADER + "1,api,cpu,0.5\r2,api,cpu,0.7\r",  # carriage returns alone
    "timestamp, service,metric,value\n1,api,cpu,0.5\n",  # a header the row loop strips
    HEADER + "1,api,cpu,abc\n",
    HEADER + "x,api,cpu,1\n",
    HEADER + "1,,cpu,1\n",
    HEADER + "1,api,cpu\n",
    HEADER + "1e30,api,cpu,1\n",  # past int64: the row loop keeps it
]


@pytest.mark.parametrize("text", ODD)
def test_anything_else_is_left_to_the_row_loop(text: str) -> None:
    assert read_metric_columns(text) is None


@pytest.mark.parametrize("value", ["\u0661.\u0665", "1.5\u2003", "\u00a01.5"])
def test_a_value_only_text_reads_still_reads(value: str) -> None:
    """Unicode digits and spaces: `float` reads them from text, not from bytes, so the row loop does."""
    text = HEADER + f"1,api,cpu,{value}\n"
    assert read_metric_columns(text) is None
    (series,) = validate.parse_metrics(text)
    assert series.values == (1.5,)


def test_an_epoch_past_int64_still_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    (series,) = validate.parse_metrics(HEADER + "1e30,api,cpu,1\n")
    assert series.timestamps == (int(1e30),)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("1,api,cpu,0.5\n2,api,cpu,0.6\nx,api,cpu,1\n", "line 4: timestamp 'x' is not epoch seconds"),
        ("1,api,cpu,0.5\r\n1,api,cpu\r\n", "line 3: expected 4 columns, got 3"),
        ("1,api,cpu,0.5\n1,api,cpu,abc\n", "line 3: value 'abc' is not a number"),
        ("1,api,cpu,0.5\n1,api,,1\n", "line 3: service and metric must not be empty"),
    ],
)
def test_errors_still_name_the_line(body: str, message: str) -> None:
    with pytest.raises(BundleError, match=f"^metrics.csv {message}$"):
        validate.parse_metrics(HEADER + body)
