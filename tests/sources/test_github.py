"""GitHub deployments through the connector's HTTP client against a local fake of the REST API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from rootward.sources.github import GitHubDeploymentSource, GitHubRepo, GitHubSettings, next_link
from tests.sources.local_http import Reply, Request, Route, serve

pytestmark = pytest.mark.integration

T = datetime(2026, 3, 14, 13, 44, tzinfo=UTC)


def _deployment(n: int, at: datetime, env: str = "production") -> dict[str, Any]:
    return {
        "id": 1000 + n,
        "sha": f"{n:040x}",
        "ref": f"v2.{n}.0",
        "environment": env,
        "description": "" if n % 2 else f"release {n}",
        "creator": {"login": "ci-bot"},
        "created_at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def github_route(base: list[str]) -> Route:
    """Five deployments, newest first, two per page; compare answers with one file patch."""
    items = [_deployment(n, T - timedelta(hours=6 * (5 - n))) for n in range(5, 0, -1)]

    def route(request: Request) -> Reply:
        if request.path == "/repos/acme/payments/deployments":
            page = int(request.arg("page", "1"))
            chunk = items[(page - 1) * 2 : page * 2]
            headers = {}
            if page * 2 < len(items):
                headers["Link"] = f'<{base[0]}/repos/acme/payments/deployments?per_page=2&page={page + 1}>; rel="next"'
            return Reply(200, chunk, headers)
        if request.path.startswith("/repos/acme/payments/compare/"):
            return Reply(
                200,
                {
                    "commits": [{"sha": "abcdef123", "commit": {"message": "Shrink pool\n\nbody"}}],
                    "files": [
                        {
                            "filename": "config/pool.yaml",
                            "status": "modified",
                            "additions": 1,
                            "deletions": 1,
                            "patch": "-maximumPoolSize: 40\n+maximumPoolSize: 20",
                        }
                    ],
                },
            )
        return Reply(404, {"message": "Not Found"})

    return route


def _source(url: str, **overrides: Any) -> GitHubDeploymentSource:
    settings = GitHubSettings(
        base_url=url,
        token="ghp_x",
        repos=[GitHubRepo(repo="acme/payments", service="payment")],
        timeout_s=5,
        **overrides,
    )
    return GitHubDeploymentSource(settings)


def test_deployments_in_the_window_become_changes_with_compare_diffs() -> None:
    base: list[str] = []
    with serve(github_route(base)) as (url, seen):
        base.append(url)
        changes = _source(url).recent(["payment"], T - timedelta(hours=7), T + timedelta(minutes=1))
    assert [c.version for c in changes] == ["v2.5.0", "v2.4.0"]
    newest = changes[0]
    assert newest.id == "github:acme/payments#1005" and newest.service == "payment" and newest.author == "ci-bot"
    assert newest.time == T
    assert "+maximumPoolSize: 20" in newest.diff and "commit abcdef1 Shrink pool" in newest.diff
    assert seen[0].headers["authorization"] == "Bearer ghp_x"
    # Paging stopped once a page reached back before the window: pages 1 and 2, not 3.
    assert [r.arg("page", "1") for r in seen if r.path.endswith("/deployments")] == ["1", "2"]


def test_other_services_are_not_asked_about() -> None:
    with serve(github_route(["http://unused"])) as (url, seen):
        assert _source(url).recent(["cart"], T - timedelta(days=1), T) == []
    assert seen == []


def test_without_diffs_no_compare_calls_are_made() -> None:
    base: list[str] = []
    with serve(github_route(base)) as (url, seen):
        base.append(url)
        changes = _source(url, fetch_diffs=False).recent(None, T - timedelta(hours=1), T)
    assert [c.diff for c in changes] == [""]
    assert not any("/compare/" in r.path for r in seen)


def test_next_link_is_read_from_the_link_header() -> None:
    header = '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last"'
    assert next_link(header) == "https://api.github.com/x?page=2"
    assert next_link(None) is None
