"""Who is calling: API tokens for `/api/*`, server-side sessions for the console.

- `/api/*` takes `Authorization: Bearer rw_...` only, never a cookie: a page
  on another site can make a browser send cookies, not that header.
- The console signs in with a token once; the browser then holds the
  `rootward_session` cookie, a random id of a server-side session
  (store/console_sessions.py), never the token. Console pages also take the
  bearer header, for scripts.
- Every cookie-authenticated post passes `web/csrf.py`'s checks (origin and
  the session's CSRF token) before its handler runs: `form_user`.

Only SHA-256 hashes of tokens and session ids are stored.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fastapi import HTTPException, Request, Response

from rootward.domain.roles import Role
from rootward.store.console_sessions import ConsoleSession, session_for
from rootward.store.users import User, user_for_token
from rootward.web.csrf import CSRF_FIELD, CSRF_HEADER, cross_site_reason, own_origins, token_matches

SESSION_COOKIE = "rootward_session"
_UNSET = object()  # request.state.console_session before the first lookup of this request


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def api_user(request: Request) -> User | None:
    """The user of the bearer token (the only credential `/api/*` accepts)."""
    token = bearer_token(request)
    if not token:
        return None
    with request.app.state.sessions() as session:
        return user_for_token(session, token)


def require(role: Role) -> Callable[[Request], User]:
    """A FastAPI dependency for API routes: the bearer token's user, if its role is at least `role`."""

    def dependency(request: Request) -> User:
        user = api_user(request)
        if user is None:
            reason = "invalid, revoked or disabled API token" if bearer_token(request) else "missing bearer token"
            raise HTTPException(
                401,
                f"{reason}: send 'Authorization: Bearer <token>' (rootward tokens create USER)",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if not user.role.at_least(role):
            raise HTTPException(403, f"{user.name} is {user.role.value}; this needs {role.value}")
        return user

    return dependency


def console_session(request: Request) -> ConsoleSession | None:
    """The live server-side session of the request's cookie, if any."""
    cached = getattr(request.state, "console_session", _UNSET)
    if cached is not _UNSET:
        return cached  # type: ignore[return-value]
    session_id = request.cookies.get(SESSION_COOKIE)
    found = None
    if session_id:
        with request.app.state.sessions() as session:
            found = session_for(session, session_id)
    request.state.console_session = found
    return found


def console_user(request: Request) -> User | None:
    """A console page's user: the bearer token's if one is sent, else the session cookie's."""
    if bearer_token(request):
        return api_user(request)
    found = console_session(request)
    return found.user if found else None


def to_login() -> HTTPException:
    return HTTPException(303, headers={"Location": "/login"})


def refuse_cross_site(request: Request) -> None:
    """403 unless the request comes from a page of this server (also before signing in: login CSRF)."""
    settings = request.app.state.settings.server
    origins = own_origins(request.headers.get("host"), request.url.scheme, settings.allowed_origins)
    reason = cross_site_reason(request.headers, origins)
    if reason is not None:
        raise HTTPException(403, reason)


async def form_user(request: Request) -> User:
    """A FastAPI dependency for console posts: the user, after the cross-site checks.

    A bearer-token caller is not a browser acting on ambient credentials and
    needs no CSRF token; a cookie caller needs a same-origin request carrying
    its session's token.
    """
    if bearer_token(request):
        user = api_user(request)
        if user is None:
            raise HTTPException(401, "invalid, revoked or disabled API token", headers={"WWW-Authenticate": "Bearer"})
        return user
    found = console_session(request)
    if found is None:
        raise to_login()
    refuse_cross_site(request)
    given = request.headers.get(CSRF_HEADER)
    if given is None:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        given = value if isinstance(value, str) else None
    if not token_matches(given, found.csrf_token):
        raise HTTPException(403, "missing or invalid CSRF token: reload the page and submit the form again")
    return found.user


def secure_cookie(request: Request) -> bool:
    mode = request.app.state.settings.server.secure_cookies
    return mode == "always" or (mode == "auto" and request.url.scheme == "https")


def set_session_cookie(request: Request, response: Response, session_id: str, ttl: timedelta) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=int(ttl.total_seconds()),
        httponly=True,
        samesite="strict",
        secure=secure_cookie(request),
        path="/",
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="strict", secure=secure_cookie(request), path="/")
