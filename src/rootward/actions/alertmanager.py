"""Alertmanager API v2 client: silences, the one mutation L2 may make on its own."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from rootward.actions.settings_models import AlertmanagerSettings


class AlertmanagerError(Exception):
    pass


class AlertmanagerClient:
    def __init__(self, settings: AlertmanagerSettings) -> None:
        self._settings = settings
        self._http = httpx.Client(base_url=settings.url.rstrip("/"), timeout=settings.timeout_s)

    def _request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        try:
            response = self._http.request(method, "/api/v2" + path, **kw)
        except httpx.HTTPError as exc:
            raise AlertmanagerError(f"alertmanager: {exc.__class__.__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise AlertmanagerError(f"alertmanager: HTTP {response.status_code}: {response.text[:200]}")
        return response

    def create_silence(
        self,
        matchers: Mapping[str, str],
        duration: timedelta,
        *,
        comment: str,
        created_by: str = "rootward",
        now: datetime | None = None,
    ) -> str:
        if not matchers:
            raise AlertmanagerError("a silence needs at least one matcher")
        if duration > self._settings.max_silence:
            raise AlertmanagerError(f"silence of {duration} exceeds the limit of {self._settings.max_silence}")
        start = now or datetime.now(UTC)
        wanted = sorted(matchers.items())
        body = {
            "matchers": [{"name": k, "value": v, "isRegex": False, "isEqual": True} for k, v in wanted],
            "startsAt": start.isoformat(),
            "endsAt": (start + duration).isoformat(),
            "createdBy": created_by,
            "comment": comment,
        }
        return str(self._request("POST", "/silences", json=body).json()["silenceID"])

    def silences(self) -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = self._request("GET", "/silences").json()
        return data

    def expire_silence(self, silence_id: str) -> None:
        self._request("DELETE", f"/silence/{silence_id}")

    def alerts(self, active: bool = True, silenced: bool = True) -> list[dict[str, Any]]:
        params = {"active": str(active).lower(), "silenced": str(silenced).lower()}
        data: list[dict[str, Any]] = self._request("GET", "/alerts", params=params).json()
        return data

    def post_alerts(self, alerts: list[dict[str, Any]]) -> None:
        self._request("POST", "/alerts", json=alerts)
