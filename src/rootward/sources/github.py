"""GitHub deployments as a `ChangeSource`, with the code diff between consecutive deployments.

Reads `GET /repos/{owner}/{repo}/deployments` (newest first, paged through
the `Link` header until the window's start), and for deployments inside the
window optionally `GET /repos/{owner}/{repo}/compare/{prev}...{sha}` so the
change carries which files moved. `base_url` points at GitHub Enterprise
(`https://ghe.example.com/api/v3`) or a test server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.domain.telemetry import Change
from rootward.sources.base import SourceUnavailable
from rootward.sources.connector import Connector
from rootward.sources.httpapi import HttpApi
from rootward.sources.resilience import ConnectorSettings, Guard, SourceResponseError

SOURCE = "GitHub"


class GitHubRepo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    repo: str = Field(pattern=r"^[^/\s]+/[^/\s]+$", description="owner/name")
    service: str | None = Field(default=None, description="Service the repo deploys; empty: the repo name.")
    environment: str | None = Field(default=None, description="Only deployments to this environment.")

    @property
    def service_name(self) -> str:
        return self.service or self.repo.split("/", 1)[1]


class GitHubSettings(ConnectorSettings):
    base_url: str = Field(
        default="https://api.github.com", description="REST API root; GitHub Enterprise: https://HOST/api/v3."
    )
    token: SecretStr | None = Field(default=None, description="Token with read access to deployments.")
    repos: list[GitHubRepo] = Field(default_factory=list, description="Repositories whose deployments count.")
    fetch_diffs: bool = Field(default=True, description="Attach the file diff between consecutive deployments.")
    max_diff_chars: int = Field(default=4000, ge=0, description="Cut each change's diff at this length.")
    max_pages: int = Field(default=5, gt=0, description="At most this many pages of 100 deployments per repo.")


def parse_time(value: Any) -> datetime:
    if not isinstance(value, str):
        raise SourceResponseError(f"deployment time is not a string: {value!r}")
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def deployment_change(repo: GitHubRepo, item: dict[str, Any]) -> Change:
    sha = str(item.get("sha") or "")
    ref = str(item.get("ref") or "")
    environment = str(item.get("environment") or "")
    description = str(item.get("description") or "")
    summary = description or f"deploy {ref or sha[:7]} to {environment or 'an environment'}"
    if description and environment:
        summary += f" (to {environment})"
    return Change(
        id=f"github:{repo.repo}#{item.get('id')}",
        kind="deploy",
        service=repo.service_name,
        time=parse_time(item.get("created_at")),
        version=ref if ref and ref != sha else sha[:12],
        author=str((item.get("creator") or {}).get("login") or ""),
        summary=summary,
    )


def compare_diff(body: Any, limit: int) -> str:
    """Commit subjects and per-file patches of a compare response, cut at `limit` characters."""
    if not isinstance(body, dict):
        raise SourceResponseError("compare response is not an object")
    lines = []
    for commit in body.get("commits") or []:
        message = str((commit.get("commit") or {}).get("message") or "")
        subject = message.splitlines()[0] if message else ""
        lines.append(f"commit {str(commit.get('sha') or '')[:7]} {subject}".rstrip())
    for f in body.get("files") or []:
        counts = f"+{f.get('additions', 0)} -{f.get('deletions', 0)}"
        lines.append(f"--- {f.get('filename')} ({f.get('status')}, {counts})")
        if f.get("patch"):
            lines.append(str(f["patch"]))
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: max(0, limit - 12)] + "\n[truncated]"


def next_link(link_header: str | None) -> str | None:
    """The `rel="next"` URL of a GitHub `Link` header."""
    for part in (link_header or "").split(","):
        url, _, rel = part.partition(";")
        if 'rel="next"' in rel:
            return url.strip().strip("<>")
    return None


class GitHubDeploymentSource:
    """`ChangeSource` over the deployments of the configured repositories."""

    def __init__(self, settings: GitHubSettings, *, guard: Guard | None = None) -> None:
        self.settings = settings
        self.guard = guard or Guard(SOURCE, settings)
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
        if settings.token is not None:
            headers["Authorization"] = f"Bearer {settings.token.get_secret_value()}"
        self.api = HttpApi(self.guard, settings.base_url, headers=headers)

    def deployments(self, repo: GitHubRepo, since: datetime) -> list[dict[str, Any]]:
        """Raw deployments newer than `since`, newest first, plus the first older one (the diff base)."""
        params: dict[str, str | int | float] = {"per_page": 100}
        if repo.environment:
            params["environment"] = repo.environment
        url: str | None = f"/repos/{repo.repo}/deployments"
        out: list[dict[str, Any]] = []
        for _ in range(self.settings.max_pages):
            if url is None:
                break
            page, headers = self.api.get_json_with_headers(url, params if not out else None, what="deployments")
            if not isinstance(page, list):
                got = str(page)[:80]
                raise SourceUnavailable(SOURCE, f"deployments of {repo.repo}: expected a list, got {got}")
            out += page
            if page and parse_time(page[-1].get("created_at")) < since:
                break
            url = next_link(headers.get("link"))
        return out

    def recent(self, services: Sequence[str] | None, start: datetime, end: datetime) -> Sequence[Change]:
        wanted = set(services) if services is not None else None
        changes: list[Change] = []
        for repo in self.settings.repos:
            if wanted is not None and repo.service_name not in wanted:
                continue
            items = self.deployments(repo, start)
            items.sort(key=lambda item: str(item.get("created_at")), reverse=True)
            for index, item in enumerate(items):
                change = deployment_change(repo, item)
                if not start <= change.time <= end:
                    continue
                if self.settings.fetch_diffs and index + 1 < len(items):
                    base, head = items[index + 1].get("sha"), item.get("sha")
                    if base and head and base != head:
                        body = self.api.get_json(f"/repos/{repo.repo}/compare/{base}...{head}", what="compare")
                        change = replace(change, diff=compare_diff(body, self.settings.max_diff_chars))
                changes.append(change)
        return sorted(changes, key=lambda c: c.time, reverse=True)

    def close(self) -> None:
        self.api.close()


CONNECTOR = Connector(
    name="github",
    settings=GitHubSettings,
    description="Deployments of GitHub repositories.",
    provides=frozenset({"changes"}),
    build=GitHubDeploymentSource,
    active=lambda settings: bool(settings.repos),
)
