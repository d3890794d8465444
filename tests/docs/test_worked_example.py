"""The worked example in docs/investigation.md is the RCA the engine writes today, line for line."""

from __future__ import annotations

from rootward.engine.entry_point import investigate_bundle
from rootward.engine.rca import render_markdown
from tests.conftest import EXAMPLES, REPO

BUNDLE = EXAMPLES / "shop-connection-pool-exhaustion-00"


def test_the_worked_example_matches_the_current_output() -> None:
    doc = (REPO / "docs" / "investigation.md").read_text()
    shown = {
        line for line in doc.splitlines() if line.startswith(("> ", "- ")) and "[E" in line or line.startswith("> ")
    }
    output = render_markdown(investigate_bundle(BUNDLE)).splitlines()
    expected = [line for line in output if line.startswith("> ") or (line.startswith("- ") and line.endswith("]"))]
    expected = [line for line in expected if not line.startswith("- **")]  # evidence list items are not shown
    missing = [line for line in expected if line not in shown]
    assert not missing, "docs/investigation.md's worked example is stale; paste the current output:\n" + "\n".join(
        missing
    )
