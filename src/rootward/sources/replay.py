"""Replay: investigate a simulated or recorded incident against its own bundle.

`rootward sim stream` and `serve --demo` post alerts that name their bundle
in the `rootward_bundle` annotation. When that bundle lies inside one of the
configured replay directories, the investigation reads the bundle instead of
the live sources, so a demo server shows real RCAs. Paths outside those
directories are ignored: an alert annotation can never make rootward read
an arbitrary file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

ANNOTATION = "rootward_bundle"


class ReplaySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dirs: list[Path] = Field(
        default_factory=list,
        description="Directories whose bundles alerts may name (annotation rootward_bundle) to be "
        "investigated against that bundle instead of the live sources. `serve --demo` adds its own.",
    )
    simulated_dirs: list[Path] = Field(
        default_factory=list,
        description="Those of `dirs` that hold simulator output: their incidents are marked simulated, never "
        "filed into the knowledge base nor learned from. `serve --demo` adds its own.",
    )

    def source_of(self, bundle: Path) -> str:
        """`simulated` for a bundle under a simulated dir, else `replay` (a recorded incident replayed)."""
        path = bundle.resolve()
        return "simulated" if any(path.is_relative_to(d.resolve()) for d in self.simulated_dirs) else "replay"


def replay_bundle(annotations: Iterable[Mapping[str, object]], settings: ReplaySettings) -> Path | None:
    """The first named bundle that lies inside an allowed directory, else None."""
    roots = [d.resolve() for d in settings.dirs]
    for ann in annotations:
        raw = ann.get(ANNOTATION)
        if not raw:
            continue
        path = Path(str(raw)).resolve()
        if any(path.is_relative_to(root) for root in roots) and (path / "incident.yaml").is_file():
            return path
    return None
