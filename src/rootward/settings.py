"""rootward's configuration: one YAML file plus `ROOTWARD_*` environment overrides.

Each integration owns one section model (database, intake, router, runtime,
server, ...); the root `Settings` is nothing but the list of sections, so a new
integration adds one line here and keeps its fields in its own model. The same
models validate the file, document themselves in `rootward config schema`, and
mask their secrets (`SecretStr`) in `rootward config show`.

Precedence, highest first: explicit arguments, `ROOTWARD_<SECTION>__<KEY>`
environment variables (plus the documented shortcut `ROOTWARD_DATABASE_URL`),
the YAML file (`--config` or `ROOTWARD_CONFIG`, default `./rootward.yaml` when
it exists), then the defaults below.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, create_model, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from rootward.actions.settings import ActionsSettings
from rootward.engine.settings import EngineSettings
from rootward.ingest.settings import (  # noqa: F401  (the router and the intake connectors own them)
    CloudEventsSettings,
    GrafanaSettings,
    KeepSettings,
    OpsgenieSettings,
    PagerDutySettings,
    RouterSettings,
    TierRule,
    default_tier_rules,
)
from rootward.knowledge.settings import KnowledgeSettings
from rootward.llm.settings import LLMSettings
from rootward.notify.settings import NotifySettings
from rootward.observability.settings import TracingSettings
from rootward.sources.settings import CONNECTORS, ConnectorSettings, ReplaySettings, TopologySettings
from rootward.worldmodel.settings import WorldModelSettings

DEFAULT_CONFIG_FILE = Path("rootward.yaml")
ENV_CONFIG = "ROOTWARD_CONFIG"
ENV_DATABASE_URL_SHORTCUT = "ROOTWARD_DATABASE_URL"


class ConfigError(ValueError):
    """A configuration that cannot start rootward; the message names each key path and why."""


class Section(BaseModel):
    """Base of every section: unknown keys are errors, so typos fail at start."""

    model_config = ConfigDict(extra="forbid")


class DatabaseSettings(Section):
    url: str | None = Field(
        default=None,
        description="SQLAlchemy URL. Empty: SQLite file `<data_dir>/rootward.db`. "
        "A postgresql:// URL selects PostgreSQL (psycopg 3).",
    )
    echo: bool = Field(default=False, description="Log every SQL statement (debugging only).")


class IntakeSettings(Section):
    auth: Literal["token", "none"] = Field(
        default="token",
        description="`token`: alert webhooks need `Authorization: Bearer <intake.token>`. "
        "`none`: no authentication (only behind a trusted proxy).",
    )
    token: SecretStr | None = Field(
        default=None,
        description="Bearer token of the alert webhooks. Empty with auth=token: rootward generates one "
        "at first start and keeps it in `<data_dir>/intake-token`.",
    )
    max_body_bytes: int = Field(default=1024 * 1024, gt=0, description="Larger request bodies get 413.")
    max_alerts_per_request: int = Field(default=1000, gt=0, description="More alerts in one body get 400.")
    # One section per intake connector (ingest/<name>.py); a section turns its endpoint on (docs/integrations.md).
    pagerduty: PagerDutySettings | None = Field(default=None, description="POST /api/v1/alerts/pagerduty (v3, signed)")
    opsgenie: OpsgenieSettings | None = Field(default=None, description="POST /api/v1/alerts/opsgenie")
    grafana: GrafanaSettings | None = Field(default=None, description="POST /api/v1/alerts/grafana")
    keep: KeepSettings | None = Field(default=None, description="POST /api/v1/alerts/keep")
    cloudevents: CloudEventsSettings | None = Field(default=None, description="POST /api/v1/alerts/cloudevents")


class RuntimeSettings(Section):
    max_concurrent: int = Field(default=10, gt=0, description="Investigations running at once, all workers.")
    queue_ttl_s: float = Field(
        default=600, gt=0, description="A job not started within this many seconds is marked expired."
    )
    lease_s: float = Field(default=30, gt=0, description="A claimed job's lease; a dead worker loses it then.")
    heartbeat_s: float = Field(default=5, gt=0, description="How often a worker renews its leases.")
    workers: int = Field(default=2, ge=0, description="In-process workers of `rootward serve`.")
    poll_s: float = Field(default=0.2, gt=0, description="Idle queue poll interval.")
    pipeline: Literal["investigation", "placeholder"] = Field(
        default="investigation",
        description="`investigation`: snapshot, engine, record, act, notify. `placeholder`: bookkeeping "
        "steps only (runtime tests and demos of the queue).",
    )


class ServerSettings(Section):
    host: str = Field(default="127.0.0.1", description="Bind address of `rootward serve`.")
    port: int = Field(default=8080, ge=0, le=65535, description="Port of `rootward serve`.")
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    access_log: bool = Field(default=False, description="One log line per request (costs throughput).")
    secure_cookies: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="Mark the console's session cookie Secure: `auto` when the request came over HTTPS "
        "(directly or via a trusted proxy's X-Forwarded-Proto), `always` behind any TLS proxy (docs/security.md).",
    )
    session_ttl_h: float = Field(
        default=12, gt=0, le=24 * 30, description="Hours a console sign-in lasts (sign-out ends it at once)."
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins (e.g. https://rootward.example.com) whose console form posts are accepted besides "
        "the server's own Host; for proxies that rewrite the Host header.",
    )


class SettingsSections(BaseSettings):
    """The effective configuration: one field per section, nothing else.

    The live connectors' sections (prometheus, loki, kubernetes, github) are not
    listed here: `Settings` below adds one optional section per entry of the
    connector table, so a connector registers itself in one place.
    """

    model_config = SettingsConfigDict(
        env_prefix="ROOTWARD_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    data_dir: Path = Field(default=Path("var"), description="Where the SQLite database and local state live.")
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    intake: IntakeSettings = Field(default_factory=IntakeSettings)
    router: RouterSettings = Field(default_factory=RouterSettings)
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    engine: EngineSettings = Field(default_factory=EngineSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    knowledge: KnowledgeSettings = Field(default_factory=KnowledgeSettings)
    notify: NotifySettings = Field(default_factory=NotifySettings)
    actions: ActionsSettings = Field(default_factory=ActionsSettings)
    replay: ReplaySettings = Field(default_factory=ReplaySettings)
    topology: TopologySettings = Field(default_factory=TopologySettings)
    worldmodel: WorldModelSettings = Field(default_factory=WorldModelSettings)
    tracing: TracingSettings = Field(
        default_factory=TracingSettings, description="OpenTelemetry traces of rootward itself."
    )

    @model_validator(mode="after")
    def _default_database(self) -> SettingsSections:
        if not self.database.url:
            self.database.url = f"sqlite:///{self.data_dir / 'rootward.db'}"
        return self

    @property
    def database_url(self) -> str:
        assert self.database.url is not None  # filled by _default_database
        return self.database.url

    def connector_sections(self) -> dict[str, ConnectorSettings]:
        """The configured connector sections by name, in the connector table's order."""
        sections = {c.name: getattr(self, c.name, None) for c in CONNECTORS}
        return {name: section for name, section in sections.items() if section is not None}

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (
            init_settings,
            env_settings,
            _DatabaseUrlShortcut(settings_cls),
            _YamlFile(settings_cls),
        )


