"""DESIGN.md's package table, enforced: a module never imports from a folder listed above it."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rootward"
# Top to bottom, as in DESIGN.md ("cli.py, web/" share the top row; sim/ and eval/ may import anything).
ORDER = ["web", "runtime", "actions", "notify", "engine", "llm", "worldmodel", "knowledge", "context", "sources",
         "ingest", "store", "domain"]  # fmt: skip
RANK = {name: i for i, name in enumerate(ORDER)} | {"cli": 0}


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
    return out


def test_no_module_imports_from_a_folder_above_it() -> None:
    upward = []
    for package, rank in RANK.items():
        for path in sorted((SRC / package).rglob("*.py")):
            for module in _imports(path):
                parts = module.split(".")
                if parts[0] == "rootward" and len(parts) > 1 and RANK.get(parts[1], rank) < rank:
                    upward.append(f"{path.relative_to(SRC)} imports {module}")
    assert not upward, "\n".join(upward)
