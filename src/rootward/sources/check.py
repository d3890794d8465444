"""`rootward sources check`: is each configured source reachable, does it accept our credentials, how fast
is it, and what does it hold about the services that will alert.

One `CheckLine` per finding, each with a verdict a newcomer can act on: `ok`,
`warn` (it answers, but not about that service: a label mapping to fix), `fail`
(unreachable, refused, broken), `skip` (not asked because the source failed).
Every call goes through the connector itself (its guard, its auth, its
settings), so what the check says is what an investigation will meet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from rootward.sources.base import SourceUnavailable
from rootward.sources.resilience import ConnectorSettings
from rootward.sources.settings import CONNECTORS

Verdict = Literal["ok", "warn", "fail", "skip"]
LOOKBACK = timedelta(hours=1)
MAX_SERVICES = 20


@dataclass(frozen=True)
class CheckLine:
    source: str  # the connector's section name: prometheus, loki...
    subject: str  # "reachable" for the source itself, else the service asked about
    verdict: Verdict
    detail: str
    ms: float | None = None


@dataclass
class Probe:
    """What one connector answered: its own health line and the services it knows (None: cannot list)."""

    detail: str
    services: set[str] | None = None
    per_service: Callable[[str], tuple[Verdict, str]] | None = None
    notes: list[str] = field(default_factory=list)


def _auth_words(reason: str) -> str:
    if "HTTP 401" in reason or "HTTP 403" in reason:
        return f"credentials refused: {reason}"
    return reason


def check_sources(
    sections: Mapping[str, ConnectorSettings],
    services: Sequence[str] = (),
    *,
    now: datetime | None = None,
) -> list[CheckLine]:
    """Check every configured connector; per service, what it holds (the given ones, else what they list)."""
    end = now or datetime.now(UTC)
    start = end - LOOKBACK
    lines: list[CheckLine] = []
    probes: list[tuple[str, Probe | None]] = []
    built: list[Any] = []
    try:
        lines += _probe_all(sections, start, end, probes, built)
        for service in list(dict.fromkeys(services)) or _known_services(probes):
            lines += [_service_line(name, found, service) for name, found in probes]
    finally:
        for source in built:
            close = getattr(source, "close", None)
            if close is not None:
                close()
    return lines


def _probe_all(
    sections: Mapping[str, ConnectorSettings],
    start: datetime,
    end: datetime,
    probes: list[tuple[str, Probe | None]],
    built: list[Any],
) -> list[CheckLine]:
    lines: list[CheckLine] = []
    for connector in CONNECTORS:
        section = sections.get(connector.name)
        if section is None:
            continue
        source = connector.source(section)
        built.append(source)
        if source is None:
            lines.append(CheckLine(connector.name, "reachable", "skip", "configured but asks for nothing"))
            continue
        began = time.monotonic()
        try:
            probe = PROBES.get(connector.name, _any)(source, start, end)
        except SourceUnavailable as exc:
            ms = (time.monotonic() - began) * 1000
            lines.append(CheckLine(connector.name, "reachable", "fail", _auth_words(exc.gap), round(ms, 1)))
            probes.append((connector.name, None))
            continue
        ms = (time.monotonic() - began) * 1000
        lines.append(CheckLine(connector.name, "reachable", "ok", probe.detail, round(ms, 1)))
        lines += [CheckLine(connector.name, "reachable", "warn", note) for note in probe.notes]
        probes.append((connector.name, probe))
    return lines


def _known_services(probes: Sequence[tuple[str, Probe | None]]) -> list[str]:
    seen: dict[str, None] = {}
    for _, probe in probes:
        for service in sorted(probe.services or ()) if probe else ():
            seen.setdefault(service, None)
    return list(seen)[:MAX_SERVICES]


def _service_line(name: str, probe: Probe | None, service: str) -> CheckLine:
    if probe is None:
        return CheckLine(name, service, "skip", f"not checked: {name} is unreachable")
    if probe.per_service is None:
        return CheckLine(name, service, "skip", "this source is not asked per service")
    try:
        verdict, detail = probe.per_service(service)
    except SourceUnavailable as exc:
        return CheckLine(name, service, "fail", exc.gap)
    return CheckLine(name, service, verdict, detail)


# --- one probe per connector -------------------------------------------------------------------


def _prometheus(source: Any, start: datetime, end: datetime) -> Probe:
    info = source.build_info()
    services = set(source.services(start, end))
    services |= {e.name for e in source.targets_topology().entities.values() if e.kind == "host"}
    labels = ", ".join(source.settings.service_labels)

    def per_service(service: str) -> tuple[Verdict, str]:
        recent = end - timedelta(minutes=15)
        found = source.covered_series(service, "service", recent, end).coverage
        if not found.selector:  # what the snapshot does too: an entity no service label names may be a host
            as_host = source.covered_series(service, "host", recent, end).coverage
            found = as_host if as_host.selector else found
        if found.series == 0:
            return "warn", (found.gap or found.summary()) + (f"; {found.notes[0]}" if found.notes else "")
        names = ", ".join(t.name for t in found.matched)
        return ("ok" if not found.missing_signals else "warn"), f"{found.summary()} [{names}]"

    detail = f"{source.settings.base_url} answers (Prometheus {info.get('version', '?')}); service labels: {labels}"
    return Probe(detail, services, per_service)


def _loki(source: Any, start: datetime, end: datetime) -> Probe:
    label = source.settings.service_label
    params = {"start": str(int(start.timestamp() * 1e9)), "end": str(int(end.timestamp() * 1e9))}
    body = source.api.get_json(f"/loki/api/v1/label/{label}/values", params, what="label values")
    values = {str(v) for v in (body.get("data") or [])} if isinstance(body, dict) else set()

    def per_service(service: str) -> tuple[Verdict, str]:
        if service in values:
            return "ok", f'log streams with {label}="{service}" in the last hour'
        return "warn", f'no log stream with {label}="{service}" in the last hour ({len(values)} {label} values seen)'

    detail = f"{source.settings.base_url} answers; {len(values)} values of stream label {label}"
    return Probe(detail, values, per_service)


def _jaeger(source: Any, start: datetime, end: datetime) -> Probe:
    names = set(source.services())

    def per_service(service: str) -> tuple[Verdict, str]:
        if service in names:
            return "ok", f"Jaeger has traces of {service}"
        return "warn", f"Jaeger knows no service {service!r} ({len(names)} services)"

    return Probe(f"{source.settings.base_url} answers; {len(names)} services traced", names, per_service)


def _tempo(source: Any, start: datetime, end: datetime) -> Probe:
    tag = source.settings.service_attribute.split(".", 1)[-1]
    body = source.api.get_json(f"/api/search/tag/{tag}/values", what="tag values")
    names = {str(v) for v in (body.get("tagValues") or [])} if isinstance(body, dict) else set()

    def per_service(service: str) -> tuple[Verdict, str]:
        if service in names:
            return "ok", f"Tempo has spans with {tag}={service!r}"
        return "warn", f"Tempo has no span with {tag}={service!r} ({len(names)} values)"

    return Probe(f"{source.settings.base_url} answers; {len(names)} values of {tag}", names, per_service)


def _kubernetes(source: Any, start: datetime, end: datetime) -> Probe:
    health = source.pod_health()
    names = {h.service for h in health if h.service}

    def per_service(service: str) -> tuple[Verdict, str]:
        pods = [h for h in health if h.service == service]
        if pods:
            return "ok", f"{len(pods)} pod(s) of {service}"
        return "warn", f"no pod of {service} in namespaces {', '.join(source.settings.namespaces)}"

    return Probe(f"{len(health)} pods in {', '.join(source.settings.namespaces)}", names, per_service)


def _github(source: Any, start: datetime, end: datetime) -> Probe:
    repos = {r.service_name: r for r in source.settings.repos}
    counts = {service: len(source.deployments(repo, end - timedelta(days=7))) for service, repo in repos.items()}

    def per_service(service: str) -> tuple[Verdict, str]:
        if service not in counts:
            return "warn", f"no repository mapped to {service} (github.repos[].service)"
        return "ok", f"{counts[service]} deployment(s) of {repos[service].repo} in 7 days"

    return Probe(f"{source.settings.base_url} answers; {len(repos)} repositories", set(repos), per_service)


def _any(source: Any, start: datetime, end: datetime) -> Probe:
    """A connector without a probe of its own: the cheapest protocol question it answers, not asked per service."""
    recent = end - timedelta(minutes=1)
    for method, call in (
        ("graph", lambda: source.graph()),
        ("recent", lambda: source.recent(None, recent, end)),
        ("spans", lambda: source.spans(None, recent, end)),
        ("query", lambda: source.query(None, recent, end)),
    ):
        if hasattr(source, method):
            call()
            return Probe(f"answers {method}()")
    return Probe("built (no protocol call to make)")


PROBES: dict[str, Callable[[Any, datetime, datetime], Probe]] = {
    "prometheus": _prometheus,
    "loki": _loki,
    "jaeger": _jaeger,
    "tempo": _tempo,
    "kubernetes": _kubernetes,
    "github": _github,
}


def render_lines(lines: Sequence[CheckLine]) -> str:
    """The check as aligned text, one verdict a line."""
    width = max((len(line.source) for line in lines), default=0)
    subject = max((len(line.subject) for line in lines), default=0)
    out = []
    for line in lines:
        ms = f" ({line.ms:.0f} ms)" if line.ms is not None else ""
        out.append(f"{line.verdict.upper():4}  {line.source:<{width}}  {line.subject:<{subject}}  {line.detail}{ms}")
    return "\n".join(out)
