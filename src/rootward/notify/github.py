"""GitHub issues through the REST API: a comment on the incident's issue, or a new issue.

- comment: `POST /repos/{owner}/{repo}/issues/{number}/comments`;
- create: `POST /repos/{owner}/{repo}/issues`, the body ending in the
  incident's marker `<!-- rootward-incident: <incident> -->` (invisible when
  rendered);
- find (only after a create that may have gone through unrecorded): the
  repository's newest issues with the first configured label, by marker.

Every call sends `Authorization: Bearer`, `Accept: application/vnd.github+json`
and `X-GitHub-Api-Version: 2022-11-28`. An issue key is `owner/repo#number`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rootward.notify.channels import DeliveryFailed, DeliveryRefused
from rootward.notify.message import Notification
from rootward.notify.target_http import call, json_of
from rootward.notify.writeback import WritebackRefs, writeback_title

API_VERSION = "2022-11-28"
_ISSUE = re.compile(r"^(?:(?P<repo>[\w.-]+/[\w.-]+))?#?(?P<number>\d+)$")
FIND_PAGE = 100


class GitHubIssuesSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    api_url: str = Field(default="https://api.github.com", description="REST API base (GHES: https://HOST/api/v3)")
    token: SecretStr = Field(description="Fine-grained token with Issues: read and write on the repository")
    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$", description="owner/name of the repository")
    issue: int | None = Field(default=None, gt=0, description="Comment every write-back on this issue")
    issue_label: str = Field(
        default="github_issue", description="Alert label or annotation naming an issue: 123 or owner/repo#123"
    )
    create_issues: bool = Field(default=False, description="Create an issue for an incident that has none")
    labels: list[str] = Field(default_factory=lambda: ["rootward"], description="Labels of created issues")
    timeout_s: float = Field(default=10.0, gt=0)

    def writes_back(self, refs: WritebackRefs) -> bool:
        return bool(refs.github_issue) or self.issue is not None or self.create_issues


def incident_marker(incident: str) -> str:
    return f"<!-- rootward-incident: {incident} -->"


class GitHubTracker:
    name = "github"

    def __init__(self, settings: GitHubIssuesSettings) -> None:
        self._settings = settings

    @property
    def creates_issues(self) -> bool:
        return self._settings.create_issues

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        s = self._settings
        headers = {
            "Authorization": f"Bearer {s.token.get_secret_value()}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
        }
        url = s.api_url.rstrip("/") + path
        response = call("github", method, url, timeout_s=s.timeout_s, headers=headers, **kwargs)
        return response.json() if method == "GET" else json_of("github", response)

    def named_issue(self, refs: WritebackRefs) -> str:
        if refs.github_issue:
            found = _ISSUE.match(refs.github_issue.strip())
            if found is None:
                raise DeliveryRefused(f"github: {refs.github_issue!r} is not an issue (123 or owner/repo#123)")
            return f"{found.group('repo') or self._settings.repo}#{found.group('number')}"
        return f"{self._settings.repo}#{self._settings.issue}" if self._settings.issue else ""

    def find(self, incident: str) -> str:
        s = self._settings
        params = {"state": "all", "sort": "created", "direction": "desc", "per_page": str(FIND_PAGE)}
        if s.labels:
            params["labels"] = s.labels[0]
        issues = self._call("GET", f"/repos/{s.repo}/issues", params=params)
        mark = incident_marker(incident)
        for issue in issues if isinstance(issues, list) else []:
            if isinstance(issue, dict) and mark in str(issue.get("body") or ""):
                return f"{s.repo}#{issue['number']}"
        return ""

    def create(self, notification: Notification, incident: str, text: str) -> str:
        s = self._settings
        text = f"{text}\n\n{incident_marker(incident)}"
        body: dict[str, Any] = {"title": writeback_title(notification), "body": text}
        if s.labels:
            body["labels"] = list(s.labels)
        created = self._call("POST", f"/repos/{s.repo}/issues", json=body)
        if not created.get("number"):
            raise DeliveryFailed("github: the created issue has no number in the answer")
        return f"{s.repo}#{created['number']}"

    def comment(self, issue: str, text: str) -> str:
        repo, _, number = issue.rpartition("#")
        comment = self._call("POST", f"/repos/{repo}/issues/{number}/comments", json={"body": text})
        return str(comment.get("html_url") or comment.get("id") or issue)
