from __future__ import annotations

import json
from pathlib import Path

from rootward.eval.kb_corpus import generate_files
from rootward.eval.kb_eval import score_query

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "kb" / "eval.json"


def test_hit_needs_every_must_document_in_the_top_five() -> None:
    assert score_query(["a", "b", "c", "d", "e", "f"], ["e"], []) == (True, True)
    assert score_query(["a", "b", "c", "d", "e", "f"], ["a", "f"], []) == (False, True)


def test_near_miss_fails_only_when_it_outranks_the_answer_inside_the_top_three() -> None:
    assert score_query(["must", "near"], ["must"], ["near"]) == (True, True)
    assert score_query(["near", "must"], ["must"], ["near"]) == (True, False)
    assert score_query(["x", "y", "z", "near", "must"], ["must"], ["near"]) == (True, True)


def test_corpus_is_deterministic_and_large_enough() -> None:
    files = generate_files(seed=7)
    assert files == generate_files(seed=7)
    assert sum(f.path.startswith("runbooks/") for f in files) >= 180
    assert sum(f.path.startswith("postmortems/") for f in files) >= 1200


def test_eval_set_covers_five_categories_and_its_documents_exist() -> None:
    data = json.loads(FIXTURE.read_text())
    files = generate_files(seed=data["corpus"]["seed"], postmortems=data["corpus"]["postmortems"])
    paths = {f.path for f in files}
    titles = {next(ln[2:] for ln in f.text.splitlines() if ln.startswith("# ")).lower() for f in files}
    queries = data["queries"]
    assert len(queries) >= 60
    assert {q["category"] for q in queries} == {
        "exact_error_code",
        "symptom_to_cause",
        "service_specific",
        "stale_vs_fresh",
        "negation",
    }
    for q in queries:
        assert q["must"] and set(q["must"]) <= paths and set(q["near_miss"]) <= paths
        assert q["near_miss"], q["id"]
        assert not any(t in q["query"].lower() for t in titles), q["id"]  # no query copies a title
