from __future__ import annotations

import pytest

from rootward.web.csrf import cross_site_reason, normalise_origin, own_origins, token_matches

ORIGINS = own_origins("rootward.example.com", "https", ["https://ops.example.com"])


@pytest.mark.parametrize(
    ("headers", "refused"),
    [
        ({}, False),  # no browser metadata at all: the CSRF token alone decides
        ({"origin": "https://rootward.example.com", "sec-fetch-site": "same-origin"}, False),
        ({"origin": "https://rootward.example.com:443"}, False),
        ({"origin": "https://ops.example.com"}, False),  # server.allowed_origins
        ({"origin": "https://rootward.example.com:8443"}, True),  # another port of the same host
        ({"origin": "http://rootward.example.com"}, True),  # same host, plain HTTP
        ({"origin": "https://evil.example.com"}, True),
        ({"origin": "null"}, True),  # sandboxed iframes, data: URLs
        ({"sec-fetch-site": "same-site"}, True),
        ({"sec-fetch-site": "cross-site"}, True),
        ({"sec-fetch-site": "none"}, False),
    ],
)
def test_only_the_servers_own_origin_may_post(headers: dict[str, str], refused: bool) -> None:
    assert (cross_site_reason(headers, ORIGINS) is not None) is refused


def test_origins_compare_with_explicit_ports_and_lower_case_hosts() -> None:
    assert normalise_origin("HTTP://Host.Example:80") == "http://host.example:80"
    assert normalise_origin("https://host.example") == "https://host.example:443"
    assert normalise_origin("ftp://host.example") is None and normalise_origin("https://h:notaport") is None


def test_an_empty_or_different_token_never_matches() -> None:
    assert token_matches("abc", "abc") and not token_matches("abd", "abc")
    assert not token_matches(None, "abc") and not token_matches("", "abc")
