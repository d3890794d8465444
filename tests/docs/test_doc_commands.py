"""Every command in README.md and docs/*.md runs from a clone alone (tests/docs/doc_commands.py says how)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.doc_commands import (
    REPO,
    Block,
    blocks,
    console_commands,
    doc_files,
    expected_exit,
    makes_golden,
    script,
    shell_commands,
)
from tests.docs.workspace import run_doc

DOCS = doc_files()
# The docs that generate the golden set run on one worker, so it is generated once per command, not once per doc.
DOC_PARAMS = [pytest.param(d, marks=pytest.mark.xdist_group("golden_docs")) if makes_golden(d) else d for d in DOCS]


def test_a_script_splits_into_commands_with_their_continuations_and_heredocs() -> None:
    body = "a --x \\\n  --y\n# a comment\ncat > f <<'EOF'\nk: v\nEOF\nb  # exit 2: refused\n"
    assert shell_commands(body) == ["a --x \\\n  --y", "cat > f <<'EOF'\nk: v\nEOF", "b  # exit 2: refused"]
    assert [expected_exit(c) for c in shell_commands(body)] == [0, 0, 2]


def test_a_console_block_keeps_the_commands_and_drops_the_output() -> None:
    body = "$ rootward graph show x\nx (service)\n  needs: y\n$ cat > f <<'Y'\nk: v\nY\n$ echo '#' done\n"
    assert console_commands(body) == ["rootward graph show x", "cat > f <<'Y'\nk: v\nY", "echo '#' done"]
    assert expected_exit("echo '# exit 3'") == 0


def test_every_doc_block_that_is_not_run_says_why_with_a_known_marker() -> None:
    every = [b for d in DOCS for b in blocks(d)]
    assert len(every) > 30
    skipped: list[Block] = [b for b in every if b.markers & {"live", "long"}]
    assert len(skipped) < len(every) / 3, [b.where for b in skipped]


def _cached_script(doc: str) -> str:
    return script(blocks(REPO / doc), ports={"8080": 1, "8081": 2}, tmp=Path("/t"), golden_cache=Path("/c"))


def test_golden_set_commands_go_through_the_cache_and_their_comments_do_not() -> None:
    evaluation = _cached_script("docs/evaluation.md")
    assert "\nrw_golden 'make golden'  " in evaluation
    assert "# = rootward sim golden --out golden --examples examples\n" in evaluation
    assert "rw_golden 'rootward sim golden" not in evaluation
    assert "\nrw_golden 'make golden' && .venv/bin/rootward eval golden --jobs 2  " in _cached_script("README.md")
    world = _cached_script("docs/world-model.md")
    assert "\nrw_golden 'rootward sim golden --out golden'\n" in world
    assert "RW_GOLDEN_KEEP='shop-20260601-003'" in world
    assert "rw_golden" not in script(blocks(REPO / "docs/evaluation.md"), ports={"8080": 1, "8081": 2}, tmp=Path("/t"))
    assert [d.name for d in DOCS if makes_golden(d)] == ["README.md", "evaluation.md", "simulator.md", "world-model.md"]


@pytest.fixture(scope="session")
def golden_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    cache = tmp_path_factory.mktemp("golden-cache")
    yield cache
    shutil.rmtree(cache, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOC_PARAMS, ids=lambda d: str(Path(d).relative_to(REPO)))
def test_the_commands_of_the_doc_run(doc: Path, golden_cache: Path) -> None:
    result = run_doc(doc, golden_cache=golden_cache)
    assert result.returncode == 0, (result.stdout[-3000:], result.stderr[-6000:])
