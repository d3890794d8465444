"""Jira through its REST API v2 (Cloud and Data Center): a comment on the incident's issue, or a new issue.

- comment: `POST /rest/api/2/issue/{key}/comment` with `{"body": text}`;
- create: `POST /rest/api/2/issue` with the project key and issue type; the
  issue carries the label `rootward-incident-<incident>`, which is its marker;
- find (only after a create that may have gone through unrecorded): a JQL
  search on that label, `GET /rest/api/3/search/jql` on Cloud or
  `/rest/api/2/search` on Data Center (`search_path`).

Auth is basic `email:api_token` (Cloud API token); with no `email` the token
is sent as a bearer token (a Data Center personal access token).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from rootward.notify.message import Notification
from rootward.notify.target_http import call, json_of
from rootward.notify.writeback import WritebackRefs, writeback_title


class JiraSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="Site URL, e.g. https://example.atlassian.net")
    email: str = Field(default="", description="Account email for basic auth (Cloud); empty: bearer token (DC PAT)")
    api_token: SecretStr = Field(description="Cloud API token, or a Data Center personal access token")
    issue_label: str = Field(
        default="jira_issue", description="Alert label or annotation naming the issue to comment on, e.g. OPS-12"
    )
    create_issues: bool = Field(default=False, description="Create an issue for an incident no alert names one for")
    project_key: str = Field(default="", description="Project of created issues, e.g. OPS")
    issue_type: str = Field(default="Task", description="Issue type of created issues")
    labels: list[str] = Field(default_factory=lambda: ["rootward"], description="Labels of created issues")
    search_path: str = Field(
        default="/rest/api/3/search/jql", description="JQL search endpoint; /rest/api/2/search on Data Center"
    )
    timeout_s: float = Field(default=10.0, gt=0)

    @model_validator(mode="after")
    def _project_to_create_in(self) -> JiraSettings:
        if self.create_issues and not self.project_key:
            raise ValueError("notify.jira.create_issues needs notify.jira.project_key")
        return self

    def writes_back(self, refs: WritebackRefs) -> bool:
        return bool(refs.jira_issue) or self.create_issues


def incident_label(incident: str) -> str:
    return f"rootward-incident-{incident}"


class JiraTracker:
    name = "jira"

    def __init__(self, settings: JiraSettings) -> None:
        self._settings = settings

    @property
    def creates_issues(self) -> bool:
        return self._settings.create_issues

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        s = self._settings
        headers = {"Accept": "application/json"}
        token = s.api_token.get_secret_value()
        auth = (s.email, token) if s.email else None
        if not s.email:
            headers["Authorization"] = f"Bearer {token}"
        response = call(
            "jira", method, s.base_url.rstrip("/") + path, timeout_s=s.timeout_s, headers=headers, auth=auth, **kwargs
        )
        return json_of("jira", response)

    def named_issue(self, refs: WritebackRefs) -> str:
        return refs.jira_issue

    def find(self, incident: str) -> str:
        jql = f'labels = "{incident_label(incident)}" ORDER BY created ASC'
        found = self._call("GET", self._settings.search_path, params={"jql": jql, "fields": "key", "maxResults": "1"})
        issues = found.get("issues") or []
        return str(issues[0].get("key", "")) if issues and isinstance(issues[0], dict) else ""

    def create(self, notification: Notification, incident: str, text: str) -> str:
        s = self._settings
        fields = {
            "project": {"key": s.project_key},
            "issuetype": {"name": s.issue_type},
            "summary": writeback_title(notification),
            "description": text,
            "labels": [*s.labels, incident_label(incident)],
        }
        created = self._call("POST", "/rest/api/2/issue", json={"fields": fields})
        return str(created.get("key") or created.get("id") or "")

    def comment(self, issue: str, text: str) -> str:
        comment = self._call("POST", f"/rest/api/2/issue/{issue}/comment", json={"body": text})
        return f"{issue} comment {comment.get('id', '')}".strip()
