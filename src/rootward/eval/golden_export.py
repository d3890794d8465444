"""Rated incidents become new golden bundles: the data the investigation ran on plus a
truth.json written from the human's feedback (the corrected root cause, or the accepted one).
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from typing import Any


def truth_from_feedback(result: dict[str, Any], verdict: str, entity: str | None, fault: str | None) -> dict[str, Any]:
    top = (result.get("hypotheses") or [{}])[0]
    if verdict == "wrong" or entity:
        chosen = {"entity": entity or top.get("entity", ""), "fault_type": fault or top.get("fault_type", "")}
    else:
        chosen = {"entity": top.get("entity", ""), "fault_type": top.get("fault_type", "")}
    return {"root_cause": chosen, "also_acceptable": [], "notes": f"from console feedback ({verdict})"}


def add_bundle(tar: tarfile.TarFile, bundle_dir: Path, name: str, truth: dict[str, Any]) -> None:
    for file in sorted(bundle_dir.rglob("*")):
        if file.is_file() and file.name != "truth.json":
            tar.add(file, arcname=f"{name}/{file.relative_to(bundle_dir).as_posix()}")
    data = json.dumps(truth, indent=1).encode()
    info = tarfile.TarInfo(f"{name}/truth.json")
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def export_archive(items: list[tuple[str, Path, dict[str, Any]]]) -> bytes:
    """`items`: (bundle name, bundle directory, truth) → a .tar.gz of bundles, one folder each."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, bundle_dir, truth in items:
            add_bundle(tar, bundle_dir, name, truth)
    return buf.getvalue()
