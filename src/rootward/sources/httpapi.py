"""The guarded JSON-over-HTTP client the HTTP connectors (Prometheus, Loki, Jaeger, Tempo, GitHub) share.

Each GET goes through the source's `Guard` (breaker + timeout), checks the
status, and parses JSON, so a 500, a refused connection, a hang or an HTML
error page all end as the same kind of readable gap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import SecretStr

from rootward.sources.resilience import Guard, SourceResponseError

if TYPE_CHECKING:
    import httpx

# httpx is imported where a client is made, not at the top: every CLI command imports the connectors' settings
# (their modules import this one), few of them call a connector.

# A mapping or a list of pairs (repeated keys such as Prometheus' `match[]`), as httpx takes them.
Params = Mapping[str, Any] | Sequence[tuple[str, Any]]


class HttpCredentials(Protocol):
    """What a connector's settings say about reaching its server: where, and as whom."""

    @property
    def base_url(self) -> str: ...
    @property
    def bearer_token(self) -> SecretStr | None: ...
    @property
    def username(self) -> str | None: ...
    @property
    def password(self) -> SecretStr | None: ...
    @property
    def verify_tls(self) -> bool: ...


def authenticated_api(guard: Guard, settings: HttpCredentials, headers: Mapping[str, str] | None = None) -> HttpApi:
    """The connector's client, with a bearer token or basic auth where its settings give one."""
    sent = dict(headers or {})
    if settings.bearer_token is not None:
        sent["Authorization"] = f"Bearer {settings.bearer_token.get_secret_value()}"
    auth = None
    if settings.username is not None:
        auth = (settings.username, settings.password.get_secret_value() if settings.password else "")
    return HttpApi(guard, settings.base_url, headers=sent, auth=auth, verify=settings.verify_tls)


class HttpApi:
    def __init__(
        self,
        guard: Guard,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        auth: httpx.Auth | tuple[str, str] | None = None,
        verify: bool = True,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx

        self.guard = guard
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=dict(headers or {}),
            auth=auth,
            verify=verify,
            timeout=httpx.Timeout(guard.timeout_s),
            transport=transport,
            follow_redirects=True,
        )

    def get(self, path: str, params: Params | None = None, what: str = "") -> httpx.Response:
        """One guarded GET; any status >= 400 is a failure of the source."""

        def run() -> httpx.Response:
            response = self._client.get(path, params=_query(params))
            response.raise_for_status()
            return response

        return self.guard.call(what or path, run)

    def get_json(self, path: str, params: Params | None = None, what: str = "") -> Any:
        return self.get_json_with_headers(path, params, what)[0]

    def get_json_with_headers(
        self, path: str, params: Params | None = None, what: str = ""
    ) -> tuple[Any, httpx.Headers]:
        """Parsed JSON body and response headers (for `Link` paging); bad JSON is a source failure."""

        def run() -> tuple[Any, httpx.Headers]:
            response = self._client.get(path, params=_query(params))
            response.raise_for_status()
            try:
                return response.json(), response.headers
            except ValueError:
                snippet = response.text.strip()[:120]
                raise SourceResponseError(f"{path} did not return JSON: {snippet!r}") from None

        return self.guard.call(what or path, run)

    def close(self) -> None:
        self._client.close()


def _query(params: Params | None) -> httpx.QueryParams | None:
    if params is None:
        return None
    import httpx

    items = list(params.items()) if isinstance(params, Mapping) else list(params)
    return httpx.QueryParams([(str(k), str(v)) for k, v in items])
