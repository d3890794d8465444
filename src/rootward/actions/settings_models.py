"""Settings models of the action backends, apart from the backends themselves.

Loading the configuration must not import the Kubernetes client or the
world model: these models are plain pydantic, and the backends import them.
"""

from __future__ import annotations

import warnings
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator


class AlertmanagerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(default="http://127.0.0.1:9093", description="Alertmanager base URL")
    timeout_s: float = Field(default=10.0, gt=0)
    max_silence: timedelta = Field(default=timedelta(hours=4), description="Longest silence rootward may create")


class AwxSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="AWX base URL")
    token: SecretStr = Field(description="OAuth2 token of the executor's AWX user")
    templates: dict[str, int] = Field(default_factory=dict, description="Verb → job template id")
    timeout_s: float = Field(default=30.0, gt=0)
    wait_s: float = Field(default=600.0, gt=0, description="How long to wait for a job to finish")
    poll_s: float = Field(default=2.0, gt=0)


class KubernetesExecSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    host: str = Field(description="API server URL")
    token: SecretStr | None = Field(default=None, description="Bearer token of the executor's service account")
    verify_tls: bool = Field(
        default=True, description="Verify the API server's certificate (`verify_ssl`, its old name, still works)."
    )
    ca_cert: str | None = None
    namespace: str = Field(default="default", description="Namespace when the action names none")
    timeout_s: float = Field(default=30.0, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _renamed_verify_ssl(cls, data: Any) -> Any:
        """`verify_ssl` was this key's name; every connector says `verify_tls`, so one name it is."""
        if not isinstance(data, dict) or "verify_ssl" not in data:
            return data
        if "verify_tls" in data:
            raise ValueError("set `verify_tls` only (`verify_ssl` is its deprecated old name)")
        warnings.warn(
            "kubernetes executor setting `verify_ssl` is deprecated: rename it `verify_tls`",
            FutureWarning,
            stacklevel=2,
        )
        return {("verify_tls" if k == "verify_ssl" else k): v for k, v in data.items()}
