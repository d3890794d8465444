"""Ground truth of a bundle: the only code in rootward that opens `truth.json`.

The investigation never sees this file (the loader refuses it and the runner
hands the engine a copy of the bundle without it); the scorer reads it here.
"""

from __future__ import annotations

import json
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRUTH_FILE = "truth.json"
NO_FAULT = "no_fault"


@dataclass(frozen=True)
class Truth:
    entity: str
    fault_type: str
    also_acceptable: tuple[tuple[str, str], ...] = ()
    notes: str = ""
    topology: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    no_fault: bool = False  # nothing is broken: the right answer is the `no_fault` verdict

    @property
    def answers(self) -> tuple[tuple[str, str], ...]:
        """Every (entity, fault_type) pair that counts as right."""
        if self.no_fault:
            return ()
        return ((self.entity, self.fault_type), *self.also_acceptable)

    @property
    def entities(self) -> frozenset[str]:
        return frozenset(e for e, _ in self.answers)


class TruthMissing(FileNotFoundError):
    """The bundle has no truth.json, so it cannot be scored."""


def parse_truth(text: str, where: str = TRUTH_FILE) -> Truth:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON ({exc.msg})") from None
    if isinstance(data, dict) and _says_no_fault(data):
        return Truth(
            entity="",
            fault_type=NO_FAULT,
            notes=str(data.get("notes") or ""),
            topology=str(data.get("topology") or ""),
            extra={k: v for k, v in data.items() if k not in ("root_cause", "notes", "topology", "no_fault")},
            no_fault=True,
        )
    root = data.get("root_cause") if isinstance(data, dict) else None
    if not isinstance(root, dict) or "entity" not in root or "fault_type" not in root:
        raise ValueError(f"{where}: field 'root_cause' must have 'entity' and 'fault_type'")
    also = []
    for i, item in enumerate(data.get("also_acceptable") or []):
        if not isinstance(item, dict) or "entity" not in item or "fault_type" not in item:
            raise ValueError(f"{where}: also_acceptable item {i} must have 'entity' and 'fault_type'")
        also.append((str(item["entity"]), str(item["fault_type"])))
    known = {"root_cause", "also_acceptable", "notes", "topology"}
    return Truth(
        entity=str(root["entity"]),
        fault_type=str(root["fault_type"]),
        also_acceptable=tuple(also),
        notes=str(data.get("notes") or ""),
        topology=str(data.get("topology") or ""),
        extra={k: v for k, v in data.items() if k not in known},
    )


def _says_no_fault(data: dict[str, Any]) -> bool:
    """`"no_fault": true`, `"status": "no_fault"`, or a root cause whose fault type says there is none."""
    if data.get("no_fault") is True or data.get("status") == NO_FAULT:
        return True
    root = data.get("root_cause")
    return isinstance(root, dict) and str(root.get("fault_type", "")).lower() in (NO_FAULT, "none", "healthy")


def has_truth(bundle: str | Path) -> bool:
    """Whether a bundle directory or archive carries a truth.json (without reading it)."""
    path = Path(bundle)
    if path.is_dir():
        return (path / TRUTH_FILE).is_file()
    try:
        with tarfile.open(path, "r:gz") as tar:
            return any(Path(m.name).name == TRUTH_FILE and m.isfile() for m in tar.getmembers())
    except (tarfile.TarError, OSError):
        return False


def read_truth(bundle: str | Path) -> Truth:
    """Read the truth of a bundle directory or `.tar.gz`."""
    path = Path(bundle)
    if path.is_dir():
        file = path / TRUTH_FILE
        if not file.is_file():
            raise TruthMissing(f"{path}: no {TRUTH_FILE}")
        return parse_truth(file.read_text(encoding="utf-8"), str(file))
    with tarfile.open(path, "r:gz") as tar:
        members = [m for m in tar.getmembers() if Path(m.name).name == TRUTH_FILE and m.isfile()]
        if not members:
            raise TruthMissing(f"{path}: no {TRUTH_FILE} in the archive")
        member = min(members, key=lambda m: len(Path(m.name).parts))
        fh = tar.extractfile(member)
        assert fh is not None
        return parse_truth(fh.read().decode("utf-8"), f"{path.name}:{member.name}")
