"""Copies of bundles that keep only a share of their traces, as a tracer sampling at the head does.

    python -m bench.trace_sampling SRC DST [--keep 0.1]

Many tracing setups keep 1-10 % of requests (a head sampler decides once per
trace, at its root), so a service called a few times a minute leaves a handful
of spans in an incident's window, and each aggregate the spans are compared on
rests on a few calls. Each bundle is copied with the same whole traces kept in
every run (a trace is kept when a hash of its id falls under `--keep`);
everything else is copied as it is. The check: what the engine ranks when the
spans are thin, against the same incidents with all of them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import zlib
from pathlib import Path

from bench.bundle_copies import copy_each

TRACES = "traces.jsonl"


def kept(trace_id: str, keep: float) -> bool:
    """Whether a head sampler keeping `keep` of the traces keeps this one: the same answer for every span of it."""
    return zlib.crc32(trace_id.encode()) < keep * 2**32


def copy_bundle(src: Path, dst: Path, keep: float) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        target = dst / item.name
        if item.is_dir():
            shutil.copytree(item, target, dirs_exist_ok=True)
        elif item.name == TRACES:
            with item.open() as lines, target.open("w") as out:
                out.writelines(line for line in lines if line.strip() and kept(json.loads(line)["trace_id"], keep))
        else:
            shutil.copyfile(item, target)


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"a share of the traces, in (0, 1]: {text!r}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="a directory of bundles")
    parser.add_argument("dst", type=Path, help="where the copies go (created)")
    parser.add_argument("--keep", type=_share, default=0.1, help="share of the traces kept (default 0.1)")
    args = parser.parse_args()
    copy_each(parser, args.src, args.dst, lambda src, dst: copy_bundle(src, dst, args.keep))


if __name__ == "__main__":
    main()
