"""Prompts are Jinja2 templates in `llm/prompts/`, not strings in code.

Every value rendered into a prompt loses its invisible characters (format
characters such as zero-width spaces, bidi controls and the tag characters
U+E0000-E007F, and variation selectors): a model reads them, a reviewer of the
prompt does not, so text hidden in them must not reach the model from any
field. Detecting instructions in a field is the caller's job
(`context.injection.guard` / `guard_field`); this is the backstop.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

PROMPT_DIR = Path(__file__).parent / "prompts"
# The templates the LLM reasoner renders in the arm it is given (`engine/llm_reasoner.py`): the only ones
# a prompt trial can change.
TRIAL_TEMPLATES = ("propose_system", "write_system")


def _visible(value: object) -> object:
    """`finalize` hook: a string value without invisible characters; anything else as it is."""
    if not isinstance(value, str) or value.isascii():
        return value
    return "".join(char for char in value if not _invisible(char))


def _invisible(char: str) -> bool:
    code = ord(char)
    return unicodedata.category(char) == "Cf" or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(
        finalize=_visible,
        loader=FileSystemLoader(PROMPT_DIR),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def template_name(name: str, variant: str = "control") -> str:
    """The file of a prompt's arm: `name.j2` for the control, `name.<variant>.j2` for a trial's variant."""
    return f"{name}.j2" if variant == "control" else f"{name}.{variant}.j2"


def has_variant(name: str, variant: str) -> bool:
    return (PROMPT_DIR / template_name(name, variant)).is_file()


def render(name: str, *, variant: str = "control", **values: Any) -> str:
    return _env().get_template(template_name(name, variant)).render(**values)
