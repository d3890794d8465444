"""Copying every bundle of a directory through one transformation, for the check-set builders."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def copy_each(parser: argparse.ArgumentParser, src: Path, dst: Path, copy: Callable[[Path, Path], None]) -> None:
    """`copy(bundle, dst / bundle.name)` for each bundle under `src`, in name order, with progress.

    A directory with no bundle, or a bundle the copy cannot place (`ValueError`), is the
    command line's error: the check set would be silently incomplete otherwise.
    """
    bundles = sorted(p for p in src.iterdir() if (p / "incident.yaml").exists())
    if not bundles:
        parser.error(f"{src}: no bundles (directories with incident.yaml)")
    dst.mkdir(parents=True, exist_ok=True)
    for i, bundle in enumerate(bundles, 1):
        try:
            copy(bundle, dst / bundle.name)
        except ValueError as exc:
            parser.error(str(exc))
        print(f"[{i}/{len(bundles)}] {bundle.name}", flush=True)
