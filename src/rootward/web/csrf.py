"""Cross-site request checks for the console's cookie-authenticated posts (pure, no I/O).

Two independent checks, both must pass:

1. Where the request comes from. Browsers send `Sec-Fetch-Site` and `Origin`
   on every form post and fetch. Only `same-origin` is accepted: `same-site`
   (another port or subdomain of the same host, which SameSite=Strict cookies
   do not stop) is refused, and so is an `Origin` that is not the server's own
   (scheme and port included) or one of `server.allowed_origins`.
2. What the page knew. Every console form carries the session's CSRF token
   (`csrf_token` field, or the `X-CSRF-Token` header for scripts); a page on
   another origin cannot read it.

API routes never need this: they take the `Authorization` header only, which
a cross-site page cannot make a browser send.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
ACCEPTED_FETCH_SITES = ("same-origin", "none")  # "none": typed or bookmarked by the user
DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_origin(origin: str) -> str | None:
    """`scheme://host:port` in lower case with the port explicit; None if it is not an origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.hostname.lower()}:{port or DEFAULT_PORTS[parts.scheme]}"


def own_origins(host: str | None, scheme: str, allowed: Iterable[str] = ()) -> set[str]:
    """The origins a same-origin page of this server can have: the Host as requested, plus configured ones."""
    origins = {o for o in (normalise_origin(a) for a in allowed) if o}
    if host:
        own = normalise_origin(f"{scheme}://{host}")
        if own:
            origins.add(own)
    return origins


def cross_site_reason(headers: Mapping[str, str], origins: set[str]) -> str | None:
    """Why a cookie-authenticated post must be refused as cross-site; None if it may proceed."""
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site.lower() not in ACCEPTED_FETCH_SITES:
        return f"cross-site request refused (Sec-Fetch-Site: {fetch_site})"
    origin = headers.get("origin")
    if origin is not None:
        normal = normalise_origin(origin)
        if normal is None or normal not in origins:
            return f"cross-site request refused (Origin {origin} is not this server)"
    return None


def token_matches(given: str | None, expected: str) -> bool:
    return bool(given) and hmac.compare_digest(str(given).encode(), expected.encode())
