"""A service the spans show suffering one callee's answers never outranks that callee, however loud it is."""

from __future__ import annotations

from rootward.engine.hypotheses import VICTIM_FACTOR, EntityScore, rank_below_causes


def _score(entity: str, score: float, victim_of: str | None = None) -> EntityScore:
    return EntityScore(entity, score, score, 1.0, victim_of, [], [])


def test_a_loud_traced_victim_drops_below_its_quiet_cause() -> None:
    scores = [_score("portal", 0.60, victim_of="device-api"), _score("device-api", 0.58)]
    rank_below_causes(scores, {"portal": "device-api"})
    portal, device = scores
    assert portal.score < device.score == 0.58
    assert any("ranked below device-api" in r for r in portal.reasons)


def test_a_traced_victim_just_under_its_cause_stays_a_victims_share_below_it() -> None:
    """A hair under its cause, the specialists' extra findings at the louder victim lifted it back on top."""
    scores = [_score("core", 0.297), _score("trips", 0.287, victim_of="core")]
    rank_below_causes(scores, {"trips": "core"})
    assert scores[1].score == 0.297 * VICTIM_FACTOR


def test_other_victims_and_victims_already_far_below_keep_their_scores() -> None:
    # Victim by a log or topology rule only (not in the traced map), or already a victim's share below: untouched.
    scores = [_score("a", 0.9, victim_of="b"), _score("b", 0.5), _score("c", 0.15, victim_of="b")]
    rank_below_causes(scores, {"c": "b"})
    assert [s.score for s in scores] == [0.9, 0.5, 0.15]
    # The spans name a cause the ranking does not hold: nothing to rank below.
    lone = [_score("d", 0.7, victim_of="ghost")]
    rank_below_causes(lone, {"d": "ghost"})
    assert lone[0].score == 0.7
