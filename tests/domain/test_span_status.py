"""Where no status was recorded, a span's attributes say how it ended."""

from __future__ import annotations

from rootward.domain.span_status import attribute_status, tagged_status


def test_grpc_codes_by_number_or_name() -> None:
    assert attribute_status({"rpc.grpc.status_code": "UNAVAILABLE"}) == "error"
    assert attribute_status({"rpc.grpc.status_code": "deadline_exceeded"}) == "error"
    assert attribute_status({"grpc.status_code": 0}) == "ok"
    assert attribute_status({"rpc.grpc.status_code": 3}) == "ok"  # INVALID_ARGUMENT: the caller's


def test_what_is_no_code_says_nothing() -> None:
    assert attribute_status({"http.status_code": True}) is None
    assert attribute_status({"http.status_code": 42}) is None
    assert attribute_status({}) is None


def test_an_error_flag_and_a_recorded_status() -> None:
    assert tagged_status({"error": "true"}) == "error"
    assert tagged_status({"error": False}) == "ok"
    assert tagged_status({"otel.status_code": "OK"}) == "ok"
    assert tagged_status({"http.status_code": 500}) is None  # a code is not a flag
