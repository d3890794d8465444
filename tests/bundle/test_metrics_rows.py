"""metrics.csv split on commas reads the same rows as `csv.reader`, and the same errors."""

from __future__ import annotations

import csv
import io

import pytest

from rootward.bundle.format import BundleError
from rootward.bundle.validate import _csv_rows, parse_metrics

HEADER = "timestamp,service,metric,value\n"


@pytest.mark.parametrize(
    "text",
    [
        HEADER + "1,api,cpu,0.5\n2,api,cpu,0.7\n",
        HEADER + "1,api,cpu,0.5\n\n2,api,cpu,0.7",  # a blank line, no final newline
        HEADER + "1,api,cpu, 0.5 ,extra\n,,,\n",  # spaces kept, extra and empty columns
        HEADER + '1,"api,x",cpu,0.5\n',  # quoted: csv.reader itself
        HEADER + "1,api,cpu,0.5\r\n2,api,cpu,0.7\r\n",  # CRLF: csv.reader itself
        "",
    ],
)
def test_rows_are_what_csv_reader_reads(text: str) -> None:
    assert list(_csv_rows(text)) == list(csv.reader(io.StringIO(text)))


def test_series_are_grouped_and_sorted() -> None:
    (cpu, mem) = parse_metrics(HEADER + "2,api,cpu,0.7\n1,api,cpu,0.5\n1,api,mem,9\n")
    assert (cpu.metric, cpu.timestamps, cpu.values) == ("cpu", (1, 2), (0.5, 0.7))
    assert (mem.metric, mem.timestamps, mem.values) == ("mem", (1,), (9.0,))


def test_an_empty_value_is_no_sample() -> None:
    (cpu,) = parse_metrics(HEADER + "1,api,cpu,0.5\n2,api,cpu,\n3,api,cpu, \n4,api,cpu,0.7\n")
    assert (cpu.timestamps, cpu.values) == ((1, 4), (0.5, 0.7))
    assert parse_metrics(HEADER + "1,api,cpu,\n") == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("1,api,cpu,0.5\n\nx,api,cpu,1\n", "line 4: timestamp 'x' is not epoch seconds"),
        ("1,api,cpu\n", "line 2: expected 4 columns, got 3"),
        ("1,api,cpu,abc\n", "line 2: value 'abc' is not a number"),
        ("1,,cpu,1\n", "line 2: service and metric must not be empty"),
    ],
)
def test_errors_name_the_line(body: str, message: str) -> None:
    with pytest.raises(BundleError, match=f"^metrics.csv {message}"):
        parse_metrics(HEADER + body)
