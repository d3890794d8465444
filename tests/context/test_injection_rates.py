"""The guard's detection and false-positive rates on the fixture corpora (issue 14's acceptance).

Attack items are single lines (`attacks*.txt`) or blocks of neighbouring lines
(`attacks*_split.txt`, blocks separated by a blank line); an item counts as
flagged when the guard withholds at least one of its lines. The benign corpus
is real LogHub log lines from eight systems (`tests/fixtures/loghub`), read
line by line and as whole files (so the neighbouring-line reading is measured
too).
"""

from __future__ import annotations

from pathlib import Path

from rootward.context.injection import injection_rule, neutralise
from rootward.context.injection_languages import LANGUAGES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
INJECTION = FIXTURES / "injection"
LOGHUB = FIXTURES / "loghub"
MIN_DETECTION = 0.95
MAX_FALSE_POSITIVES = 0.02


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip() and not line.startswith("# ")]


def _blocks(path: Path) -> list[str]:
    blocks = ["\n".join(_lines_of(block)) for block in path.read_text(encoding="utf-8").split("\n\n")]
    return [block for block in blocks if block]


def _lines_of(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip() and not line.startswith("# ")]


def _detection(lines: list[str], blocks: list[str]) -> tuple[int, int]:
    flagged = sum(injection_rule(line) is not None for line in lines)
    flagged += sum(bool(neutralise(block)[1]) for block in blocks)
    return flagged, len(lines) + len(blocks)


def test_variant_corpus_covers_every_class_of_the_issue() -> None:
    lines = _lines(INJECTION / "attacks_variants.txt")
    text = "\n".join(lines)
    assert any("\U000e0020" <= ch <= "\U000e007f" for ch in text)  # tag characters
    assert any(ch in text for ch in "ᴀɪʀꜱ")  # small capitals
    assert any(any("\u0600" <= ch <= "\u06ff" for ch in line) for line in lines)  # Arabic
    assert any(any("\u0900" <= ch <= "\u097f" for ch in line) for line in lines)  # Hindi
    assert "Abaikan" in text and "Bỏ qua" in text and "Ignorera" in text  # Indonesian, Vietnamese, Swedish
    assert '"role": "system"' in text
    assert len(_blocks(INJECTION / "attacks_split.txt")) >= 8


def test_guard_flags_at_least_95_percent_of_all_attacks() -> None:
    lines = [
        line
        for name in ("attacks.txt", "attacks_variants.txt", "attacks_heldout.txt")
        for line in _lines(INJECTION / name)
    ]
    blocks = [
        block for name in ("attacks_split.txt", "attacks_heldout_split.txt") for block in _blocks(INJECTION / name)
    ]
    flagged, total = _detection(lines, blocks)
    assert total >= 250
    assert flagged / total >= MIN_DETECTION, f"{flagged}/{total}"


def test_held_out_attacks_are_flagged_at_least_95_percent() -> None:
    flagged, total = _detection(
        _lines(INJECTION / "attacks_heldout.txt"), _blocks(INJECTION / "attacks_heldout_split.txt")
    )
    assert flagged / total >= MIN_DETECTION, f"{flagged}/{total}"


def test_real_loghub_lines_are_flagged_at_most_2_percent() -> None:
    files = sorted(LOGHUB.glob("*.log"))
    assert len(files) == 8
    lines = [line for path in files for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(lines) >= 2000
    alone = [line for line in lines if injection_rule(line) is not None]
    together = [r.original for path in files for r in neutralise(path.read_text(encoding="utf-8").rstrip("\n"))[1]]
    assert len(alone) / len(lines) <= MAX_FALSE_POSITIVES, alone[:5]
    assert len(together) / len(lines) <= MAX_FALSE_POSITIVES, together[:5]


def test_every_language_of_the_guard_catches_an_attack_of_the_corpus_by_its_own_rules() -> None:
    names = ("attacks.txt", "attacks_variants.txt", "attacks_heldout.txt")
    rules = {str(injection_rule(line)) for name in names for line in _lines(INJECTION / name)}
    assert len(LANGUAGES) >= 16
    assert [lang for lang in LANGUAGES if not any(rule.endswith(f"_{lang}") for rule in rules)] == []
