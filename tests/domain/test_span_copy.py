"""A span marked with a status is the copy `dataclasses.replace` would make, the original untouched."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from rootward.domain.telemetry import Span


def test_with_status_is_replace() -> None:
    span = Span(
        "t1",
        "s1",
        "cart",
        datetime(2026, 1, 1, tzinfo=UTC),
        12.5,
        "p0",
        None,
        "server",
        "GET",
        "cart-0",
        "n1",
        {"a": 1},
        7,
    )
    marked = span.with_status("error")
    assert marked == dataclasses.replace(span, status="error")
    assert span.status is None and marked.status == "error"
    assert marked.attributes is span.attributes  # shallow, as replace
    with pytest.raises(dataclasses.FrozenInstanceError):
        marked.status = "ok"  # type: ignore[misc]
