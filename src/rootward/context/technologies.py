"""Which kind of dependency a failure line names by its technology: `redis`, `postgres`, `:5432`, `kafka`.

A caller's failure lines seldom name the service they called, but the client names its
technology (`redis upstream:6379: connection reset by peer`, `psycopg2.OperationalError:
could not connect to server`, `RedisConnectionFailureException`, `MongoTimeoutException`).
Where the caller depends on exactly one entity of that kind (its one cache, its one database),
the line names that entity as surely as its host name would. Products only, not client
libraries and pools (`HikariPool ... Connection is not available` is the caller's own pool), but
a product's own driver names it (`psycopg2`, `pymongo`, `jedis`).
"""

from __future__ import annotations

import re

# Per kind of dependency: the products that are one, and their well-known ports.
PRODUCTS: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {
    "cache": (("redis", "memcached", "memcache", "valkey", "keydb", "jedis"), (6379, 11211)),
    "database": (
        (
            "postgres",
            "postgresql",
            "psycopg",
            "psycopg2",
            "mysql",
            "mariadb",
            "mongo",
            "mongodb",
            "pymongo",
            "cassandra",
            "cockroachdb",
            "clickhouse",
        ),
        (5432, 3306, 27017, 9042, 26257),
    ),
    "queue": (("kafka", "rabbitmq", "amqp", "nats", "activemq", "pulsar"), (9092, 5672, 4222, 61616, 6650)),
}
# Topology kinds of each kind of dependency.
KINDS: dict[str, frozenset[str]] = {
    "cache": frozenset({"cache"}),
    "database": frozenset({"database", "db", "warehouse"}),
    "queue": frozenset({"queue", "broker", "stream"}),
}
# A product name standing as a word or starting one in CamelCase (`RedisConnectionFailureException`),
# or one of its ports after a host (`upstream:6379`).
_PATTERNS = {
    family: re.compile(
        rf"(?<![A-Za-z])(?:{'|'.join(words)})(?![a-z])|:(?:{'|'.join(str(p) for p in ports)})(?!\d)", re.I
    )
    for family, (words, ports) in PRODUCTS.items()
}
_CAMEL = {
    family: re.compile(rf"(?<![A-Za-z])(?:{'|'.join(w.capitalize() for w in words)})(?=[A-Z])")
    for family, (words, _) in PRODUCTS.items()
}


def kind_family(kind: str) -> str | None:
    """The kind of dependency an entity of this topology kind is (cache, database, queue), if any."""
    k = kind.lower()
    return next((family for family, kinds in KINDS.items() if k in kinds), None)


def families_named(text: str) -> set[str]:
    """The kinds of dependency the text names by a product or its port."""
    return {f for f in PRODUCTS if _PATTERNS[f].search(text) or _CAMEL[f].search(text)}
