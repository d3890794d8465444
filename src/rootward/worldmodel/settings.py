"""Configuration of the world model: the `worldmodel:` section of rootward.yaml.

Kept in this package (not in `rootward.settings`) so the world model owns its
fields; the root settings only list the section. The model forbids unknown
keys like every other section, so a typo in the kill switch fails at start
instead of silently leaving remediation on.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rootward.worldmodel.risk.settings import RiskSettings


class WorldModelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    disabled: bool = Field(
        default=False,
        description="Kill switch. True: every remediation proposal is withheld (fails closed) while "
        "triage and investigation go on (fails open).",
    )
    topology_files: list[Path] = Field(
        default_factory=list,
        description="topology.yaml files seeded by `rootward graph seed` as the `topology_file` layer.",
    )
    operator_files: list[Path] = Field(
        default_factory=list,
        description="topology.yaml files of edges declared by operators (layer `operator`, confidence 0.85).",
    )
    layer_ttl_s: dict[str, float] = Field(
        default_factory=lambda: {
            "kubernetes": 3600.0,
            "inventory": 7 * 86400.0,
            "topology_file": 7 * 86400.0,
            "operator": 30 * 86400.0,
            "traces": 86400.0,
            "learned": 14 * 86400.0,
        },
        description="Seconds an edge claim of each layer stays valid unless re-seeded.",
    )
    trace_lookback_s: float = Field(
        default=3600.0,
        gt=0.0,
        description="`rootward graph seed` reads this much of the configured trace source's spans for call edges.",
    )
    min_probability: float = Field(
        default=0.05,
        ge=0.0,
        le=1.0,
        description="Entities below this predicted probability are left out of a blast radius.",
    )
    max_depth: int = Field(default=6, ge=1, description="Hops a predicted cascade may travel.")
    autonomy_window: int = Field(
        default=10,
        ge=1,
        description="An opted-in action class runs without a human only after this many consecutive `match` verdicts.",
    )
    autonomous_classes: list[str] = Field(
        default_factory=list,
        description="Action classes (`verb:entity_kind`, e.g. `restart:service`) the operator opts in to "
        "earned autonomy. Empty: every action needs a human.",
    )
    risk: RiskSettings = Field(
        default_factory=RiskSettings,
        description="The predictive risk report (`rootward risk report`, daily in `serve`): queries, horizons.",
    )
