"""Every MCP tool call in the audit trail: who (the token's user), which tool, with what, and what came of it.

One `mcp.tool_call` row per call, refused ones included (a missing or
revoked token, a role too low), in the hash chain beside the web console's
and the chat's actions, so "who read this incident, and from which
assistant" has the same answer everywhere. The row's subject is the
incident the call was about, when it named one, else `mcp`.

Arguments are stored masked: a value under a key that names a credential
(`token`, `secret`, `password`, `api_key`, ...) is replaced outright, and
every string is passed through the scrubber that guards LLM prompts
(`context/scrub.py`), so a bearer token or key pasted into a question does
not land in the trail.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from sqlalchemy.orm import Session, sessionmaker

from rootward.context.scrub import scrub_text
from rootward.store.audit import append_audit

KIND = "mcp.tool_call"
MASK = "**********"
CREDENTIAL_KEY = re.compile(r"token|secret|passw|api[_-]?key|authorization|credential|cookie", re.IGNORECASE)
Outcome = Literal["ok", "refused", "error"]


def masked(value: Any, key: str = "") -> Any:
    """`value` with credentials replaced and every string scrubbed, recursively."""
    if key and CREDENTIAL_KEY.search(key) and value is not None:
        return MASK
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, Mapping):
        return {str(k): masked(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked(v) for v in value]
    return value


def audit_tool_call(
    sessions: sessionmaker[Session],
    *,
    user: str | None,
    tool: str,
    arguments: Mapping[str, Any],
    outcome: Outcome,
    detail: str = "",
    ms: float = 0.0,
) -> None:
    """Append one call's row, in its own transaction (a read-only tool has no other to join)."""
    subject = arguments.get("investigation_id")
    data = {
        "user": user,
        "tool": tool,
        "arguments": masked(dict(arguments)),
        "outcome": outcome,
        "detail": scrub_text(detail),
        "ms": round(ms, 1),
    }
    with sessions() as session, session.begin():
        append_audit(session, KIND, str(subject) if isinstance(subject, str) and subject else "mcp", data)
