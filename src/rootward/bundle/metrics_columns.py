"""metrics.csv read a column at a time, for the files where that reads the same series as the row loop.

A 1 Hz bundle with hundreds of series holds around a million rows, and the
row-by-row reading of `validate.parse_metrics` spent seconds of the first
hypothesis's budget on them. Most files are plain: the exact header, four
fields a line, no quotes, no blank lines, every field well formed. Such a file
is cut into chunks of whole lines; each chunk becomes one flat list of fields
(`str.split` once), whose four columns are slices of it, converted with `map`
(`float`, and one `int(float(...))` per distinct timestamp), and kept as
numpy columns, so neither the text's rows nor a tuple per sample outlive their
chunk. The series are then cut out of the columns by one stable sort.

Anything else (a quote, a carriage return, a blank line, a short or long row,
an empty name, a field that does not convert) returns None and the caller
reads the file row by row: that loop alone decides what an odd file means and
which error names which line, so messages do not change either.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator

import numpy as np

from rootward.domain.telemetry import MetricSeries

HEADER = "timestamp,service,metric,value"
CHUNK_CHARS = 1 << 20  # ~16,000 rows: their flat list of fields is a few MB
_NEWLINE, _COMMA, _RETURN = ord("\n"), ord(","), ord("\r")


class _Epochs(dict[bytes, int]):
    """Timestamp field to epoch seconds, each distinct one converted once (a scrape repeats it per series)."""

    def __missing__(self, raw: bytes) -> int:
        value = self[raw] = int(float(raw))
        return value


class _Keys(dict[tuple[bytes, bytes], int]):
    """(service, metric) fields to a series number, numbered in order of first appearance."""

    def __missing__(self, key: tuple[bytes, bytes]) -> int:
        number = self[key] = len(self)
        return number


def read_metric_columns(text: str) -> list[MetricSeries] | None:
    """The series of a plain metrics.csv, sorted by (service, metric), samples by time; None when not plain."""
    newline = _newline(text)
    if newline is None or '"' in text or "\0" in text:
        return None
    epochs, keys = _Epochs(), _Keys()
    ids: list[np.ndarray] = []
    times: list[np.ndarray] = []
    values: list[np.ndarray] = []
    try:
        for chunk in _chunks(text, len(HEADER) + len(newline)):
            columns = _columns(chunk, newline, epochs.__getitem__, keys.__getitem__)
            if columns is None:
                return None
            ids.append(columns[0])
            times.append(columns[1])
            values.append(columns[2])
    except (ValueError, OverflowError):  # a field `float` refuses, or an epoch past int64: the row loop says which
        return None
    if not keys:
        return []
    names = [(service.decode("utf-8"), metric.decode("utf-8")) for service, metric in keys]
    all_ids, all_times, all_values = np.concatenate(ids), np.concatenate(times), np.concatenate(values)
    finite = np.isfinite(all_values)
    if not bool(finite.all()):  # NaN and infinities are no samples (`validate.parse_metrics`)
        all_ids, all_times, all_values = all_ids[finite], all_times[finite], all_values[finite]
    return _series(names, all_ids, all_times, all_values)


def _newline(text: str) -> str | None:
    """What the header line ends with, "\n" or "\r\n" (as Nezha's files); every row must end the same way.

    `csv.reader` ends a row at either, so a file of one kind splits on it into
    the rows it reads; `_columns` checks each chunk holds no other carriage return.
    """
    if text.startswith(HEADER + "\n"):
        return "\n"
    return "\r\n" if text.startswith(HEADER + "\r\n") else None


def _chunks(text: str, start: int) -> Iterator[str]:
    """`text[start:]` in pieces of whole lines (the last may lack its newline)."""
    size = len(text)
    while start < size:
        cut = text.find("\n", start + CHUNK_CHARS)
        stop = size if cut < 0 else cut + 1
        yield text[start:stop]
        start = stop


def _columns(
    chunk: str, newline: str, epoch_of: Callable[[bytes], int], key_of: Callable[[tuple[bytes, bytes]], int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(series number, epoch, value) of every row of `chunk`, or None when a row is not four plain fields.

    The fields are split as bytes (UTF-8 never has a newline or comma inside
    a character), a third faster than as text; `float` reads an ASCII field's
    bytes as it reads its text, and refuses a non-ASCII one (Unicode digits,
    which only text reads), which leaves that file to the row loop.
    """
    data = chunk.encode("utf-8")
    raw = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(raw == _NEWLINE)
    ends = newlines if chunk.endswith("\n") else np.append(newlines, len(raw))
    begins = np.concatenate(([0], ends[:-1] + 1))
    commas = np.flatnonzero(raw == _COMMA)
    per_line = np.searchsorted(commas, ends) - np.searchsorted(commas, begins)
    if (per_line != 3).any() or int((ends - begins).max()) > csv.field_size_limit():
        return None  # a blank line, a row of other than four fields, a field over the csv module's limit
    returns = np.flatnonzero(raw == _RETURN)
    if newline == "\n" and len(returns):
        return None
    if newline == "\r\n" and (len(returns) != len(newlines) or (raw[newlines - 1] != _RETURN).any()):
        return None  # a carriage return that does not end a line, or a line it does not end
    fields = data.replace(newline.encode(), b",").split(b",")
    if chunk.endswith("\n"):
        fields.pop()  # what follows the last newline
    services, metrics = fields[1::4], fields[2::4]
    if b"" in services or b"" in metrics:
        return None
    rows = len(ends)
    numbers = np.fromiter(map(key_of, zip(services, metrics, strict=True)), dtype=np.int64, count=rows)
    epochs = np.fromiter(map(epoch_of, fields[0::4]), dtype=np.int64, count=rows)
    samples = np.fromiter(map(float, fields[3::4]), dtype=np.float64, count=rows)
    return numbers, epochs, samples


def _series(keys: list[tuple[str, str]], ids: np.ndarray, times: np.ndarray, values: np.ndarray) -> list[MetricSeries]:
    """One `MetricSeries` per key, in key order; a stable sort by series number keeps each one's file order."""
    order = np.argsort(ids, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(ids, minlength=len(keys)))))
    out: list[MetricSeries] = []
    for number in sorted(range(len(keys)), key=keys.__getitem__):
        picked = order[bounds[number] : bounds[number + 1]]
        if not picked.size:
            continue  # every value of it was NaN: a series with no samples is no series
        stamps, samples = _in_time_order(times[picked], values[picked])
        service, metric = keys[number]
        out.append(MetricSeries(service=service, metric=metric, timestamps=stamps, values=samples))
    return out


def _in_time_order(ts: np.ndarray, vs: np.ndarray) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """A series' samples sorted as the row loop sorts its (time, value) pairs.

    Samples at distinct times are ordered by time alone, which a stable sort
    does; two samples at the same time are ordered by value, and those series
    go through the pairs' own sort (NaN included, it compares as it did).
    """
    if not bool(np.all(ts[1:] > ts[:-1])):
        by_time = np.argsort(ts, kind="stable")
        if not bool(np.all(ts[by_time][1:] > ts[by_time][:-1])):
            stamps, samples = zip(*sorted(zip(ts.tolist(), vs.tolist(), strict=True)), strict=True)
            return stamps, samples
        ts, vs = ts[by_time], vs[by_time]
    return tuple(ts.tolist()), tuple(vs.tolist())
