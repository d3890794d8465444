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
8080/8081 in the commands are replaced by the copy's directory and ports.

The golden set is the one other rewriting, and only when the test passes a cache
directory (`python -m tests.docs.doc_commands` runs every command as written): a
command that generates it (`make golden`, `rootward sim golden --out golden ...`)
runs for real the first time in a test session, then keeps one bundle in
GOLDEN_STRIDE of golden/ (all of golden/examples/ and every bundle a doc names as
`golden/<name>`) and stores that in the cache; a later doc with the same command
copies the stored set instead of generating it again. The commands that read
golden/ (`rootward eval golden`, `graph mine golden`, ...) run unchanged on that
subset: the test checks that they work with the flags the doc shows, while the
accuracy on the whole set is what `make bench` and tests/engine/test_golden_gate.py
measure.
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
GOLDEN_MAKER = re.compile(
    r"(?<![\w/.-])((?:\S*/)?rootward sim golden --out golden(?: --examples \S+)?|make golden)(?=\s*(?:&&|;|$))"
)
GOLDEN_NAMED = re.compile(r"\bgolden/([\w.-]+)")
GOLDEN_STRIDE = 5


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


def makes_golden(doc: Path) -> bool:
    """Whether a runnable block of `doc` generates the golden set (the docs that share its cache)."""
    return any(
        GOLDEN_MAKER.search(_code(c.splitlines()[0]))
        for b in blocks(doc)
        if not b.markers & {"live", "long"}
        for c in b.commands
    )


def golden_named() -> list[str]:
    """The golden bundles the docs name (`golden/<name>`): the subset of the golden set keeps them."""
    return sorted(
        {name for d in doc_files() for b in blocks(d) for c in b.commands for name in GOLDEN_NAMED.findall(c)}
        - {"examples"}
    )


def _golden_functions(cache: Path) -> list[str]:
    """`rw_golden COMMAND`: run COMMAND and keep a subset of golden/, or copy the subset a doc stored before."""
    return [
        f"RW_GOLDEN_CACHE={_quote(str(cache))}",
        f"RW_GOLDEN_KEEP={_quote(' '.join(golden_named()))}",
        "rw_golden_subset() { local i=0 d; for d in $(cd golden && LC_ALL=C ls -d -- */ | tr -d /); do "
        '[ "$d" = examples ] && continue; case " $RW_GOLDEN_KEEP " in *" $d "*) ;; '
        f'*) [ $((i % {GOLDEN_STRIDE})) = 0 ] || rm -rf -- "golden/$d" || return;; esac; i=$((i+1)); done; }}',
        'rw_golden() { local key; key=$(printf %s "$1" | sha1sum | cut -c1-16); '
        'if [ ! -e golden ] && [ -d "$RW_GOLDEN_CACHE/$key" ]; then cp -a "$RW_GOLDEN_CACHE/$key" golden; return; fi; '
        'eval "$1" || return; rw_golden_subset || return; '
        'local part="$RW_GOLDEN_CACHE/$key.$$"; cp -a golden "$part" || return; '
        'mv -T "$part" "$RW_GOLDEN_CACHE/$key" 2>/dev/null || rm -rf -- "$part"; }',
    ]


def _golden(command: str) -> str:
    """A command with its golden-set generation (not its comment) run through `rw_golden`."""
    first, _, rest = command.partition("\n")
    code = _code(first)
    code = GOLDEN_MAKER.sub(lambda m: f"rw_golden {_quote(m.group(1))}", code)
    return code + first[len(_code(first)) :] + ("\n" + rest if rest else "")


def script(
    doc_blocks: list[Block], *, ports: dict[str, int], tmp: Path, long: bool = False, golden_cache: Path | None = None
) -> str:
    """One bash script for a doc: `set -e`, checked exit codes, background servers stopped at the end.

    With `golden_cache`, the golden set is generated once per cache and read as a subset (the module's docstring).
    """
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
    if golden_cache is not None:
        out += _golden_functions(golden_cache)
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
            if golden_cache is not None:
                command = _golden(command)
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
