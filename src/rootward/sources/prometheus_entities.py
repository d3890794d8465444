"""Which series Prometheus holds about one entity, and which metric templates they satisfy.

Stacks name a service with different labels (`service`, `job`, `app`,
`service_name`...) and a host with others (`node`, `instance` with its port).
For an entity the first label in the configured order whose matcher selects any
series names it; the metric names under that matcher (one `/api/v1/label/__name__/values`
call, an index lookup) say which templates can answer. A template with its own
matchers (`container="{service}"`) is checked the same way, one lookup per
distinct matcher set. Nothing here runs a range query.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from rootward.sources.metric_templates import Template

# Metric names under a matcher list (`job="orders"`): the connector's label-values lookup.
NameLookup = Callable[[str], set[str]]
# Raw names not worth a series of their own: timestamps, constant info, the scrape's and the rule
# engine's bookkeeping, and the client libraries' runtime internals (their CPU and memory come from templates).
_NOT_SIGNALS = re.compile(r"(_created|_info|_bucket)$|^(scrape_|ALERTS|go_|python_|process_|promhttp_)|^up$")


def escape_label_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def label_matcher(label: str, entity: str) -> str:
    """`job="orders"`; for `instance`, the host with or without its port."""
    if label == "instance":
        return f'instance=~"{escape_label_value(re.escape(entity))}(:[0-9]+)?"'
    return f'{label}="{escape_label_value(entity)}"'


def render(template: str, selector: str, by: str, entity: str, window: str = "5m") -> str:
    """Fill `{selector}`, `{by}`, `{service}` and `{window}`; PromQL's own braces stay untouched."""
    out = template.replace("{selector}", selector).replace("{service}", escape_label_value(entity))
    return out.replace("{by}", by).replace("{window}", window)


@dataclass
class EntityMatch:
    """An entity's naming matcher and the templates whose series exist for it."""

    entity: str
    kind: str  # service | host
    label: str = ""
    selector: str = ""
    names: set[str] = field(default_factory=set)  # metric names under the selector
    matched: list[Template] = field(default_factory=list)
    tried: list[Template] = field(default_factory=list)
    tried_labels: tuple[str, ...] = ()


def match_entity(
    entity: str,
    kind: str,
    templates: Sequence[Template],
    labels: Sequence[str],
    lookup: NameLookup,
) -> EntityMatch:
    """Find the label that names `entity` (first in `labels` with any series) and the templates it satisfies."""
    found = EntityMatch(entity, kind, tried_labels=tuple(labels))
    cache: dict[str, set[str]] = {}
    for label in labels:
        selector = label_matcher(label, entity)
        names = lookup(selector)
        cache[selector] = names
        if names:
            found.label, found.selector, found.names = label, selector, names
            break
    found.tried = [t for t in templates if t.entity == kind]
    for template in found.tried:
        if _satisfied(template, found, cache, lookup):
            found.matched.append(template)
    return found


def _satisfied(template: Template, found: EntityMatch, cache: dict[str, set[str]], lookup: NameLookup) -> bool:
    needs = template.needs
    if not needs:
        return False  # a template that reads nothing about the entity cannot be told apart from noise
    for name, matchers in needs:
        if any("{selector}" in m for m in matchers) and not found.selector:
            return False
        rendered = ",".join(render(m, found.selector, found.label, found.entity) for m in matchers)
        if rendered not in cache:
            cache[rendered] = lookup(rendered)
        if name not in cache[rendered]:
            return False
    return True


def host_namespaces(templates: Sequence[Template]) -> set[str]:
    """The metric namespaces the host templates read (`node` of node_exporter): a host's, not a service's."""
    return {name.split("_", 1)[0] + "_" for t in templates if t.entity == "host" for name, _ in t.needs}


def discoverable(found: EntityMatch, limit: int, foreign: Collection[str] = ()) -> list[str]:
    """Raw metric names to read beside the templates: not read by a matched template, not bookkeeping,
    not of a host exporter's namespace (`foreign`: the host agent's own scrape job is not a service)."""
    if found.kind == "host" or not found.selector or limit <= 0:
        return []  # a host's matcher also selects every service on it: only host templates are its own
    used = {name for t in found.matched for name, _ in t.needs}
    picked = sorted(
        n for n in found.names if n not in used and not _NOT_SIGNALS.search(n) and not n.startswith(tuple(foreign))
    )
    return picked[:limit]
