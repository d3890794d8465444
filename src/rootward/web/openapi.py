"""The complete OpenAPI schema: what FastAPI infers, plus what the raw-body routes cannot tell it.

The intake and change routes read their bodies themselves (size limit before
parsing, 415 before JSON, per-field 400s), so FastAPI sees no body model and
no error responses there. This module adds, per route, the request body the
route really validates (from the same pydantic models the parsers use) and
every status it can answer, so fuzzers (tests/web/test_schemathesis.py) and
client generators see the real contract. It also declares the bearer scheme
and which routes need it.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, TypeAdapter

from rootward.domain.alertmanager import AmPayload
from rootward.ingest.payloads import GenericAlert
from rootward.web.changes import ChangeIn

REF = "#/components/schemas/{model}"
BEARER = "bearerAuth"

INTAKE_ERROR: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {"type": "string"},
        "fields": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
            },
        },
    },
}
HTTP_ERROR: dict[str, Any] = {"type": "object", "properties": {"detail": {}}}


def _error(description: str, schema: str = "IntakeError") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": REF.format(model=schema)}}}}


INTAKE_RESPONSES = {
    "400": _error("Invalid payload; `fields` names each offending field and why."),
    "401": _error("Missing or wrong intake bearer token (intake.auth: token)."),
    "413": _error("Body over intake.max_body_bytes."),
    "415": _error("Content type is not application/json."),
    "503": _error("Not stored (database unavailable or intake overloaded); retry later."),
}
API_AUTH_RESPONSES = {
    "401": _error("Missing, invalid, revoked or disabled API token.", "HTTPError"),
    "403": _error("The token's user lacks the role this needs.", "HTTPError"),
}
ACCEPTED = {
    "description": "Stored; the alert and group ids.",
    "content": {"application/json": {"schema": {"type": "object"}}},
}


def _json_body(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"required": True, "description": description, "content": {"application/json": {"schema": schema}}}


def _schema_of(adapter: TypeAdapter[Any], components: dict[str, Any]) -> dict[str, Any]:
    schema = adapter.json_schema(ref_template=REF)
    components.update(schema.pop("$defs", {}))
    return schema


def _model(model: type[BaseModel], components: dict[str, Any]) -> dict[str, Any]:
    components[model.__name__] = _schema_of(TypeAdapter(model), components)
    return {"$ref": REF.format(model=model.__name__)}


def _raw_body_routes(components: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(path, method) → what to add to that operation."""
    generic = _model(GenericAlert, components)
    intake_ok = {"202": ACCEPTED, **INTAKE_RESPONSES}
    change_errors = {k: v for k, v in INTAKE_RESPONSES.items() if k != "503"}
    slack_form = {
        "type": "object",
        "required": ["payload"],
        "properties": {"payload": {"type": "string", "description": "The block_actions payload as JSON."}},
    }
    return {
        ("/api/v1/alerts/alertmanager", "post"): {
            "requestBody": _json_body(_model(AmPayload, components), "Alertmanager webhook, payload version 4."),
            "responses": intake_ok,
        },
        ("/api/v1/alerts", "post"): {
            "requestBody": _json_body(
                {"anyOf": [generic, {"type": "array", "items": generic}]}, "One generic alert or a list of them."
            ),
            "responses": intake_ok,
        },
        ("/api/v1/changes", "post"): {
            "requestBody": _json_body(_model(ChangeIn, components), "One deploy or config change."),
            "responses": {
                "201": {"description": "Recorded; its id.", "content": {"application/json": {"schema": {}}}},
                "409": _error("A change with this id is already recorded."),
                **change_errors,
            },
        },
        ("/api/v1/changes", "get"): {"responses": {"401": INTAKE_RESPONSES["401"]}},
        ("/api/v1/slack/interactions", "post"): {
            "requestBody": {
                "required": True,
                "content": {"application/x-www-form-urlencoded": {"schema": slack_form}},
            },
        },
        ("/readyz", "get"): {
            "responses": {"503": {"description": "Not ready: the database refuses writes or no worker beats."}}
        },
    }


def _needs_token(path: str) -> bool:
    return path.startswith("/api/v1/") and not path.startswith(("/api/v1/alerts", "/api/v1/changes", "/api/v1/slack"))


def build_openapi(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(title=app.title, version=app.version, routes=app.routes, description=app.description)
    components: dict[str, Any] = schema.setdefault("components", {}).setdefault("schemas", {})
    components["IntakeError"] = INTAKE_ERROR
    components["HTTPError"] = HTTP_ERROR
    schema["components"]["securitySchemes"] = {BEARER: {"type": "http", "scheme": "bearer"}}
    for (path, method), extra in _raw_body_routes(components).items():
        operation = schema["paths"].get(path, {}).get(method)
        if operation is None:
            continue
        if "requestBody" in extra:
            operation["requestBody"] = extra["requestBody"]
        operation.setdefault("responses", {}).update(extra.get("responses", {}))
        if path.startswith(("/api/v1/alerts", "/api/v1/changes")):
            operation["security"] = [{BEARER: []}, {}]  # intake.auth: none needs none
    for path, operations in schema["paths"].items():
        if not _needs_token(path):
            continue
        for operation in operations.values():
            operation["security"] = [{BEARER: []}]
            for code, response in API_AUTH_RESPONSES.items():
                operation["responses"].setdefault(code, response)
    return schema


def complete_openapi(app: FastAPI) -> dict[str, Any]:
    """`app.openapi`: built once, then served from `app.openapi_schema`."""
    if app.openapi_schema is None:
        app.openapi_schema = build_openapi(app)
    return app.openapi_schema
