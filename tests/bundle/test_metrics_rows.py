"""metrics.csv split on commas reads the same rows as `csv.reader`, and the same errors."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from rootward.bundle.format import BundleError
from rootward.bundle.validate import _csv_rows, parse_metrics
from rootward.engine.entry_point import investigate_bundle
from tests.conftest import EXAMPLES

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


@pytest.mark.parametrize("missing", ["NaN", "nan", "inf", "-Infinity", "null", "None", "NA", "N/A"])
def test_a_missing_or_infinite_value_is_no_sample(missing: str) -> None:
    """Exports write a gap as NaN or a word, and Prometheus' 0/0 is NaN: none of them is a measurement."""
    body = f"1,api,cpu,0.5\n2,api,cpu,{missing}\n3,api,cpu,0.7\n4,api,mem,{missing}\n"
    (cpu,) = parse_metrics(HEADER + body)  # the column reader (a plain file) and the row loop alike
    assert (cpu.timestamps, cpu.values) == ((1, 3), (0.5, 0.7))
    (quoted,) = parse_metrics(HEADER + body.replace("1,api", '1,"api"'))  # a quote: the row loop
    assert quoted == cpu


def test_an_investigation_of_a_bundle_with_nan_samples_completes(tmp_path: Path) -> None:
    bundle = tmp_path / "nan"
    shutil.copytree(EXAMPLES / "shop-connection-pool-exhaustion-00", bundle)
    lines = (bundle / "metrics.csv").read_text().splitlines()
    gaps = {0: "NaN", 3: "inf"}  # a gap as pandas writes it, and an overflowed rate
    rows = [lines[0]] + [
        ",".join([*r.split(",")[:3], gaps[n % 7]]) if n % 7 in gaps else r for n, r in enumerate(lines[1:])
    ]
    (bundle / "metrics.csv").write_text("\n".join(rows) + "\n")
    result = investigate_bundle(bundle)
    assert result.status != "failed" and result.hypotheses, result.gaps


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
