"""The shell commands of README.md and docs/*.md, as scripts a test can run.

Every ```sh, ```bash and ```console block of a doc is a command a reader may paste,
so each doc becomes one bash script (its blocks in order, sharing variables and
files the way a reader's terminal does) run from a scratch copy of a clone.

What a doc may say about a block, after the language on its opening fence:
- `live`: needs a service this machine cannot provide (Docker, Kubernetes, a
  PostgreSQL server, Slack, an LLM server, a second host). The text next to
  the block names it. Not run.
- `long`: takes many minutes (the whole test suite, every benchmark). Not run by
  the test; `python -m tests.docs.doc_commands --long` runs them too.
- `serves`: starts a server that keeps running (`make run`, `rootward serve`). Run
  in the background; the script waits until it answers on its port and stops it
  at the end of the doc.

Inside a block, a command whose comment says `# exit N` must exit with status N
(a refusal the doc shows on purpose); every other command must succeed. In a
```console block, lines that start with `$ ` are commands and the rest is output.

The scratch copy gets its own /tmp and its own free ports: `/tmp/` and the ports
8080/8081 in the commands are replaced by the copy's directory and ports. That is
the only rewriting.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHELLS = ("sh", "bash", "console")
MARKERS = ("live", "long", "serves")
FENCE = re.compile(r"^[ \t]*```(\w*)([^\n]*)\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
EXPECT = re.compile(r"^#\s*exit (\d+)\b")


@dataclass(frozen=True)
class Block:
    """One fenced shell block of a doc: where it is, how it is marked, its commands."""

    doc: Path
    line: int
    language: str
    markers: frozenset[str]
    commands: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"{self.doc.resolve().relative_to(REPO)}:{self.line}"


def doc_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def blocks(doc: Path) -> list[Block]:
    text = doc.read_text()
    found = []
    for match in FENCE.finditer(text):
        language, info, body = match.group(1), match.group(2), match.group(3)
        if language not in SHELLS:
            continue
        markers = frozenset(w for w in info.split() if w in MARKERS)
        line = text[: match.start()].count("\n") + 1
        commands = console_commands(body) if language == "console" else shell_commands(body)
        found.append(Block(doc, line, language, markers, tuple(commands)))
    return found


def shell_commands(body: str) -> list[str]:
    """Split a script into top-level commands: continuation lines and heredoc bodies stay with theirs."""
    commands: list[str] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].strip() or lines[i].lstrip().startswith("#"):
            i += 1
            continue
        command, i = _one_command(lines, i)
        commands.append(command)
    return commands


def console_commands(body: str) -> list[str]:
    """The `$ ` lines of a console block (with their continuations and heredocs); output is left out."""
    commands: list[str] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        command, i = _one_command(lines, i)
        commands.append(command)
    return commands


def _one_command(lines: list[str], i: int) -> tuple[str, int]:
    parts = [lines[i].removeprefix("$ ")]
    terminators = HEREDOC.findall(_code(parts[0]))
    i += 1
    while parts[-1].rstrip().endswith("\\") and i < len(lines):
        parts.append(lines[i])
        terminators += HEREDOC.findall(_code(parts[-1]))
        i += 1
    for end in terminators:
        while i < len(lines):
            parts.append(lines[i])
            i += 1
            if lines[i - 1].strip() == end:
                break
    return "\n".join(parts), i


def _code(line: str) -> str:
    """A command line without its trailing comment (a `#` outside quotes)."""
    quote = ""
    for n, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (n == 0 or line[n - 1].isspace()):
            return line[:n]
    return line


def expected_exit(command: str) -> int:
    first = command.splitlines()[0]
    comment = first[len(_code(first)) :]
    match = EXPECT.search(comment)
    return int(match.group(1)) if match else 0


def script(doc_blocks: list[Block], *, ports: dict[str, int], tmp: Path, long: bool = False) -> str:
    """One bash script for a doc: `set -e`, checked exit codes, background servers stopped at the end."""
    out = [
        "set -e",
        "SERVERS=()",
        'trap \'rc=$?; for p in "${SERVERS[@]}"; do kill -TERM -- -$p 2>/dev/null || kill $p 2>/dev/null; done; '
        "jobs -p | xargs -r kill 2>/dev/null || true; exit $rc' EXIT",
        "rw_wait() { for _ in $(seq 1 150); do curl -fs -o /dev/null http://127.0.0.1:$1/healthz && return 0; "
        'sleep 0.2; done; echo "nothing answers on port $1" >&2; return 1; }',
        'rw_expect() { local want=$1; shift; local rc=0; eval "$*" || rc=$?; '
        '[ "$rc" = "$want" ] || { echo "expected exit $want, got $rc: $*" >&2; exit 1; }; }',
    ]
    for block in doc_blocks:
        if "live" in block.markers or ("long" in block.markers and not long):
            continue
        out.append(f"echo '### {block.where}' >&2")
        for command in block.commands:
            command = _localise(command, ports, tmp)
            if "serves" in block.markers:
                port = next((str(p) for p in ports.values() if str(p) in command), str(ports["8080"]))
                out.append(f"set -m; ( {command} ) > {tmp}/serve-{port}.log 2>&1 & SERVERS+=($!); set +m")
                out.append(f"rw_wait {port} || {{ tail -30 {tmp}/serve-{port}.log >&2; exit 1; }}")
                continue
            want = expected_exit(command)
            if want:
                out.append(f"rw_expect {want} {_quote(_code(command))}")
            else:
                out.append(command)
    return "\n".join(out) + "\n"


def _localise(command: str, ports: dict[str, int], tmp: Path) -> str:
    for default, port in ports.items():
        command = re.sub(rf"(?<![\d.]){default}(?!\d)", str(port), command)
    return command.replace("/tmp/", f"{tmp}/")


def _quote(command: str) -> str:
    return "'" + command.replace("'", "'\"'\"'") + "'"


if __name__ == "__main__":
    from tests.docs.workspace import run_doc

    long = "--long" in sys.argv
    failed = [d for d in doc_files() if run_doc(d, long=long).returncode != 0]
    print("failed:", ", ".join(str(d.relative_to(REPO)) for d in failed) if failed else "every doc ran")
    sys.exit(1 if failed else 0)
