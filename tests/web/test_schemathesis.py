"""A bounded schemathesis run against the app's own OpenAPI schema: no request may get a 5xx.

Every operation of the schema is fuzzed in-process (the ASGI app, no server)
with schema-conforming and schema-violating requests, on SQLite and on
PostgreSQL. Each generated request is sent twice: anonymously, and with a
bearer token that is both an admin's API token and the intake token (so the
handlers behind the auth checks see the fuzzed input too). Examples per
operation are few and shrinking is off, so the run stays bounded; a 5xx is
collected with the request that caused it, and the test reports them all.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from rootward.domain.roles import Role
from rootward.settings import load_settings
from rootward.store.db import make_engine, make_session_factory
from rootward.store.users import add_user, create_token
from rootward.web.app import create_app

MAX_EXAMPLES = 6  # per operation and generation mode
# 5xx that issue 14's defect 2 explains (values beyond PostgreSQL's column limits, NUL characters), fixed in
# parallel at the intake edge: reported as an expected failure, so anything else still fails this test.
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)


@dataclass
class ServerError:
    operation: str
    status: int
    body: str
    request: str


@dataclass
class Target:
    schema: Any
    token: str
    errors: list[ServerError] = field(default_factory=list)
    answered: Counter[tuple[str, int]] = field(default_factory=Counter)  # (operation, status) with the token


@pytest.fixture
def target(migrated_db_url: str, tmp_path: Path) -> Iterator[Target]:
    engine = make_engine(migrated_db_url)
    with make_session_factory(engine)() as s, s.begin():
        add_user(s, "root", Role.ADMIN)
        token = create_token(s, "root", "schemathesis")
    settings_ = load_settings(
        data_dir=tmp_path,
        database={"url": migrated_db_url},
        intake={"token": token},
        runtime={"workers": 0},
        notify={"slack": {"bot_token": "xoxb-x", "channel": "C1", "signing_secret": "s"}},
    )
    app = create_app(settings_, engine=engine)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    yield Target(schema, token)
    engine.dispose()


def _fuzz(target: Target, operation: Any, mode: GenerationMode) -> None:
    label = f"{operation.method.upper()} {operation.path} ({mode.value})"

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        for headers in ({}, {"authorization": f"Bearer {target.token}"}):
            response = case.call(headers=headers)
            if headers:
                target.answered[(f"{operation.method.upper()} {operation.path}", response.status_code)] += 1
            if response.status_code >= 500:
                request = case.as_curl_command(headers)
                target.errors.append(ServerError(label, response.status_code, response.text[:300], request))

    with contextlib.suppress(Unsatisfiable):  # nothing to violate (e.g. GET /healthz has no inputs)
        run()


def test_no_request_the_schema_describes_or_violates_gets_a_5xx(target: Target) -> None:
    operations = [result.ok() for result in target.schema.get_all_operations()]
    assert len(operations) >= 20  # the whole API, console routes included
    for operation in operations:
        for mode in MODES:
            _fuzz(target, operation, mode)
    # The fuzzed input reached the handlers behind authentication, not only the 401s in front of them.
    for path, accepted in (("POST /api/v1/alerts/alertmanager", 202), ("GET /api/v1/approvals", 200)):
        assert target.answered[(path, accepted)] > 0, f"{path} never answered {accepted}: {target.answered}"
    report = "\n".join(f"{e.operation}: {e.status} {e.body}\n    {e.request[:2000]}" for e in target.errors)
    assert not target.errors, f"{len(target.errors)} server errors:\n{report}"
