"""Each service's log templates, found once for every reading of its lines.

Three readings of the same lines need their templates: the failure signals
(`log_signals`), the template shifts at the onset (`log_shifts`) and the code
path of each call (`log_span_paths`). Clustering each service's lines once and
letting all three look a line's template up costs a third of clustering them
three times (on a bundle of 20,000 lines that is ~0.2 s before the first
hypothesis), and it also makes the three agree: a template the shifts name is
the same one the signals and the span paths name, learned from every line of
the service rather than from each reading's own subset of them.

Only the shifts read every line of a service; the failure signals read a
sample of at most 1,200 and the span paths only the lines naming a span the
trace store kept. So the shifts fill the book (`assign`), and the other two
look up what it holds (`assign_known`) and otherwise cluster their own lines
as without a book: where the shifts have nothing to compare (real data whose
logs cover only the minutes after the onset) nobody clusters 20,000 lines to
read 1,200 of them. A line the book was not built from is not guessed at
either: those records are clustered on their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rootward.context.logs import ClusterConfig, assign_templates
from rootward.domain.telemetry import LogRecord


class TemplateBook:
    """Templates per (service, message), each service clustered on first use (`logs.assign_templates`)."""

    def __init__(self, records: Iterable[LogRecord], config: ClusterConfig | None = None) -> None:
        self._config = config or ClusterConfig()
        self._lines: dict[str, list[str]] = {}
        for record in records:
            self._lines.setdefault(record.service, []).append(record.message)
        self._of: dict[str, dict[str, int]] = {}  # service -> message -> template id
        self._templates: dict[int, str] = {}

    def _service(self, service: str) -> dict[str, int]:
        found = self._of.get(service)
        if found is None:
            messages = self._lines.get(service, [])
            assignment, templates = assign_templates(messages, self._config)
            # Fresh ids, unique across services: a service's own ids need not run 0..n-1 (merged and
            # split templates keep or take others), so offsetting them could land on another's.
            fresh = {cid: len(self._templates) + i for i, cid in enumerate(templates)}
            self._templates.update((fresh[cid], template) for cid, template in templates.items())
            found = self._of[service] = {m: fresh[cid] for m, cid in zip(messages, assignment, strict=True)}
        return found

    def assign(self, records: Sequence[LogRecord]) -> tuple[list[int], dict[int, str]]:
        """Each record's template id and the templates by id (the shape of `logs.assign_templates`),
        clustering every line of the records' services that has not been yet."""
        return self._looked_up(records, learn=True)

    def assign_known(self, records: Sequence[LogRecord]) -> tuple[list[int], dict[int, str]]:
        """As `assign` where the records' services are clustered already; else the records alone."""
        return self._looked_up(records, learn=False)

    def _looked_up(self, records: Sequence[LogRecord], *, learn: bool) -> tuple[list[int], dict[int, str]]:
        ids: list[int] = []
        for record in records:
            of = self._service(record.service) if learn else self._of.get(record.service)
            found = None if of is None else of.get(record.message)
            if found is None:  # a service not clustered yet, or a line the book was not built from
                return assign_templates((r.message for r in records), self._config)
            ids.append(found)
        return ids, self._templates
