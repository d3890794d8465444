"""Local servers speaking the write-back targets' and Teams' HTTP protocols, for the real clients to call.

Each is a route over tests/sources/local_http.py with a `mode` a test flips:
`up`, `down` (500), `unauthorized` (401, the target's own error body) or
`slow_create` (the create is taken, then the answer comes after the client's
timeout, as when a connection drops after the target committed).
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.sources.local_http import Reply, Request

SLOW_S = 1.5  # longer than the clients' timeout in these tests


@dataclass
class Target:
    """One fake SaaS: what it stored, and how it answers right now."""

    mode: str = "up"
    requests: list[Request] = field(default_factory=list)
    notes: dict[str, list[str]] = field(default_factory=dict)  # PagerDuty incident id -> note contents
    issues: dict[str, dict[str, Any]] = field(default_factory=dict)  # issue key -> its fields
    comments: dict[str, list[str]] = field(default_factory=dict)  # issue key -> comment bodies
    cards: list[dict[str, Any]] = field(default_factory=list)  # Teams payloads taken
    lock: threading.Lock = field(default_factory=threading.Lock)

    def failure(self, unauthorized_body: Any) -> Reply | None:
        if self.mode == "down":
            return Reply(500, {"error": "internal"})
        if self.mode == "unauthorized":
            return Reply(401, unauthorized_body)
        return None

    def posts(self) -> list[Request]:
        return [r for r in self.requests if r.method == "POST"]


def pagerduty_route(target: Target) -> Any:
    def route(request: Request) -> Reply:
        target.requests.append(request)
        failed = target.failure({"error": {"message": "Unauthorized", "code": 2006}})
        if failed:
            return failed
        parts = request.path.strip("/").split("/")  # incidents/{id}/notes
        if request.method == "POST" and len(parts) == 3 and parts[0] == "incidents" and parts[2] == "notes":
            content = json.loads(request.body)["note"]["content"]
            with target.lock:
                notes = target.notes.setdefault(parts[1], [])
                notes.append(content)
                return Reply(201, {"note": {"id": f"PN{len(notes)}", "content": content}})
        return Reply(404, {"error": {"message": "Not Found", "code": 2100}})

    return route


def jira_route(target: Target) -> Any:
    def route(request: Request) -> Reply:
        target.requests.append(request)
        failed = target.failure({"errorMessages": ["You are not authenticated."], "errors": {}})
        if failed:
            return failed
        if request.method == "POST" and request.path == "/rest/api/2/issue":
            fields = json.loads(request.body)["fields"]
            with target.lock:
                key = f"{fields['project']['key']}-{len(target.issues) + 1}"
                target.issues[key] = fields
            reply = {"id": str(10000 + len(target.issues)), "key": key, "self": f"/rest/api/2/issue/{key}"}
            return Reply(201, reply, delay_s=SLOW_S if target.mode == "slow_create" else 0.0)
        if request.method == "POST" and request.path.endswith("/comment"):
            key = request.path.split("/")[-2]
            if key not in target.issues and not key.startswith("OPS"):
                return Reply(404, {"errorMessages": ["Issue does not exist or you do not have permission to see it."]})
            with target.lock:
                bodies = target.comments.setdefault(key, [])
                bodies.append(json.loads(request.body)["body"])
            return Reply(201, {"id": str(len(bodies)), "body": bodies[-1]})
        if request.method == "GET" and request.path in ("/rest/api/3/search/jql", "/rest/api/2/search"):
            jql = request.arg("jql")
            found = [{"key": k} for k, f in target.issues.items() if f'"{_jql_label(jql)}"' in json.dumps(f["labels"])]
            return Reply(200, {"issues": found[:1], "isLast": True})
        return Reply(404, {"errorMessages": ["not found"]})

    return route


def _jql_label(jql: str) -> str:
    """The label of `labels = "x" ORDER BY ...`."""
    return jql.split('"')[1] if jql.count('"') >= 2 else ""


def github_route(target: Target) -> Any:
    def route(request: Request) -> Reply:
        target.requests.append(request)
        failed = target.failure({"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
        if failed:
            return failed
        parts = request.path.strip("/").split("/")  # repos/{owner}/{repo}/issues[/{n}/comments]
        if parts[:1] != ["repos"] or len(parts) < 4 or parts[3] != "issues":
            return Reply(404, {"message": "Not Found"})
        repo = f"{parts[1]}/{parts[2]}"
        if request.method == "POST" and len(parts) == 4:
            issue = json.loads(request.body)
            with target.lock:
                number = len(target.issues) + 1
                target.issues[f"{repo}#{number}"] = {**issue, "number": number}
            reply = {"number": number, "html_url": f"https://github.example/{repo}/issues/{number}"}
            return Reply(201, reply, delay_s=SLOW_S if target.mode == "slow_create" else 0.0)
        if request.method == "GET" and len(parts) == 4:
            label = request.arg("labels")
            listed = [i for i in target.issues.values() if not label or label in i.get("labels", [])]
            return Reply(200, sorted(listed, key=lambda i: -int(i["number"])))
        if request.method == "POST" and len(parts) == 6 and parts[5] == "comments":
            key = f"{repo}#{parts[4]}"
            with target.lock:
                bodies = target.comments.setdefault(key, [])
                bodies.append(json.loads(request.body)["body"])
            return Reply(201, {"id": len(bodies), "html_url": f"https://github.example/{repo}/issues/{parts[4]}#c"})
        return Reply(404, {"message": "Not Found"})

    return route


def teams_route(target: Target) -> Any:
    """A Workflows webhook: 202 with an empty body for a message it takes."""

    def route(request: Request) -> Reply:
        target.requests.append(request)
        failed = target.failure({"error": {"code": "DirectApiAuthorizationRequired", "message": "unauthorized"}})
        if failed:
            return failed
        target.cards.append(json.loads(request.body))
        return Reply(202, b"")

    return route


def basic_auth(request: Request) -> tuple[str, str]:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    assert scheme == "Basic"
    user, _, password = base64.b64decode(value).decode().partition(":")
    return user, password
