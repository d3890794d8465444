"""A name inside a path is a route or a file, not the service that failed."""

from __future__ import annotations

from rootward.engine.signals import mentions
from tests.engine.small_incidents import log


def _names(line: str, entity: str = "profile") -> bool:
    return mentions(log("player-api", line, example=line), entity)


def test_a_route_or_a_file_named_like_a_service_does_not_name_it() -> None:
    assert not _names("TraceID: 4bf9 SpanID: 00f0 request failed GET /api/profile")
    assert not _names("sqlite3.DatabaseError: database disk image is malformed (while loading /data/profile/state.db)")


def test_a_service_standing_alone_or_as_a_urls_host_is_named() -> None:
    assert _names("call to http://profile:8080/api failed: 503 Service Unavailable")
    assert _names("upstream profile timed out after 800ms")
    assert _names("no route to host profile")
    assert _names("rpc error: hipstershop.ProfileService/Get failed", entity="ProfileService")
