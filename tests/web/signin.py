"""Signing a test client in to the console the way a browser does: POST /login, then read the CSRF token."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def sign_in(client: TestClient, token: str) -> str:
    """Sign in with an API token; returns the session's CSRF token (the cookie stays on the client)."""
    client.cookies.clear()
    response = client.post("/login", data={"token": token}, follow_redirects=False)
    assert response.status_code == 303, response.text
    page = client.get("/incidents")
    found = CSRF_META.search(page.text)
    assert found, "a signed-in page carries the CSRF token"
    return found.group(1)
