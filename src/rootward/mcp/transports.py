"""The two transports of `rootward mcp`: stdio (one local user, one token) and streamable HTTP (a token per request).

Over HTTP a request without a valid bearer token is answered 401 with
`WWW-Authenticate: Bearer` before the SDK sees it, as the MCP authorization
spec asks, so a client knows to send one; each tool then checks the role of
that same token. The SDK's DNS-rebinding protection is on when bound to a
loopback address.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from rootward.mcp.access import TokenAccess, bearer


class BearerGate:
    """ASGI middleware: HTTP requests need a live API token; everything else passes through."""

    def __init__(self, app: ASGIApp, access: TokenAccess) -> None:
        self._app = app
        self._access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        token = bearer(headers)
        user = await anyio.to_thread.run_sync(self._access.user_of, token) if token else None
        if user is None:
            reason = "invalid, revoked or disabled API token" if token else "missing bearer token"
            body = json.dumps(
                {"error": f"{reason}: send 'Authorization: Bearer <token>' (rootward tokens create USER)"}
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": body.encode()})
            return
        await self._app(scope, receive, send)


def http_app(server: MCPServer, access: TokenAccess, *, path: str = "/mcp", host: str = "127.0.0.1") -> Any:
    """The streamable HTTP ASGI app behind the bearer gate (its lifespan runs the SDK's session manager)."""
    return BearerGate(server.streamable_http_app(streamable_http_path=path, host=host), access)


def serve_http(server: MCPServer, access: TokenAccess, *, host: str, port: int, path: str, log_level: str) -> None:
    config = uvicorn.Config(http_app(server, access, path=path, host=host), host=host, port=port, log_level=log_level)
    uvicorn.Server(config).run()


def serve_stdio(server: MCPServer) -> None:
    server.run("stdio")
