"""`sources_check`: `rootward sources check` for an assistant, the very same lines.

It calls `sources/check.check_sources`, the function behind the CLI verb and
the console's sources page, so the three never disagree: per configured
connector whether it is reachable, accepts the credentials and how fast it
answered; per service what each source holds about it. The lines are the
CLI's `--json` lines, and `text` is what the CLI prints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from rootward.sources.check import CheckLine, check_sources, render_lines
from rootward.sources.resilience import ConnectorSettings
from rootward.sources.settings import CONNECTORS


class SourcesReport(BaseModel):
    lines: list[CheckLine] = Field(
        description="One verdict per line (ok | warn | fail | skip), as `rootward sources check --json` prints them"
    )
    text: str = Field(description="The check as `rootward sources check` prints it")
    failed: bool = Field(description="A line failed: the CLI would exit 1")
    unconfigured: list[str] = Field(description="Connectors with no section in the config")


def sources_report(sections: Mapping[str, ConnectorSettings], services: Sequence[str] = ()) -> SourcesReport:
    lines = check_sources(sections, services) if sections else []
    return SourcesReport(
        lines=lines,
        text=render_lines(lines) if lines else "no source configured",
        failed=any(line.verdict == "fail" for line in lines),
        unconfigured=[c.name for c in CONNECTORS if c.name not in sections],
    )
