"""A service the spans show suffering one callee's answers never outranks that callee, however loud it is."""

from __future__ import annotations

import pytest

from rootward.engine.hypotheses import VICTIM_FACTOR, EntityScore, rank_below_causes


def _score(entity: str, score: float, victim_of: str | None = None) -> EntityScore:
    return EntityScore(entity, score, score, 1.0, victim_of, [], [])


def test_a_loud_traced_victim_drops_below_its_quiet_cause() -> None:
    scores = [_score("portal", 0.60, victim_of="device-api"), _score("device-api", 0.58)]
    rank_below_causes(scores, {"portal": "device-api"})
    portal, device = scores
    assert device.score == pytest.approx(0.60 / VICTIM_FACTOR)  # what portal shows on its own evidence
    assert portal.score <= device.score * VICTIM_FACTOR + 1e-12
    assert any("ranked below device-api" in r for r in portal.reasons)


def test_a_traced_victim_of_a_cause_that_is_a_victim_itself_stays_a_victims_share_below_it() -> None:
    """A hair under its cause, the specialists' extra findings at the louder victim lifted it back on top."""
    scores = [_score("core", 0.297, victim_of="db"), _score("trips", 0.287, victim_of="core")]
    rank_below_causes(scores, {"trips": "core"})
    assert scores[0].score == 0.297
    assert scores[1].score == 0.297 * VICTIM_FACTOR
    assert any("ranked below core" in r for r in scores[1].reasons)


def test_the_cause_is_as_strong_as_its_victim_on_its_own_evidence() -> None:
    """TrainTicket-like seed 101, 027: a gateway raising on a redeployed tickets service's wrong answers.

    The gateway's own evidence (its failing spans) was the loudest; discounted as tickets' victim it
    fell below tickets, but tickets' own (a share of calls stopping after it) stayed below a payments
    database's memory step that harmed no one, and the database came first.
    """
    gateway_alone = 0.87
    scores = [
        _score("payments-db", 0.44),
        _score("tickets", 0.18),
        _score("gateway", gateway_alone * VICTIM_FACTOR, victim_of="tickets"),
    ]
    rank_below_causes(scores, {"gateway": "tickets"})
    db, tickets, gateway = scores
    assert tickets.score == pytest.approx(gateway_alone)
    assert tickets.score > db.score == 0.44
    assert gateway.score <= tickets.score * VICTIM_FACTOR + 1e-12
    assert any("as strong as gateway's symptoms" in r for r in tickets.reasons)


def test_a_cause_that_is_a_victim_itself_takes_nothing_from_its_own_victims() -> None:
    """A pricing engine failing on fx-rates, which fails on a vendor refusing connections: the vendor is the end."""
    scores = [
        _score("fx-vendor", 0.66),
        _score("fx-rates", 0.5, victim_of="fx-vendor"),
        _score("pricing", 0.9 * VICTIM_FACTOR, victim_of="fx-rates"),
    ]
    rank_below_causes(scores, {"fx-rates": "fx-vendor", "pricing": "fx-rates"})
    vendor, rates, _ = scores
    assert rates.score < vendor.score
    assert not any("as strong as" in r for r in rates.reasons)
    assert vendor.score == pytest.approx(0.5 / VICTIM_FACTOR)


def test_other_victims_and_victims_already_far_below_keep_their_scores() -> None:
    # Victim by a log or topology rule only (not in the traced map), or already a victim's share below: untouched.
    scores = [_score("a", 0.9, victim_of="b"), _score("b", 0.5), _score("c", 0.15, victim_of="b")]
    rank_below_causes(scores, {"c": "b"})
    assert [s.score for s in scores] == [0.9, 0.5, 0.15]
    # The spans name a cause the ranking does not hold: nothing to rank below.
    lone = [_score("d", 0.7, victim_of="ghost")]
    rank_below_causes(lone, {"d": "ghost"})
    assert lone[0].score == 0.7
