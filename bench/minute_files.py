"""Copies of bundles whose spans and log lines survive only in a few minute blocks, as Nezha's snapshot kept them.

    python -m bench.minute_files SRC DST [--block 3] [--lead 2] [--earlier 8,16]

Nezha records logs and traces in one file a minute, and its published snapshot
kept only the files of each injection minute and the two after it. Its windows
(twenty minutes before an injection to ten after) therefore hold spans and log
lines in three-minute blocks: the incident's own first three minutes, and, as
the only baseline, the blocks of the injections five to ten minutes apart
before it. Metrics, alerts and the rest are complete. A method that needs spans
or lines over the whole window, or a long clean stretch of them before the
onset, reads little on such data; these copies measure how much.

Nezha's converted alerts fire two minutes after the injection, so the
incident's block here starts `--lead` minutes before the first alert, or at the
fault's onset (`truth.json`'s `fault_onset`) where that is later (an unrelated
alert fired first), and earlier blocks start `--earlier` minutes before that.
Each copy keeps the spans (whole traces: a trace goes with its first span's
minute) and the log lines whose time falls in a block of `--block` minutes;
everything else is copied as it is. A real bundle holds 10,000-20,000 spans in
its blocks: copy bundles generated with about six times the span budget, or the
blocks are thinner than real data.

The earlier blocks here hold the bundle's own normal behaviour, where Nezha's
hold the previous injections' faults. Filling them with other simulated
bundles' incident blocks does not stand in for that: two bundles of one map
differ in their call mix (one where a caller's calls end at a callee 29 % of
the time, another 0 %), so every such difference reads as a change.
"""

from __future__ import annotations

import argparse
import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

from bench.bundle_copies import copy_each
from rootward.bundle.load import load_bundle

BLOCK_MIN = 3
LEAD_MIN = 2
EARLIER_MIN = (8, 16)


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def blocks(first: datetime, block_min: int, earlier_min: tuple[int, ...]) -> list[tuple[datetime, datetime]]:
    """The [start, end) stretches whose spans and lines survive: the incident's, and one at each earlier offset."""
    starts = [first] + [first - timedelta(minutes=m) for m in earlier_min]
    return sorted((s, s + timedelta(minutes=block_min)) for s in starts)


def _kept(at: datetime, keep: list[tuple[datetime, datetime]]) -> bool:
    return any(start <= at < end for start, end in keep)


def _copy_spans(src: Path, dst: Path, keep: list[tuple[datetime, datetime]]) -> None:
    spans = [json.loads(line) for line in src.read_text().splitlines() if line.strip()]
    began: dict[str, datetime] = {}  # a trace's minute is its first span's (its root's, where it has one)
    for span in spans:
        at, trace = _when(str(span["start"])), str(span["trace_id"])
        began[trace] = min(at, began.get(trace, at))
    kept = [s for s in spans if _kept(began[str(s["trace_id"])], keep)]
    dst.write_text("".join(json.dumps(s) + "\n" for s in kept))


def _copy_lines(src: Path, dst: Path, keep: list[tuple[datetime, datetime]]) -> None:
    kept = [
        line for line in src.read_text().splitlines() if line.strip() and _kept(_when(json.loads(line)["ts"]), keep)
    ]
    dst.write_text("".join(line + "\n" for line in kept))


def incident_block_start(src: Path, lead_min: int = LEAD_MIN) -> datetime:
    """Where the incident's block starts: `lead_min` before the first alert, but not before the fault.

    Nezha's alert fires two minutes after the injection, so its block starts at the
    injection. A simulated fault may show (and alert) later than its onset, or an
    unrelated alert may fire first: the block starts at the later of the two, the
    fault's onset (`truth.json`'s `fault_onset`, where there is one) and `lead_min`
    before the first alert.
    """
    alerts = load_bundle(src).alerts
    if not alerts:
        raise ValueError(f"{src}: alerts.json has no alert to place the blocks at")
    start = min(a.starts_at for a in alerts) - timedelta(minutes=lead_min)
    truth = src / "truth.json"
    onset = json.loads(truth.read_text()).get("fault_onset") if truth.exists() else None
    return max(start, _when(onset)) if onset else start


def copy_bundle(
    src: Path,
    dst: Path,
    block_min: int = BLOCK_MIN,
    lead_min: int = LEAD_MIN,
    earlier_min: tuple[int, ...] = EARLIER_MIN,
) -> None:
    """One bundle with spans and lines only in the blocks, written to `dst` (replaced if it exists)."""
    keep = blocks(incident_block_start(src, lead_min), block_min, earlier_min)
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    if (src / "traces.jsonl").exists():
        _copy_spans(src / "traces.jsonl", dst / "traces.jsonl", keep)
    if (src / "logs.jsonl").exists():
        _copy_lines(src / "logs.jsonl", dst / "logs.jsonl", keep)


def _minutes(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of whole minutes: {text!r}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="a directory of bundles")
    parser.add_argument("dst", type=Path, help="where the copies go (created)")
    parser.add_argument("--block", type=int, default=BLOCK_MIN, help="minutes a block lasts")
    parser.add_argument(
        "--lead", type=int, default=LEAD_MIN, help="minutes before the first alert the incident's block starts"
    )
    parser.add_argument(
        "--earlier",
        type=_minutes,
        default=EARLIER_MIN,
        help="minutes before the incident's block each earlier one starts",
    )
    args = parser.parse_args()
    copy_each(parser, args.src, args.dst, lambda src, dst: copy_bundle(src, dst, args.block, args.lead, args.earlier))


if __name__ == "__main__":
    main()
