"""DESIGN.md's package table, enforced row by row: imports point down, never up.

The table, top to bottom. A module may import its own row and every row below
it, never a row above. Three rows say more than their position:

- `cli/`, `web/`, `mcp/` (the MCP server) and `chat/` (thread Q&A in Slack and Matrix), the surfaces,
  share the top row ("everything below");
- `settings.py` "assembles each integration's own settings model": it may import
  only `<folder>.settings` modules of the rows below it, and since it sits above
  every layer but the surfaces and the runtime, nothing below `runtime/` can
  import it (each layer gets its settings section from its caller);
- `sim/` and `eval/` "import everything they need": they sit just under
  `settings.py`, so they may import every layer, and only the surfaces and the
  runtime may import them.

Every folder of the package must appear in the table, so a new one cannot slip
past the check.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rootward"
ROWS: list[tuple[str, ...]] = [
    ("cli", "web", "mcp", "chat"),
    ("runtime",),
    ("settings",),
    ("sim", "eval"),
    ("actions",),
    ("notify",),
    ("engine",),
    ("llm",),
    ("worldmodel",),
    ("knowledge",),
    ("context",),
    ("sources",),
    ("ingest",),
    ("observability",),
    ("store",),
    ("bundle",),
    ("domain",),
]
RANK = {folder: rank for rank, row in enumerate(ROWS) for folder in row}


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
            if node.module == "rootward":  # `from rootward import settings`
                out += [f"rootward.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
    return out


def _layer(path: Path) -> str:
    """The table row name of a module: its top folder, or `settings` for settings.py."""
    first = path.relative_to(SRC).parts[0]
    return first.removesuffix(".py")


def _modules() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if p != SRC / "__init__.py"]


def _targets(path: Path) -> list[tuple[str, str]]:
    """(imported module, its layer) for every import of rootward's own code in `path`."""
    out = []
    for module in _imports(path):
        parts = module.split(".")
        if parts[0] == "rootward" and len(parts) > 1 and parts[1] in RANK:
            out.append((module, parts[1]))
    return out


def test_every_folder_of_the_package_is_a_row_of_the_table() -> None:
    layers = {_layer(p) for p in _modules()}
    assert layers <= set(RANK), f"not in DESIGN's table: {sorted(layers - set(RANK))}"


def test_no_module_imports_from_a_row_above_its_own() -> None:
    upward = []
    for path in _modules():
        layer = _layer(path)
        for module, target in _targets(path):
            if RANK[target] < RANK[layer]:
                upward.append(f"{path.relative_to(SRC)} imports {module}")
    assert not upward, "\n".join(sorted(set(upward)))


def test_settings_py_imports_only_the_settings_modules_below_it() -> None:
    wrong = []
    for module, target in _targets(SRC / "settings.py"):
        parts = module.split(".")
        if not (RANK[target] > RANK["settings"] and len(parts) >= 3 and parts[2] == "settings"):
            wrong.append(module)
    assert not wrong, f"settings.py may import only <folder>.settings modules below it: {sorted(set(wrong))}"


def test_nothing_below_the_runtime_imports_settings_py() -> None:
    below = {folder for folder, rank in RANK.items() if rank > RANK["runtime"]} - {"settings"}
    reaching_up = [
        f"{path.relative_to(SRC)} imports {module}"
        for path in _modules()
        if _layer(path) in below
        for module, target in _targets(path)
        if target == "settings"
    ]
    assert not reaching_up, "\n".join(sorted(set(reaching_up)))
