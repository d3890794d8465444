"""The parameter guard: every command-like parameter of an action passes it.

Three outcomes, checked in order of severity:
- deny: destructive or exfiltrating intent (`rm -rf /`, `DROP TABLE`,
  `curl … | sh`, reading `/etc/shadow`) — never runs, whoever approved it;
- reject (with a hint): shell plumbing that has no place in a parameter
  (`;`, `&&`, `$( )`, backticks, redirects, newlines) — the caller can fix it;
- allow.
Patterns use word boundaries, so `firmware`, `reformat_logs` or `drop_caches_total`
do not trip `rm`, `format` or `DROP`. Every non-allow outcome is audited by
the caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["allow", "reject", "deny"]


@dataclass(frozen=True)
class GuardRule:
    name: str
    outcome: Outcome
    pattern: re.Pattern[str]
    hint: str = ""


def _rule(name: str, outcome: Outcome, pattern: str, hint: str = "") -> GuardRule:
    return GuardRule(name, outcome, re.compile(pattern, re.IGNORECASE), hint)


DESTRUCTIVE = (
    _rule("rm_recursive", "deny", r"(?<![\w-])rm\s+(-[a-z]*[rf][a-z]*\s+)+"),
    _rule("mkfs", "deny", r"(?<![\w-])mkfs(\.\w+)?\b"),
    _rule("dd_device", "deny", r"(?<![\w-])dd\s+.*\bof=/dev/"),
    _rule("wipe_device", "deny", r"(?<![\w-])(shred|wipefs|blkdiscard)\b"),
    _rule("sql_drop", "deny", r"\bdrop\s+(table|database|schema|index|user)\b"),
    _rule("sql_truncate", "deny", r"\btruncate\s+(table\s+)?\w+"),
    _rule("sql_delete_all", "deny", r"\bdelete\s+from\s+\w+\s*(;|$)"),
    _rule("kubectl_delete", "deny", r"\bkubectl\s+delete\s+(ns|namespace|pv|pvc|crd|node|--all)\b"),
    _rule("power", "deny", r"(?<![\w-])(shutdown|poweroff|halt|init\s+0)\b"),
    _rule("chmod_root", "deny", r"\bchmod\s+(-R\s+)?[0-7]*7[0-7]*\s+/(\s|$)"),
    _rule("fork_bomb", "deny", r":\(\)\s*\{\s*:\|:&\s*\}\s*;:"),
)

EXFILTRATION = (
    _rule("pipe_to_shell", "deny", r"\b(curl|wget)\b[^|]*\|\s*(ba|z|da)?sh\b"),
    _rule("reverse_shell", "deny", r"\b(nc|ncat|netcat)\b.*\s-(e|c)\s"),
    _rule("dev_tcp", "deny", r"/dev/(tcp|udp)/"),
    _rule("secrets_files", "deny", r"/etc/(shadow|sudoers)\b|\.ssh/(id_\w+|authorized_keys)\b|\.aws/credentials\b"),
    _rule("upload", "deny", r"\b(curl|wget)\b.*\s(-d|--data(-binary)?|-T|--upload-file|-F)\s*@"),
    _rule("env_dump", "deny", r"(?<![\w-])(printenv|env)\s*(\||>)"),
)

INJECTION = (
    _rule("command_substitution", "reject", r"\$\(|`", "pass values literally; command substitution is not allowed"),
    _rule("chaining", "reject", r";|&&|\|\|", "one action per parameter; no command chaining"),
    _rule("pipe", "reject", r"(?<!\|)\|(?!\|)", "no pipes in parameters"),
    _rule("redirect", "reject", r"(?<![<>=!])>{1,2}(?![=])|<\(", "no shell redirection in parameters"),
    _rule("newline", "reject", r"[\r\n]", "a parameter is a single line"),
    _rule("variable_expansion", "reject", r"\$\{?[A-Za-z_]", "no shell variables in parameters"),
)

RULES: tuple[GuardRule, ...] = DESTRUCTIVE + EXFILTRATION + INJECTION
_SEVERITY = {"deny": 2, "reject": 1, "allow": 0}


@dataclass(frozen=True)
class GuardResult:
    outcome: Outcome
    rule: str = ""
    parameter: str = ""
    hint: str = ""

    @property
    def allowed(self) -> bool:
        return self.outcome == "allow"


def check_value(value: str, parameter: str = "", rules: Iterable[GuardRule] = RULES) -> GuardResult:
    worst = GuardResult("allow", parameter=parameter)
    for rule in rules:
        if rule.pattern.search(value) and _SEVERITY[rule.outcome] > _SEVERITY[worst.outcome]:
            worst = GuardResult(rule.outcome, rule.name, parameter, rule.hint)
            if rule.outcome == "deny":
                break
    return worst


def _strings(value: Any, path: str) -> Iterable[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def check_params(params: Mapping[str, Any]) -> GuardResult:
    """The worst outcome over every string inside the parameters (nested too)."""
    worst = GuardResult("allow")
    for path, value in _strings(params, ""):
        result = check_value(value, path)
        if _SEVERITY[result.outcome] > _SEVERITY[worst.outcome]:
            worst = result
            if result.outcome == "deny":
                break
    return worst
