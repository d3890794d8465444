from __future__ import annotations

from rootward.knowledge.chunking import chunk_text, count_tokens


def _steps(n: int, words: int) -> str:
    return "\n".join(f"{i}. " + " ".join(f"step{i}word{j}" for j in range(words)) + "." for i in range(1, n + 1))


def test_chunks_are_numbered_from_zero_without_gaps() -> None:
    text = "\n\n".join(f"Paragraph {i}. " + "word " * 120 for i in range(10))
    chunks = chunk_text(text, max_tokens=200)
    assert len(chunks) > 3
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_numbered_step_is_never_cut_even_when_it_overflows_the_chunk() -> None:
    text = "# Fix\n\n" + _steps(6, 60)
    chunks = chunk_text(text, max_tokens=100)
    for i in range(1, 7):
        holders = [c for c in chunks if f"{i}. step{i}word0" in c.text]
        assert len(holders) == 1
        assert f"step{i}word59." in holders[0].text  # the whole step sits in the chunk that starts it


def test_fenced_code_block_stays_whole() -> None:
    code = "```bash\n" + "\n".join(f"kubectl get pods -n ns{i}  # line {i}" for i in range(80)) + "\n```"
    text = "Intro sentence here.\n\n" + code + "\n\nAfter the block. " + "more words " * 50
    chunks = chunk_text(text, max_tokens=120)
    holders = [c for c in chunks if "```bash" in c.text]
    assert len(holders) == 1
    assert "line 79" in holders[0].text and holders[0].text.rstrip().endswith("```")


def test_code_block_inside_a_numbered_step_belongs_to_the_step() -> None:
    text = "1. Check the pool:\n   ```\n   psql -c 'select 1'\n   ```\n2. Roll back.\n"
    chunks = chunk_text(text, max_tokens=8)
    assert any("1. Check the pool" in c.text and "psql" in c.text for c in chunks)


def test_long_paragraph_is_split_on_sentence_boundaries() -> None:
    sentences = [f"Sentence number {i} talks about the payment database pool." for i in range(60)]
    chunks = chunk_text(" ".join(sentences), max_tokens=100)
    assert len(chunks) > 1
    for c in chunks:
        assert c.text.rstrip().endswith(".")
        assert c.tokens <= 100
    assert sum(c.text.count("Sentence number") for c in chunks) == 60


def test_heading_travels_with_the_text_under_it() -> None:
    text = "A. " + "word " * 95 + "\n\n## Mitigation\n\nRoll back the deploy."
    chunks = chunk_text(text, max_tokens=100)
    assert chunks[-1].text.startswith("## Mitigation")


def test_token_estimate_counts_words_and_punctuation() -> None:
    assert count_tokens("pool: 20/20 used.") == 7
