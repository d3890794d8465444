"""Team notes that call a monitor or a log line harmless."""

from __future__ import annotations

from datetime import UTC, datetime

from rootward.context.assemble import AlertItem, KnowledgeItem
from rootward.domain.evidence import EvidenceRef
from rootward.engine.known_noise import harmless_log_phrases, known_harmless, monitor_notes
from tests.engine.small_incidents import log


def _doc(text: str, title: str = "reports notes", path: str = "bits/reports.md") -> KnowledgeItem:
    return KnowledgeItem(path=path, kind="bits", title=title, services=["reports"], text=text,
                         evidence=EvidenceRef("knowledge", f"knowledge/{path}#0", text[:60]))  # fmt: skip


ALERT = AlertItem(
    fingerprint="f",
    name="KubeJobFailed",
    service="reports",
    severity="warning",
    starts_at=datetime(2026, 1, 1, tzinfo=UTC),
    evidence=EvidenceRef("alert", "alerts.json:f"),
)


def test_sentence_naming_the_monitor_and_calling_it_harmless_counts() -> None:
    doc = _doc(
        "# reports\n\n- Calls the warehouse.\n- KubeJobFailed fires every night when the export retries; harmless."
    )
    [note] = monitor_notes(ALERT, [doc])
    assert "retries; harmless" in note.sentence and note.evidence == doc.evidence


def test_monitor_named_in_spaced_words_counts_too() -> None:
    assert monitor_notes(ALERT, [_doc("- The kube job failed alert is a known false positive here.")])


def test_harmless_words_about_something_else_do_not_make_the_monitor_noisy() -> None:
    doc = _doc("- Nightly batch at 02:00 makes p99 noisy for ~10 minutes; do not page for that.")
    assert monitor_notes(ALERT, [doc]) == []


def test_runbook_about_the_monitor_that_says_this_alert_is_noisy_counts() -> None:
    doc = _doc("# KubeJobFailed\n\nThis alert is noisy during the nightly export.", title="KubeJobFailed",
               path="runbooks/kubejobfailed.md")  # fmt: skip
    assert monitor_notes(ALERT, [doc])


def test_quoted_log_phrase_in_a_harmless_sentence_is_known_harmless() -> None:
    doc = _doc("- reports logs 'metrics push to gateway failed' all day; these errors are known and harmless.")
    phrases = harmless_log_phrases([doc])
    assert known_harmless(log("reports", "metrics push to gateway failed: 502 Bad Gateway"), phrases) is not None
    assert known_harmless(log("reports", "disk quota exceeded on /var/lib/reports"), phrases) is None
    assert known_harmless(log("billing", "metrics push to gateway failed: 502 Bad Gateway"), phrases) is None
