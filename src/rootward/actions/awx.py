"""AWX / Ansible Automation Platform job templates as remediation.

A verb maps to a job template (`config_change` → "revert config", `reboot` →
"rolling reboot", ...). The dry run launches the template as `job_type:
check` (Ansible check mode), so the playbook reports what it would change.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from rootward.actions.backends import BackendError
from rootward.actions.settings_models import AwxSettings
from rootward.worldmodel.prediction_gate import ProposedAction

FINAL = ("successful", "failed", "error", "canceled")


class AwxBackend:
    def __init__(self, settings: AwxSettings) -> None:
        self._settings = settings
        self.verbs = tuple(settings.templates)
        self._http = httpx.Client(
            base_url=settings.url.rstrip("/"),
            headers={"authorization": f"Bearer {settings.token.get_secret_value()}"},
            timeout=settings.timeout_s,
        )

    def _request(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        try:
            response = self._http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise BackendError(f"awx: {exc.__class__.__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise BackendError(f"awx {path}: HTTP {response.status_code}: {response.text[:200]}")
        data: dict[str, Any] = response.json()
        return data

    def _template(self, action: ProposedAction) -> int:
        if action.verb not in self._settings.templates:
            raise BackendError(f"awx: no job template for verb {action.verb!r}")
        return self._settings.templates[action.verb]

    def _launch(self, action: ProposedAction, job_type: str) -> dict[str, Any]:
        extra = {"target": action.target, **action.params}
        launched = self._request(
            "POST",
            f"/api/v2/job_templates/{self._template(action)}/launch/",
            json={"extra_vars": extra, "job_type": job_type},
        )
        job_id = launched.get("job") or launched.get("id")
        deadline = time.monotonic() + self._settings.wait_s
        while True:
            job = self._request("GET", f"/api/v2/jobs/{job_id}/")
            if job.get("status") in FINAL:
                break
            if time.monotonic() > deadline:
                raise BackendError(f"awx: job {job_id} still {job.get('status')} after {self._settings.wait_s:.0f} s")
            time.sleep(self._settings.poll_s)
        if job["status"] != "successful":
            raise BackendError(f"awx: job {job_id} ({job_type}) ended {job['status']}")
        return {"job": job_id, "job_type": job_type, "status": job["status"]}

    def state(self, action: ProposedAction) -> dict[str, Any]:
        template = self._request("GET", f"/api/v2/job_templates/{self._template(action)}/")
        return {"template": template.get("name"), "last_job_run": template.get("last_job_run")}

    def dry_run(self, action: ProposedAction) -> dict[str, Any]:
        return self._launch(action, "check")

    def execute(self, action: ProposedAction) -> dict[str, Any]:
        return self._launch(action, "run")
