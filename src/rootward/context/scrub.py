"""PII and secret scrubbing of text before it can leave for an LLM.

Logs carry things that must not be sent to a hosted model: customer emails and
addresses, card numbers, bearer tokens, API keys, passwords in connection
strings, private keys. `scrub` replaces each with a typed placeholder and
returns what it replaced (kind and span in the original), so the original can
stay in the local store and a cite can still point at the exact line.

What is deliberately *not* redacted, because an investigation needs it and it
identifies no person and grants no access: ordinary numbers, durations
(`250ms`), ports, versions, timestamps, UUID request/trace ids, hex commit
SHAs and image digests (pure hex is never treated as a high-entropy secret),
Kubernetes object names. A card number must pass the Luhn check and start
like a card brand; a high-entropy string must mix upper case, lower case and
digits, which ids and hashes do not.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

ScrubKind = Literal["EMAIL", "IP", "CARD", "TOKEN", "SECRET"]


@dataclass(frozen=True)
class Redaction:
    """One replaced value: its kind, its span in the original text, and why."""

    kind: ScrubKind
    start: int
    end: int
    rule: str  # which detector fired, e.g. "aws_access_key", "luhn_card"

    @property
    def placeholder(self) -> str:
        return f"<{self.kind}>"


@dataclass(frozen=True)
class ScrubResult:
    text: str
    redactions: tuple[Redaction, ...]

    @property
    def changed(self) -> bool:
        return bool(self.redactions)


@dataclass(frozen=True)
class _Rule:
    name: str
    kind: ScrubKind
    regex: re.Pattern[str]
    group: int = 0  # which group is the secret (the rest of the match is kept)
    accept: Callable[[str], bool] | None = None
    hints: tuple[str, ...] = ()  # lower-case substrings one of which must occur (speed only)


def _luhn_ok(candidate: str) -> bool:
    digits = [int(c) for c in candidate if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    if len(digits) == len(candidate) and len(digits) not in (15, 16):
        return False  # unseparated 13-19 digit runs are mostly ids; 15/16 are Amex/others
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    if total % 10:
        return False
    number = "".join(map(str, digits))
    # Card brands' IIN ranges: Visa, Mastercard, Amex, Discover, JCB, Diners.
    return bool(re.match(r"4|5[1-5]|2[2-7]|3[47]|6(?:011|5|4[4-9])|35|30[0-5]|36|38", number))


def _ipv4_ok(candidate: str) -> bool:
    return all(int(part) <= 255 for part in candidate.split("."))


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_HEXISH = re.compile(r"^[0-9a-fA-F-]+$")
_WORDISH = re.compile(r"^[A-Za-z]{4,}$")
_SEPARATORS = re.compile(r"[/_-]")


def looks_high_entropy(value: str) -> bool:
    """A random-looking credential: long, mixed case and digits, high entropy.

    Pure hex (SHAs, digests, trace ids) and UUIDs are ids, not secrets.
    Identifiers such as `AbstractHttpConnectionFactory` have few digits and
    long lower-case runs, so they fail the digit and run tests.
    """
    core = value.rstrip("=")
    if len(core) < 20 or _HEXISH.match(core):
        return False
    if core.startswith("/") or any(_WORDISH.match(part) for part in _SEPARATORS.split(core)):
        return False  # a path or an identifier made of words, not base64
    uppers = sum(c.isupper() for c in core)
    lowers = sum(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    if uppers < 2 or lowers < 2 or digits < 2:
        return False
    if max(len(run) for run in re.findall(r"[a-z]+", core)) >= 10:
        return False  # a long lower-case run is a word, e.g. a class name
    return shannon_entropy(core) >= 3.7


# Key names whose value is a secret. Short or ambiguous stems (`pass`, `sig`,
# `key`) must start the name or follow a separator (`db_pass`, not `bypass`);
# unambiguous ones may carry any prefix (`PGPASSWORD`, `csrftoken`).
_SECRET_KEY_NAMES = (
    r"(?:(?<![a-z0-9])(?:pass|pwd|sig|signature|cookie|session[_-]?id|sessionid"
    r"|(?:access|secret|private|api|client|auth)[_-]?key)"
    r"|password|passwd|passphrase|secret|token|apikey|credentials?)"
)
_SECRET_KEY_HINTS = ("pass", "pwd", "sig", "cookie", "session", "key", "secret", "token", "credential")
_BENIGN_VALUES = frozenset({"", "true", "false", "null", "none", "nil", "***", "redacted", "<secret>"})


def _assigned_value_ok(value: str) -> bool:
    return value.strip("\"'").lower() not in _BENIGN_VALUES and not value.startswith("<")


def _colon_value_ok(value: str) -> bool:
    # `password: hunter2` in config dumps, but not prose like `token: expired`.
    bare = value.strip("\"'")
    if value[:1] in "\"'":
        return _assigned_value_ok(value)
    if re.fullmatch(r"(?:0x)?[0-9a-fA-F]+", bare):
        return False  # session ids, offsets and hashes in hex are identifiers
    return len(bare) >= 8 and bool(re.search(r"[\d\W_]", bare)) and _assigned_value_ok(bare)


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private_key",
        "SECRET",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[^\n]*)"
        ),
        hints=("private key",),
    ),
    _Rule("jwt", "TOKEN", re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"), hints=("eyj",)),
    _Rule(
        "bearer",
        "TOKEN",
        re.compile(r"(?i)\b(?:bearer|token)\s+([A-Za-z0-9\-._~+/]{16,}=*)"),
        group=1,
        accept=lambda v: any(c.isdigit() for c in v),
        hints=("bearer", "token"),
    ),
    _Rule(
        "basic_auth",
        "SECRET",
        re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/]{12,}={0,2})(?![\w+/=])"),
        group=1,
        hints=("basic",),
    ),
    _Rule(
        "aws_access_key",
        "TOKEN",
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}\b"),
        hints=("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa", "abia", "acca"),
    ),
    _Rule(
        "github_token",
        "TOKEN",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b"),
        hints=("gh", "github_pat_"),
    ),
    _Rule("gitlab_token", "TOKEN", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b"), hints=("glpat-",)),
    _Rule("slack_token", "TOKEN", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), hints=("xox",)),
    _Rule(
        "slack_webhook",
        "TOKEN",
        re.compile(r"hooks\.slack\.com/services/([A-Za-z0-9/]{20,})"),
        group=1,
        hints=("hooks.slack.com",),
    ),
    _Rule(
        "stripe_key",
        "TOKEN",
        re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
        hints=("_live_", "_test_"),
    ),
    _Rule("google_api_key", "TOKEN", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), hints=("aiza",)),
    _Rule("llm_api_key", "TOKEN", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"), hints=("sk-",)),
    _Rule("npm_token", "TOKEN", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), hints=("npm_",)),
    _Rule("sendgrid_key", "TOKEN", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"), hints=("sg.",)),
    _Rule(
        "url_credentials",
        "SECRET",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@"),
        group=1,
        hints=("://",),
    ),
    _Rule(
        "assigned_secret",
        "SECRET",
        re.compile(
            r"(?i)" + _SECRET_KEY_NAMES + r"[\"']?\s*=\s*"
            r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&\"'<>)\]}]+)"
        ),
        group=1,
        accept=_assigned_value_ok,
        hints=_SECRET_KEY_HINTS,
    ),
    _Rule(
        "colon_secret",
        "SECRET",
        re.compile(
            r"(?i)" + _SECRET_KEY_NAMES + r"[\"']?\s*:\s*"
            r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&\"'<>)\]}]+)"
        ),
        group=1,
        accept=_colon_value_ok,
        hints=_SECRET_KEY_HINTS,
    ),
    _Rule(
        "email",
        "EMAIL",
        re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
        hints=("@",),
    ),
    _Rule(
        "card",
        "CARD",
        re.compile(r"(?<![\w.-])\d(?:[ -]?\d){12,18}(?![\w.])"),
        accept=_luhn_ok,
    ),
    _Rule(
        "card_cvv",
        "CARD",
        re.compile(r"(?i)(?:cvv|cvc|cvv2|cvc2|csc)[\"']?\s*[:=]\s*[\"']?(\d{3,4})(?!\d)"),
        group=1,
        hints=("cvv", "cvc", "csc"),
    ),
    _Rule(
        "ipv4",
        "IP",
        re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)"),
        accept=_ipv4_ok,
        hints=(".",),
    ),
    _Rule(
        "ipv6",
        "IP",
        re.compile(
            r"(?<![\w:])(?:(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}"
            r"|(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4}){0,5})?"
            r"|::(?:[0-9a-fA-F]{1,4}:){0,5}[0-9a-fA-F]{1,4})(?![\w:])"
        ),
        accept=lambda v: v.count(":") >= 2 and v != "::",
        hints=(":",),
    ),
    _Rule(
        "high_entropy",
        "SECRET",
        re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{20,}={0,2}(?![\w+/=-])"),
        accept=looks_high_entropy,
    ),
)


def _candidates(text: str) -> list[Redaction]:
    found: list[Redaction] = []
    lower = text.lower()
    for rule in _RULES:
        if rule.hints and not any(hint in lower for hint in rule.hints):
            continue
        for match in rule.regex.finditer(text):
            value = match.group(rule.group)
            if not value or (rule.accept is not None and not rule.accept(value)):
                continue
            start, end = match.span(rule.group)
            found.append(Redaction(rule.kind, start, end, rule.name))
    return found


def _without_overlaps(candidates: list[Redaction]) -> list[Redaction]:
    """Keep the earliest rule on overlaps (rules are ordered most specific first)."""
    order = {rule.name: i for i, rule in enumerate(_RULES)}
    kept: list[Redaction] = []
    for cand in sorted(candidates, key=lambda r: (order[r.rule], r.start)):
        if all(cand.end <= k.start or cand.start >= k.end for k in kept):
            kept.append(cand)
    return sorted(kept, key=lambda r: r.start)


def scrub(text: str) -> ScrubResult:
    """Replace PII and secrets in `text` with typed placeholders.

    Spans in the result refer to the original `text`.
    """
    redactions = _without_overlaps(_candidates(text))
    if not redactions:
        return ScrubResult(text, ())
    parts: list[str] = []
    position = 0
    for redaction in redactions:
        parts.append(text[position : redaction.start])
        parts.append(redaction.placeholder)
        position = redaction.end
    parts.append(text[position:])
    return ScrubResult("".join(parts), tuple(redactions))


def scrub_text(text: str) -> str:
    """Just the scrubbed text (for callers that keep originals elsewhere)."""
    return scrub(text).text
