"""Who is calling: API tokens of users, and the role a route needs.

Tokens come as `Authorization: Bearer rw_...` or, for the browser console,
the `rootward_token` cookie. Only the token's SHA-256 is stored.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import HTTPException, Request

from rootward.domain.roles import Role
from rootward.store.users import User, user_for_token

COOKIE = "rootward_token"


def token_of(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.cookies.get(COOKIE) or None


def current_user(request: Request) -> User | None:
    token = token_of(request)
    if not token:
        return None
    with request.app.state.sessions() as session:
        return user_for_token(session, token)


def require(role: Role) -> Callable[[Request], User]:
    """A FastAPI dependency: the caller's user, if its role is at least `role`."""

    def dependency(request: Request) -> User:
        user = current_user(request)
        if user is None:
            raise HTTPException(
                401, "sign in with an API token (rootward tokens create USER)", headers={"WWW-Authenticate": "Bearer"}
            )
        if not user.role.at_least(role):
            raise HTTPException(403, f"{user.name} is {user.role.value}; this needs {role.value}")
        return user

    return dependency
