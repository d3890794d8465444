"""Prompt-injection guard for log and alert text shown to a model.

Anyone who can make a service log a string can write to the investigator's
prompt: a crafted user agent, a ticket title, a payload echoed in an error.
Two defences, both deterministic:

1. Every block of log/alert text is wrapped in explicit `<log_content>`
   boundaries, and any boundary tag inside the text is neutralised so the text
   cannot close its own box.
2. Lines that read as instructions to a model are replaced by a placeholder
   and recorded (line, rule, original), so the investigation can show that a
   line was withheld and why, and the original stays in the local store.

Detection runs on normalised forms of each line so that cheap obfuscation
does not work: Unicode compatibility forms and zero-width characters
(`ｉｇｎｏｒｅ`, `ig\u200bnore`), Cyrillic/Greek homoglyphs (`іgnоrе`),
leetspeak (`1gn0r3`), letter spacing (`i g n o r e`), and base64-wrapped
payloads. Patterns need an instruction *aimed at a model* ("ignore previous
instructions", "you are now DAN", chat-template role tags), not merely words
that logs use every day ("SYSTEM" as a level, "ignoring previous value",
"illegal instruction"); the benign fixture corpus holds the look-alikes.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from dataclasses import dataclass

PLACEHOLDER = "<REDACTED_INSTRUCTION>"
OPEN_TAG = "<log_content>"
CLOSE_TAG = "</log_content>"


@dataclass(frozen=True)
class InjectionRedaction:
    """A withheld line: where it was, which rule matched, what it said."""

    line: int  # 1-based line within the guarded text
    rule: str
    original: str


@dataclass(frozen=True)
class GuardedText:
    text: str  # wrapped in <log_content> boundaries, suspicious lines replaced
    redactions: tuple[InjectionRedaction, ...]


# --- normalisation -------------------------------------------------------------------

_INVISIBLE = dict.fromkeys(
    cp for cp in (0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x3164, 0xFEFF, 0xFFA0)
)
_INVISIBLE.update(dict.fromkeys(range(0x200B, 0x2010)))
_INVISIBLE.update(dict.fromkeys(range(0x202A, 0x202F)))
_INVISIBLE.update(dict.fromkeys(range(0x2060, 0x2070)))

_HOMOGLYPHS = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g", "ı": "i",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ω": "w", "η": "n", "μ": "u",
}  # fmt: skip

# Leetspeak and l/1/| confusion: `l` and `i` are read as the same letter, in
# the text and in the patterns (see `_skeleton_pattern`).
_LEET = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "|": "i", "!": "i", "l": "i"}
_KEPT_PUNCTUATION = "<>[]/#:"


class _SkeletonTable(dict[int, int]):
    """translate() table: letters kept, look-alikes mapped, anything else a space."""

    def __missing__(self, codepoint: int) -> int:
        self[codepoint] = 32
        return 32


_SKELETON_TABLE = _SkeletonTable()
_SKELETON_TABLE.update({code: code for code in range(ord("a"), ord("z") + 1)})
_SKELETON_TABLE.update({ord(char): ord(char) for char in _KEPT_PUNCTUATION})
_SKELETON_TABLE.update({ord(src): ord(dst) for src, dst in (_HOMOGLYPHS | _LEET).items()})


def _visible(line: str) -> str:
    """NFKC form without invisible characters, lower-cased (keeps every script)."""
    if line.isascii():
        return line.lower()
    return unicodedata.normalize("NFKC", line).translate(_INVISIBLE).casefold()


def _skeleton(visible: str) -> str:
    """Latin skeleton: homoglyphs and leetspeak mapped, `l` read as `i`, spaces collapsed."""
    return " ".join(visible.translate(_SKELETON_TABLE).split())


def _compact(skeleton: str) -> str:
    """Letters only: defeats `i g n o r e`, `i.g.n.o.r.e`, `ig-nore`."""
    return skeleton.translate(_COMPACT_DROP)


def _skeleton_pattern(pattern: str) -> re.Pattern[str]:
    # Patterns are written in plain English; read their `l` as `i` like the text.
    return re.compile(pattern.replace("l", "i"))


# --- rules ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rule:
    """A pattern, and the words or substrings one of which must occur for it to apply.

    The hints only make the guard fast (most log lines contain none of them);
    the regex alone decides.
    """

    name: str
    regex: re.Pattern[str]
    hints: tuple[str, ...] = ()  # substrings
    words: frozenset[str] = frozenset()  # whole words of the skeleton

    def applies(self, text: str, words: set[str]) -> bool:
        if self.words and not self.words.isdisjoint(words):
            return self.regex.search(text) is not None
        if self.hints and any(hint in text for hint in self.hints):
            return self.regex.search(text) is not None
        return False


_VERB = r"(?:ignore|disregard|forget|overrid(?:e|ing)|bypass|skip|abandon|discard)"
_STRONG = (
    r"(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|your|system|safety"
    r"|developer|old|existing|all the previous|all prior)"
)
_FILL = r"(?:\s(?:all|any|every|the|of|my|these|those|and|everything|other|instructions?|rules|you|were|given))*"
_OBJECT = (
    r"(?:instructions?|rules|prompts?|directions|directives|guidelines|guardrails|context|commands"
    r"|orders|policies|constraints|restrictions|programming|training|messages|system prompt|protocols|filters)"
)

# English rules on the Latin skeleton (spaces kept).
_SKELETON_RULES: tuple[_Rule, ...] = tuple(
    _Rule(name, _skeleton_pattern(pattern), words=frozenset(words.split()))
    for name, pattern, words in (
        (
            "ignore_instructions",
            rf"\b{_VERB}{_FILL}\s{_STRONG}(?:\s{_STRONG})*{_FILL}\s{_OBJECT}\b",
            "ignore disregard forget override overriding bypass skip abandon discard",
        ),
        (
            "ignore_above",
            rf"\b{_VERB}\s(?:all\s|everything\s|anything\s|all\sof\s)?(?:the\s)?(?:above|foregoing)\b",
            "ignore disregard forget override overriding bypass skip abandon discard",
        ),
        (
            "ignore_above",
            rf"\b{_VERB}\s(?:everything|anything|all|what\s(?:was\s)?(?:said|written))\s"
            r"(?:above|before|previousiy|earlier|so\sfar)\b",
            "ignore disregard forget override overriding bypass skip abandon discard",
        ),
        (
            "forget_everything",
            r"\bforget\s(?:everything|all|anything)\s(?:you|that|i|we|above|before|previous)",
            "forget",
        ),
        (
            "new_instructions",
            r"\b(?:new|updated|revised|real|actual|true|secret|hidden|additional)\s(?:system\s)?(?:instructions|directives|task|orders)\s?:",
            "instructions directives task orders",
        ),
        (
            "new_instructions",
            r"\b(?:here\sare|these\sare|follow)\s(?:your|my|the|these)\s(?:new|real|updated)\s(?:instructions|rules|orders)\b",
            "instructions ruies orders",
        ),
        (
            "your_task",
            r"\byour\s(?:new|real|actual|true|only)\s(?:task|job|goal|role|purpose|instructions)\s(?:is|are|now)\b",
            "your",
        ),
        (
            "you_are_now",
            r"\byou\s(?:are|re)\snow\s(?:a|an|my|the\snew|dan|unrestricted|jailbroken|free|no\slonger|in\sdeveloper|going\sto|acting|evil|root)\b",
            "now",
        ),
        ("you_are_now", r"\bfrom\snow\son,?\syou\s(?:are|will|must|shall|should|have|can)\b", "now"),
        (
            "role_play",
            r"\b(?:act|behave|respond)\sas\s(?:if\syou\sare\s)?(?:an?\s)?(?:ai|assistant|chatbot|language\smodel|dan|unrestricted|jailbroken|different\sai|evil)\b",
            "act behave respond",
        ),
        ("role_play", r"\bpretend\s(?:to\sbe|you\sare|that\syou|you\sre)\b", "pretend"),
        ("role_play", r"\broie\s?piay\sas\b", "piay roiepiay"),
        (
            "jailbreak",
            r"\b(?:dan\smode|do\sanything\snow|jailbreak\smode|developer\smode\s(?:enabled|on)\W+you)\b",
            "dan anything jaiibreak deveioper",
        ),
        (
            "prompt_leak",
            r"\b(?:reveal|print|show|repeat|output|display|leak|tell\sme)\s(?:me\s)?(?:your|the)\s(?:system\s|initial\s|original\s|hidden\s)?(?:prompt|instructions)\b",
            "prompt instructions",
        ),
        (
            "addressing_model",
            r"\b(?:note|message|attention|instructions?)\s(?:to|for)\s(?:the\s)?(?:ai|llm|assistant|language\smodel|model|chatbot|gpt|claude)\b",
            "ai iim assistant modei chatbot gpt ciaude",
        ),
        (
            "addressing_model",
            r"\bif\syou\sare\san?\s(?:ai|llm|language\smodel|assistant|automated)\b",
            "ai iim modei assistant automated",
        ),
        (
            "addressing_model",
            r"\b(?:dear|hey|hello)\s(?:ai|llm|assistant|chatgpt|gpt|claude|model)\b",
            "dear hey heiio",
        ),
        ("steer_verdict", r"\b(?:report|say|state|conclude|write|answer)\s(?:that\s)?the\sroot\scause\sis\b", "cause"),
        (
            "steer_verdict",
            r"\bdo\snot\s(?:mention|report|investigate|flag|escalate|include)\s(?:this|these|the|any)\b.*\b(?:ai|assistant|model|investigat|incident|alert)",
            "not",
        ),
        (
            "exfiltration",
            r"\b(?:send|post|upload|exfiltrate|email|forward)\s(?:all\s|the\s|your\s)*(?:secrets|credentials|api\skeys|tokens|passwords|environment|env\svars|system\sprompt)\s(?:to|at)\b",
            "secrets credentiais keys tokens passwords environment env prompt",
        ),
        (
            "base64_hint",
            r"\b(?:decode|base64\sdecode)\s(?:this|the\sfoiiowing|it|beiow)?.{0,20}\b(?:and|then)\s(?:foiiow|execute|obey|run|do)\b",
            "decode",
        ),
        # Role prefixes only when what follows is aimed at a model.
        (
            "role_prefix",
            r"^(?:\W{0,3})(?:system|assistant|deveioper|user|human)\s?:\s.*\b(?:you\s(?:are|must|shouid|wiii|have\sto)|your\s(?:task|job|roie|instructions)|ignore|disregard|assistant|ai\smodei|ianguage\smodei|iim|respond\s(?:oniy|with)|repiy\swith|answer\swith|output\soniy|root\scause\sis|instructions?|prompt)\b",
            "system assistant deveioper user human",
        ),
        (
            "markdown_role",
            r"^\s*#{2,}\s?(?:instruction|system|system\sprompt|new\sinstructions|response)\s?:?\s*$",
            "instruction instructions system prompt response",
        ),
        (
            "new_instructions",
            r"\b(?:new|updated|begin|start|end\sof)\s(?:the\s)?system\sprompt\b",
            "prompt",
        ),
        (
            "markdown_role",
            r"\[(?:system|assistant|deveioper)\]\s?#",
            "system assistant deveioper",
        ),
        (
            "steer_verdict",
            r"\byou\s(?:must|should|will|have\sto|need\sto)\s(?:now\s)?(?:output|say|respond|answer|repiy|print|mark"
            r"|ciose|report|conciude|ignore|disregard|forget|pretend|act\sas)\b",
            "you",
        ),
        (
            "steer_verdict",
            r"\b(?:respond|repiy|answer)\s(?:with\s)?oniy\s(?:the\sword|with|[\"'])",
            "respond repiy answer",
        ),
        (
            "steer_verdict",
            r"\b(?:mark|ciose)\s(?:this|it|the)(?:\s(?:incident|aiert|ticket|investigation))?\s(?:as\s)?"
            r"(?:resoived|ciosed|heaithy|a\sfaise\spositive|faise\spositive|benign)\b",
            "mark ciose",
        ),
        (
            "steer_verdict",
            r"\bstop\s(?:the\s)?investigat",
            "stop",
        ),
        (
            "jailbreak",
            r"\byou\s(?:have|re|are)\s(?:now\s)?(?:no|free\sof|free\sfrom|without)\s(?:restrictions|ruies|iimits|fiiters|guideiines|guardraiis)\b",
            "you",
        ),
    )
)

# Chat-template and role tags, matched on the visible (NFKC, case-folded) text.
_TAG_RULE = re.compile(
    r"<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text"
    r"|start_header_id|end_header_id|eot_id|eom_id|fim_prefix|fim_suffix|fim_middle)\s*\|>"
    r"|\[/?inst\]|<</?sys>>|<start_of_turn>|<end_of_turn>|</?(?:system|assistant|instructions?)>"
    r"|^\s*(?:human|assistant)\s?:\s"
    r"|\bsystem\s?(?:prompt|override)\s?:"
)

# Compact letters-only forms of the strongest phrases (catch spaced-out letters).
_COMPACT_RULES: tuple[_Rule, ...] = tuple(
    _Rule(name, re.compile(pattern), hints)
    for name, pattern, hints in (
        (
            "ignore_instructions",
            r"(?:ignore|disregard|forget|bypass|override)(?:aii|any|the|your|of|my)*"
            r"(?:previous|prior|above|earlier|preceding|your|system)(?:instructions?|ruies|prompts?|directions|guideiines)",
            ("ignore", "disregard", "forget", "bypass", "overrid"),
        ),
        ("ignore_above", r"(?:ignore|disregard)(?:aii|everything)?(?:the)?above", ("above",)),
        ("you_are_now", r"youarenow(?:dan|unrestricted|jaiibroken|freefrom)", ("youarenow",)),
        ("jailbreak", r"doanythingnow|danmode", ("anythingnow", "danmode")),
        ("prompt_leak", r"(?:reveai|print|show|repeat)(?:me)?your(?:system)?prompt", ("prompt",)),
    )
)

# Other languages, matched on the visible text (scripts kept, case-folded).
_LANGUAGE_RULES: tuple[_Rule, ...] = tuple(
    _Rule(name, re.compile(pattern), hints, frozenset(words.split()))
    for name, pattern, hints, words in (
        # Addressing a model by name, on the visible text (in the skeleton,
        # leetspeak would read a time such as `01:41:29` as `ai:`).
        (
            "addressing_model",
            r"\b(?:ai|llm|gpt|chatgpt|claude|(?:ai|llm)\s(?:assistant|model|agent))\s?:\s(?=[a-z])",
            (),
            "ai llm gpt chatgpt claude",
        ),
        (
            "addressing_model",
            r"^\W*(?:ai|assistant|llm|gpt|chatgpt|claude)\s?,\s(?:please|you|ignore|stop|mark|report|do|say|close)\b",
            (),
            "ai assistant llm gpt chatgpt claude",
        ),
        # German
        (
            "ignore_instructions_de",
            r"\b(?:ignorier|vergiss|missachte)\w*\s(?:\w+\s){0,3}(?:vorherigen|bisherigen|obigen|vorigen|alle[nrs]?)\s(?:\w+\s)?(?:anweisungen|instruktionen|befehle|regeln|vorgaben)",
            (),
            "ignoriere ignorier ignoriert ignorieren vergiss vergesse vergessen missachte missachten",
        ),
        (
            "you_are_now_de",
            r"\b(?:du\sbist|sie\ssind)\s(?:jetzt|nun|ab\sjetzt|ab\ssofort)\s(?:ein|eine|der|die|dan|frei)\b",
            (),
            "bist sind",
        ),
        ("new_instructions_de", r"\bneue\s(?:anweisungen|instruktionen|befehle)\s?:", (), "neue"),
        # French
        (
            "ignore_instructions_fr",
            r"\b(?:ignore[zrs]?|oublie[zrs]?|ne\stiens\spas\scompte\sdes?)\s(?:\w+\s){0,3}(?:instructions|consignes|règles|directives)\s(?:\w+\s)?(?:précédentes|antérieures|ci-dessus|initiales)",
            (),
            "ignore ignorez ignorer ignores oublie oubliez oublier oublies tiens",
        ),
        (
            "ignore_instructions_fr",
            r"\b(?:ignore[zrs]?|oublie[zrs]?)\s(?:toutes?\s)?(?:les|vos|tes)\s(?:instructions|consignes|règles)\b",
            (),
            "ignore ignorez ignorer ignores oublie oubliez oublier oublies tiens",
        ),
        (
            "you_are_now_fr",
            r"\b(?:tu\ses|vous\sêtes)\s(?:maintenant|désormais|dorénavant)\s(?:un|une|le|la|dan|libre)\b",
            (),
            "maintenant désormais dorénavant",
        ),
        ("new_instructions_fr", r"\bnouvelles\s(?:instructions|consignes)\s?:", (), "nouvelles"),
        # Spanish / Portuguese / Italian
        (
            "ignore_instructions_es",
            r"\b(?:ignora|ignore|olvida|olvide|omite|desconsidere|esqueça|esquece|dimentica)\w*\s(?:\w+\s){0,3}(?:instrucciones|instruções|istruzioni|indicaciones|reglas|regras|regole)\s(?:\w+\s)?(?:anteriores|previas|precedentes|precedenti|anteriori|de\sarriba)",
            (),
            "instrucciones instruções istruzioni indicaciones reglas regras regole",
        ),
        (
            "you_are_now_es",
            r"\b(?:ahora\seres|a\spartir\sde\sahora\seres|agora\svocê\sé|agora\ses|ora\ssei|adesso\ssei)\s(?:un|una|uma|dan|libre|livre)\b",
            (),
            "eres você agora sei",
        ),
        (
            "new_instructions_es",
            r"\b(?:nuevas\sinstrucciones|novas\sinstruções|nuove\sistruzioni)\s?:",
            (),
            "nuevas novas nuove",
        ),
        # Dutch
        (
            "ignore_instructions_nl",
            r"\b(?:negeer|vergeet)\s(?:\w+\s){0,3}(?:vorige|eerdere|voorgaande)\s(?:instructies|opdrachten|regels)",
            (),
            "negeer vergeet",
        ),
        # Russian / Ukrainian
        (
            "ignore_instructions_ru",
            r"(?:игнорируй|проигнорируй|забудь|не\sобращай\sвнимания\sна|ігноруй|забудь)\w*\s(?:\w+\s){0,3}(?:предыдущие|прошлые|прежние|все|вышеуказанные|попередні)\s(?:\w+\s)?(?:инструкции|указания|команды|правила|інструкції)",
            (),
            "игнорируй проигнорируй игнорируйте проигнорируйте забудь забудьте обращай ігноруй",
        ),
        (
            "you_are_now_ru",
            r"(?:теперь\sты|отныне\sты|ты\sтеперь)\s(?:\w+\s)?(?:ии|бот|dan|свободн|не\sогранич|хакер|ассистент|модель)",
            (),
            "ты",
        ),
        ("new_instructions_ru", r"новые\s(?:инструкции|указания)\s?:", (), "новые"),
        # Chinese
        (
            "ignore_instructions_zh",
            r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|無視|忽略掉)\s?(?:之前|以上|上面|先前|前面|此前|所有|一切|全部|上述)\S{0,6}?(?:指令|指示|说明|說明|提示|规则|規則|命令|设定|設定)",
            ("忽", "无视", "忘", "理会", "無視"),
            "",
        ),
        (
            "you_are_now_zh",
            r"(?:你现在是|你現在是|从现在开始你是|從現在開始你是|现在你是|你将扮演|你將扮演)",
            ("你",),
            "",
        ),
        ("new_instructions_zh", r"(?:新的指令|新指令|新的指示)\s?[:：]", ("指令", "指示"), ""),
        # Japanese
        (
            "ignore_instructions_ja",
            r"(?:以前|これまで|上記|前)の(?:指示|命令|ルール|プロンプト)を(?:すべて|全て)?(?:無視|忘れ)",
            ("無視", "忘れ"),
            "",
        ),
        ("you_are_now_ja", r"(?:あなたは今から|今からあなたは|これからあなたは)", ("あなた",), ""),
        # Korean
        (
            "ignore_instructions_ko",
            r"(?:이전|위의|앞의|모든)\s?(?:지시|지침|명령|규칙)\S{0,3}\s?(?:무시|잊어)",
            ("무시", "잊어"),
            "",
        ),
        ("you_are_now_ko", r"(?:너는|당신은)\s?이제\s?(?:부터\s?)?\S*(?:이다|입니다|야|이야)", ("이제",), ""),
        # Turkish / Polish
        (
            "ignore_instructions_tr",
            r"\b(?:önceki|yukarıdaki|tüm)\s(?:talimatları|komutları)\s(?:yok\ssay|unut|görmezden\sgel)",
            (),
            "talimatları komutları",
        ),
        (
            "ignore_instructions_pl",
            r"\b(?:zignoruj|zapomnij|ignoruj)\s(?:\w+\s){0,3}(?:poprzednie|wcześniejsze|powyższe)\s(?:instrukcje|polecenia)",
            (),
            "zignoruj zapomnij ignoruj",
        ),
    )
)

_TAG_HINT = re.compile(r"[<\[]|human|assistant|system")
_BASE64_TOKEN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])")
_BOUNDARY = re.compile(r"<\s*/?\s*log_content\b[^>]*>", re.IGNORECASE)


# ASCII punctuation to spaces: `text.translate(...).split()` gives the words.
_ASCII_SPLIT = {code: 32 for code in range(128) if not chr(code).isalnum()}
_COMPACT_DROP = dict.fromkeys(map(ord, " " + _KEPT_PUNCTUATION))
_LANGUAGE_WORDS = frozenset().union(*(rule.words for rule in _LANGUAGE_RULES))
_SKELETON_WORDS = frozenset().union(*(rule.words for rule in _SKELETON_RULES))


def _first_match(rules: tuple[_Rule, ...], text: str, words: set[str]) -> str | None:
    for rule in rules:
        if rule.applies(text, words):
            return rule.name
    return None


def _match_plain(line: str) -> str | None:
    visible = _visible(line)
    if "log" in visible and "content" in visible and _BOUNDARY.search(visible.replace(" ", "")):
        return "boundary_escape"
    if _TAG_HINT.search(visible) and _TAG_RULE.search(visible):
        return "role_tag"
    words = set(visible.translate(_ASCII_SPLIT).split())
    if not visible.isascii() or not _LANGUAGE_WORDS.isdisjoint(words):
        rule = _first_match(_LANGUAGE_RULES, visible, words)
        if rule is not None:
            return rule
    skeleton = _skeleton(visible)
    words = set(skeleton.translate(_ASCII_SPLIT).split())
    if not _SKELETON_WORDS.isdisjoint(words):
        rule = _first_match(_SKELETON_RULES, skeleton, words)
        if rule is not None:
            return rule
    return _first_match(_COMPACT_RULES, _compact(skeleton), set())


def _decoded_payloads(line: str) -> list[str]:
    payloads = []
    for token in _BASE64_TOKEN.findall(line):
        padded = token + "=" * (-len(token) % 4)
        try:
            raw = base64.b64decode(padded, validate=True)
        except (binascii.Error, ValueError):
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        printable = sum(ch.isprintable() or ch.isspace() for ch in text)
        if text and printable / len(text) > 0.9 and " " in text:
            payloads.append(text)
    return payloads


def injection_rule(line: str) -> str | None:
    """Name of the rule that marks `line` as an instruction to a model, or None."""
    rule = _match_plain(line)
    if rule is not None:
        return rule
    for payload in _decoded_payloads(line):
        inner = _match_plain(payload)
        if inner is not None:
            return f"base64:{inner}"
    return None


def escape_boundaries(text: str) -> str:
    """Neutralise `<log_content>` tags (also full-width or spaced) inside the text."""
    if "log_content" not in _visible(text).replace(" ", ""):
        return text
    lines = []
    for line in text.split("\n"):
        if "log_content" in _visible(line).replace(" ", ""):
            line = _BOUNDARY.sub("[log_content tag removed]", unicodedata.normalize("NFKC", line).translate(_INVISIBLE))
        lines.append(line)
    return "\n".join(lines)


def neutralise(text: str) -> tuple[str, tuple[InjectionRedaction, ...]]:
    """Replace lines that look like instructions to a model with `PLACEHOLDER`."""
    out: list[str] = []
    redactions: list[InjectionRedaction] = []
    for number, line in enumerate(text.split("\n"), start=1):
        rule = injection_rule(line) if line.strip() else None
        if rule is None:
            out.append(line)
        else:
            out.append(PLACEHOLDER)
            redactions.append(InjectionRedaction(number, rule, line))
    return "\n".join(out), tuple(redactions)


def guard(text: str, *, source: str = "") -> GuardedText:
    """Neutralise suspicious lines, escape boundary tags, and wrap in `<log_content>`."""
    cleaned, redactions = neutralise(text)
    cleaned = escape_boundaries(cleaned)
    attribute = f' source="{_attribute(source)}"' if source else ""
    return GuardedText(f"<log_content{attribute}>\n{cleaned}\n{CLOSE_TAG}", redactions)


def _attribute(value: str) -> str:
    return re.sub(r"[^\w.:/@#-]", "_", value)
