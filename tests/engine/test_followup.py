from __future__ import annotations

from rootward.domain.investigation import Claim, EvidenceItem, InvestigationResult
from rootward.engine.followup import answer

RESULT = InvestigationResult(
    bundle="b",
    status="validated",
    claims=[
        Claim(text="Deploy deploy-3815 on catalog landed 3 min before the onset.", evidence=["E3"]),
        Claim(text="catalog error rate rose from 0.1% to 12%.", evidence=["E2"]),
    ],
    evidence={
        "E2": EvidenceItem(kind="metric", cite="metrics.csv:catalog/error_rate@1-2", excerpt="error_rate up"),
        "E3": EvidenceItem(kind="change", cite="changes.json:deploy-3815", excerpt="deploy v3.6.0 on catalog"),
    },
)


def test_a_deploy_question_is_answered_with_the_change_and_its_citation() -> None:
    reply = answer(RESULT, "what was deployed before the incident?")
    assert reply.text.splitlines()[1].startswith("Deploy deploy-3815")
    assert "E3" in reply.evidence


def test_every_cited_id_exists_in_the_investigation() -> None:
    for question in ("error rate?", "which metrics moved", "deploy"):
        assert set(answer(RESULT, question).evidence) <= set(RESULT.evidence)


def test_a_question_the_evidence_cannot_answer_says_so() -> None:
    reply = answer(RESULT, "kubernetes quota xyz")
    assert reply.evidence == () and "does not know" in reply.text


def _incident():  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from rootward.domain.telemetry import Change
    from rootward.engine.followup_context import FollowupContext

    fired = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
    changes = (
        Change("deploy-3815", "deploy", "catalog", datetime(2026, 3, 14, 11, 40, tzinfo=UTC), version="v3.6.0"),
        Change("deploy-9", "deploy", "cart", datetime(2026, 3, 14, 11, 20, tzinfo=UTC), summary="bump deps"),
        Change("cfg-2", "config", "cart", datetime(2026, 3, 14, 11, 55, tzinfo=UTC)),
        Change("deploy-1", "deploy", "cart", datetime(2026, 3, 14, 9, 0, tzinfo=UTC)),
    )
    return RESULT.model_copy(update={"fired_at": fired}), FollowupContext(changes=changes, fired_at=fired)


def test_a_question_about_deploys_in_a_window_lists_each_from_the_incidents_data() -> None:
    result, context = _incident()
    reply = answer(result, "which deploys happened in the last hour?", context)
    lines = reply.text.splitlines()
    assert lines[0] == "2 deploy(s) in the hour before the alert fired (12:00 UTC):"
    assert lines[1] == "deploy deploy-3815 on catalog at 11:40 UTC (v3.6.0) [E3]"  # cited by the RCA: its id
    assert lines[2] == "deploy deploy-9 on cart at 11:20 UTC: bump deps [changes.json:deploy-9]"  # not cited: its cite
    assert reply.evidence == ("E3",) and reply.cites == ("changes.json:deploy-9",)
    every = answer(result, "what changed in the past 10 minutes?", context)
    assert every.text.splitlines()[1].startswith("config cfg-2 on cart at 11:55 UTC")


def test_without_the_incidents_data_the_cited_changes_answer_and_nothing_is_made_up() -> None:
    reply = answer(RESULT, "which deploys happened in the last hour?")
    assert "Deploy deploy-3815 on catalog landed 3 min before the onset. [E3]" in reply.text
    assert reply.evidence == ("E3",) and reply.cites == ()
    result, context = _incident()
    none = answer(result, "any feature flag flipped in the last 5 minutes?", context)
    assert none.text.startswith("No feature_flag in the 5 minutes before the alert") and none.evidence == ()


def test_words_meet_their_stems() -> None:
    from rootward.engine.followup import stem

    assert {stem(w) for w in ("deploys", "deployed", "deploying", "deploy")} == {"deploy"}
    assert stem("services") == "service" and stem("class") == "class"
