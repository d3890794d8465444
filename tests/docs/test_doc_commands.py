"""Every command in README.md and docs/*.md runs from a clone alone (tests/docs/doc_commands.py says how)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.doc_commands import REPO, Block, blocks, console_commands, doc_files, expected_exit, shell_commands
from tests.docs.workspace import run_doc

DOCS = doc_files()


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


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(Path(d).relative_to(REPO)))
def test_the_commands_of_the_doc_run(doc: Path) -> None:
    result = run_doc(doc)
    assert result.returncode == 0, (result.stdout[-3000:], result.stderr[-6000:])
