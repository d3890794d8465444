"""The host names a map gives an entity (`Entity.aliases`), and log lines that name it by them."""

from __future__ import annotations

from rootward.bundle.validate import parse_topology
from rootward.context.log_signals import names_entity
from rootward.context.topology import subgraph
from rootward.domain.topology import Entity
from tests.engine.small_incidents import log

MAP = """
entities:
  notifier: {kind: service, depends_on: [sms-vendor, queue-db]}
  sms-vendor: {kind: external, url: "https://sms.example.io/v1"}
  queue-db: {kind: database, host: "queue-db.internal:5432", owner: "team-a"}
"""


def test_address_attributes_give_host_names_and_nothing_else_does() -> None:
    assert Entity("sms-vendor", attributes={"url": "https://sms.example.io/v1"}).aliases == ("sms.example.io",)
    assert Entity("db", attributes={"host": "db1.internal:5432", "aliases": "payments-api, db"}).aliases == (
        "db1.internal",
        "payments-api",
    )
    # An owner, a note or a team is not an address; a loopback address names every machine.
    assert Entity("db", attributes={"owner": "team.payments", "url": "http://localhost:8080"}).aliases == ()


def test_the_subgraph_carries_each_members_aliases() -> None:
    scope = subgraph(parse_topology(MAP), ["notifier"])
    assert scope.aliases == {"sms-vendor": ("sms.example.io",), "queue-db": ("queue-db.internal",)}


def test_a_line_names_an_entity_by_the_host_it_dialled() -> None:
    line = "slow response from upstream (https://sms.example.io): 4.1s"
    dialled = log("notifier", "slow response from upstream (<URL>)", example=line)
    assert names_entity(dialled, "sms-vendor", ("sms.example.io",))
    assert not names_entity(dialled, "sms-vendor")
    # A host inside a path is a route, not the vendor.
    routed = log("notifier", "GET /proxy/sms.example.io failed", example="GET /proxy/sms.example.io failed")
    assert not names_entity(routed, "sms-vendor", ("sms.example.io",))


def test_a_malformed_address_or_a_yaml_list_neither_breaks_nor_hides_the_aliases() -> None:
    """A typo in a map's URL gave a ValueError out of every investigation touching the entity."""
    assert Entity("db", attributes={"url": "http://[fe80::1"}).aliases == ()
    listed = parse_topology("entities:\n  pay: {kind: service, aliases: [payments-api, pay.internal]}\n")
    assert listed.entities["pay"].aliases == ("payments-api", "pay.internal")


def test_the_answer_is_per_entity_and_alias_whatever_was_asked_before() -> None:
    """`names_entity` is memoised on the text, the entity and its aliases: no answer leaks to another."""
    line = "connection refused by queue-db.internal:5432"
    signal = log("notifier", "connection refused by <HOST>", example=line)
    for _ in range(2):
        assert names_entity(signal, "queue-db")
        assert not names_entity(signal, "sms-vendor")
        assert names_entity(signal, "sms-vendor", ("queue-db.internal",))
        assert not names_entity(signal, "queue")