def _with_connector_sections(base: type[SettingsSections]) -> type[SettingsSections]:
    """`base` plus one optional top-level section per connector, described by its entry."""
    sections: dict[str, Any] = {
        c.name: (c.settings | None, Field(default=None, description=c.description)) for c in CONNECTORS
    }
    return create_model("Settings", __base__=base, __module__=__name__, __doc__=base.__doc__, **sections)


if TYPE_CHECKING:  # the type checker sees the static sections; connector sections are read by name
    Settings = SettingsSections
else:
    Settings = _with_connector_sections(SettingsSections)


class _DatabaseUrlShortcut(PydanticBaseSettingsSource):
    """`ROOTWARD_DATABASE_URL` as DESIGN.md documents it, besides `ROOTWARD_DATABASE__URL`."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        url = os.environ.get(ENV_DATABASE_URL_SHORTCUT)
        return {"database": {"url": url}} if url else {}


_config_path: Path | None = None


class _YamlFile(PydanticBaseSettingsSource):
    """The YAML file chosen by `load_settings` (module state, since sources take no arguments)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        if _config_path is None:
            return {}
        return read_yaml(_config_path)


def read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections, got {type(data).__name__}")
    return data


def config_path_of(explicit: Path | str | None) -> Path | None:
    """`--config`, else `ROOTWARD_CONFIG`, else `./rootward.yaml` when it exists."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(ENV_CONFIG)
    if env:
        return Path(env)
    return DEFAULT_CONFIG_FILE if DEFAULT_CONFIG_FILE.is_file() else None


def format_validation_error(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        path = ".".join(str(part) for part in err["loc"]) or "(root)"
        lines.append(f"{path}: {err['msg']}")
    return "\n".join(lines)


def load_settings(config: Path | str | None = None, **overrides: Any) -> Settings:
    """Read, merge and validate the configuration; a bad one raises ConfigError naming the key path."""
    global _config_path
    path = config_path_of(config)
    if path is not None and not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    _config_path = path
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        where = f" in {path}" if path else ""
        raise ConfigError(f"invalid configuration{where}:\n{format_validation_error(exc)}") from None
    finally:
        _config_path = None


def masked_dump(settings: Settings) -> dict[str, Any]:
    """The effective config as plain data, secrets replaced by `**********`."""
    data = settings.model_dump(mode="json")
    data["database"]["url"] = _mask_url_password(settings.database_url)
    return data


def _mask_url_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    creds, _, host = rest.rpartition("@")
    if ":" not in creds:
        return url
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:**********@{host}"


def json_schema() -> dict[str, Any]:
    return Settings.model_json_schema()
