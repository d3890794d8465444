"""What the engine's stages are given rather than reach for: the reasoner, the world model, its settings, budgets.

A caller (the CLI, the evaluation harness, a worker) builds one `EngineDeps`
from the settings it loaded and passes it to every stage; nothing in the
engine reads a module-global reasoner or loads a configuration file of its
own, so a worker started with `--config X` investigates with X throughout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rootward.engine.budget import BudgetLimits
from rootward.engine.reasoner import Reasoner, RuleReasoner
from rootward.worldmodel.dynamics import Dynamics
from rootward.worldmodel.graph import WorldGraph
from rootward.worldmodel.settings import WorldModelSettings

# What the deployment knows of its world: the stored multi-layer graph and learned dynamics
# (the runtime loads them from the database). Either may be None.
WorldModelSource = Callable[[], tuple[WorldGraph | None, Dynamics | None]]


@dataclass(frozen=True)
class EngineDeps:
    """The defaults are rule mode, no stored world model, the default world-model settings and budgets."""

    reasoner: Reasoner = field(default_factory=RuleReasoner)
    world: WorldModelSource | None = None
    worldmodel: WorldModelSettings = field(default_factory=WorldModelSettings)
    limits: BudgetLimits = field(default_factory=BudgetLimits)
