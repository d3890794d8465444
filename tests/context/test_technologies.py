"""Which kind of dependency a line names by its technology."""

from __future__ import annotations

import pytest

from rootward.context.technologies import families_named, kind_family


@pytest.mark.parametrize(
    ("line", "family"),
    [
        ("redis upstream:6379: connection reset by peer", "cache"),
        ("RedisConnectionFailureException: Unable to connect to Redis", "cache"),
        ("redis.exceptions.ConnectionError: Error 111 connecting to localhost", "cache"),
        ("MongoTimeoutException: Timed out after 30000 ms while waiting for a server", "database"),
        ("org.postgresql.util.PSQLException: Connection to db:5432 refused", "database"),
        ("psycopg2.OperationalError: could not connect to server", "database"),
        ("dial tcp 10.0.0.3:3306: connect: connection refused", "database"),
        ("kafka: client has run out of available brokers to talk to", "queue"),
    ],
)
def test_a_product_or_its_port_names_its_kind(line: str, family: str) -> None:
    assert families_named(line) == {family}


@pytest.mark.parametrize(
    "line",
    [
        "HikariPool-1 - Connection is not available, request timed out after 30000ms",  # the caller's own pool
        "credis failure",  # a word that only contains a product name
        "Mongoose schema error",
        "listening on :63790",  # not the port
        "order 6379 failed",  # a number, not a port after a host
    ],
)
def test_what_names_no_product(line: str) -> None:
    assert families_named(line) == set()


def test_kinds() -> None:
    assert kind_family("cache") == "cache"
    assert kind_family("Database") == "database"
    assert kind_family("broker") == "queue"
    assert kind_family("service") is None
