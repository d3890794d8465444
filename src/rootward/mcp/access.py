"""Who is calling the MCP server, and whether their role allows the tool: the web API's token model.

Over streamable HTTP every request carries `Authorization: Bearer rw_...`
(one token per person, `rootward tokens create`); over stdio the process
has one token, from `ROOTWARD_TOKEN`. Either way the token is looked up on
every call, so a revoked token or a disabled user is refused on the next
one, as in the API.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy.orm import Session, sessionmaker

from rootward.domain.roles import Role
from rootward.store.users import User, user_for_token

# What each tool and resource needs. Reading incidents and asking about them is a viewer's right (as
# `POST /api/v1/investigations/{id}/ask`); running the engine on a bundle or probing the data sources
# spends other systems' capacity, so it takes a responder.
TOOL_ROLES: Mapping[str, Role] = {
    "list_incidents": Role.VIEWER,
    "get_rca": Role.VIEWER,
    "get_evidence": Role.VIEWER,
    "ask": Role.VIEWER,
    "investigate_bundle": Role.RESPONDER,
    "sources_check": Role.RESPONDER,
    "resource": Role.VIEWER,
}


class AccessDenied(Exception):
    """No valid token, or a role below what the tool needs; the message says which and how to fix it."""


def bearer(headers: Mapping[str, str] | None) -> str | None:
    """The token of an `Authorization: Bearer ...` header, if any (header names in any case)."""
    if not headers:
        return None
    value = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class TokenAccess:
    """Resolves the caller from a fixed token (stdio) or the request's bearer header (HTTP)."""

    def __init__(self, sessions: sessionmaker[Session], *, token: str | None = None) -> None:
        self._sessions = sessions
        self._token = token

    def user_of(self, token: str | None) -> User | None:
        if not token:
            return None
        with self._sessions() as session:
            return user_for_token(session, token)

    def caller(self, headers: Mapping[str, str] | None) -> User:
        token = self._token or bearer(headers)
        user = self.user_of(token)
        if user is None:
            reason = "invalid, revoked or disabled API token" if token else "missing API token"
            raise AccessDenied(
                f"{reason}: send 'Authorization: Bearer <token>' over HTTP or set ROOTWARD_TOKEN for stdio "
                "(rootward tokens create USER)"
            )
        return user

    def require(self, headers: Mapping[str, str] | None, what: str) -> User:
        """The caller, if their role is at least what `what` (a tool name or "resource") needs."""
        user = self.caller(headers)
        check_role(user, what)
        return user


def check_role(user: User, what: str) -> None:
    """Raise AccessDenied unless `user`'s role is at least what `what` needs."""
    needed = TOOL_ROLES[what]
    if not user.role.at_least(needed):
        raise AccessDenied(f"{user.name} is {user.role.value}; {what} needs {needed.value}")
