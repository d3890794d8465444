"""Each service's log templates, found once for every reading of its lines.

Three readings of the same lines need their templates: the failure signals
(`log_signals`), the template shifts at the onset (`log_shifts`) and the code
path of each call (`log_span_paths`). Clustering each service's lines once and
letting all three look a line's template up costs a third of clustering them
three times (on a bundle of 20,000 lines that is ~0.2 s before the first
hypothesis), and it also makes the three agree: a template the shifts name is
the same one the signals and the span paths name, learned from every line of
the service rather than from each reading's own subset of them.

A line the book was not built from (a caller passing other records) is not
guessed at: those records are clustered on their own, as without a book.
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
            assignment, templates = assign_templates(self._lines.get(service, ()), self._config)
            base = len(self._templates)  # ids unique across services
            self._templates.update((base + cid, template) for cid, template in templates.items())
            messages = self._lines.get(service, ())
            found = self._of[service] = {m: base + cid for m, cid in zip(messages, assignment, strict=True)}
        return found

    def assign(self, records: Sequence[LogRecord]) -> tuple[list[int], dict[int, str]]:
        """Each record's template id, and the templates by id (the shape of `logs.assign_templates`)."""
        ids: list[int] = []
        for record in records:
            found = self._service(record.service).get(record.message)
            if found is None:  # not a line the book was built from
                return assign_templates((r.message for r in records), self._config)
            ids.append(found)
        return ids, self._templates
