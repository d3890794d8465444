"""One HTTP call to a write-back target or a chat webhook, its failure sorted into retried or not.

The outbox replays what a retry can fix (the target unreachable, a timeout,
a 429 or a 5xx) and stops on what it cannot: a 401/403 means the token is
wrong or lacks a permission, a 404 or 400/422 means the incident, issue or
project named does not exist or the payload was refused. The message names
the target, the status and what to check, so the `last_error` of the outbox
row is enough to fix it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rootward.notify.channels import DeliveryFailed, DeliveryRefused

_BODY_EXCERPT = 300
_WHY = {
    401: "the credentials were refused: check the token (and its expiry)",
    403: "the token lacks a permission this needs (see docs/integrations.md)",
    404: "not found: check the incident, issue, repository or project named",
    410: "gone: the resource was removed",
}

if TYPE_CHECKING:
    import httpx


def refusal_text(target: str, response: httpx.Response) -> str:
    """`<target>: HTTP <status> <reason>: <what to check>: <the body's start>`."""
    why = _WHY.get(response.status_code, "the target refused the request")
    body = response.text.strip().replace("\n", " ")[:_BODY_EXCERPT]
    return f"{target}: HTTP {response.status_code} {response.reason_phrase}: {why}" + (f": {body}" if body else "")


def check(target: str, response: httpx.Response) -> httpx.Response:
    """The response if it is a success; otherwise `DeliveryRefused` (4xx but 408/429) or `DeliveryFailed`."""
    status = response.status_code
    if status < 300:
        return response
    if 400 <= status < 500 and status not in (408, 425, 429):
        raise DeliveryRefused(refusal_text(target, response))
    raise DeliveryFailed(f"{target}: HTTP {status} {response.reason_phrase}, will retry")


def call(
    target: str,
    method: str,
    url: str,
    *,
    timeout_s: float,
    headers: dict[str, str] | None = None,
    json: Any = None,
    params: dict[str, str] | None = None,
    auth: tuple[str, str] | None = None,
) -> httpx.Response:
    """One request; a network error or timeout is `DeliveryFailed` (the outbox retries it)."""
    import httpx  # here, not at the top: every CLI command imports the settings, few of them send anything

    try:
        response = httpx.request(method, url, headers=headers, json=json, params=params, auth=auth, timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise DeliveryFailed(f"{target}: {exc.__class__.__name__}: {exc or 'no answer'}, will retry") from exc
    return check(target, response)


def json_of(target: str, response: httpx.Response) -> dict[str, Any]:
    """The response's JSON object; a 2xx that is not one is the target misbehaving (retried)."""
    try:
        data = response.json()
    except ValueError:
        raise DeliveryFailed(f"{target}: HTTP {response.status_code} without a JSON body") from None
    if not isinstance(data, dict):
        raise DeliveryFailed(f"{target}: HTTP {response.status_code}: expected a JSON object")
    return data
