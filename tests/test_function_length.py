"""No function in the engine or the runtime grows past 80 lines: a longer one is usually two ideas (STYLE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rootward"
MAX_LINES = 80


def _long_functions(folder: str) -> list[str]:
    found = []
    for path in sorted((SRC / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_LINES:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name} ({length} lines)")
    return found


@pytest.mark.parametrize("folder", ["engine", "runtime"])
def test_no_function_in_the_folder_is_over_80_lines(folder: str) -> None:
    assert _long_functions(folder) == []
