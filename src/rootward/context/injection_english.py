"""English rules of the injection guard, read on the Latin skeleton of a line.

The skeleton (see `injection.py`) maps homoglyphs and leetspeak to letters
and reads `l` as `i`, so the rules here are written in plain English and
compiled with the same substitution (`skeleton_pattern`). The phrase rules
below are the specific shapes (chat-template tags, role prefixes, prompt
leaks); the general intents (override, role change, forced conclusion,
authority) come from the English `Lexicon` in `injection_languages.py`.
Patterns need an instruction *aimed at a model*, not words logs use every
day ("SYSTEM" as a level, "ignoring previous value", "illegal instruction").
"""

from __future__ import annotations

import re

from rootward.context.injection_rules import KEY_LENGTH, Rule


def skeleton_pattern(pattern: str) -> str:
    """Patterns are written in plain English; read their `l` as `i` like the skeleton text."""
    return pattern.replace("l", "i")


def _keys(*gates: str) -> tuple[frozenset[str], ...]:
    """Gates from space-separated words (each gate: one of its words must occur)."""
    return tuple(frozenset(word[:KEY_LENGTH] for word in skeleton_pattern(gate).split()) for gate in gates)


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
SKELETON_RULES: tuple[Rule, ...] = tuple(
    Rule(name, skeleton_pattern(pattern), _keys(words))
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
TAG_RULE = re.compile(
    r"<\|\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text"
    r"|start_header_id|end_header_id|eot_id|eom_id|fim_prefix|fim_suffix|fim_middle)\s*\|>"
    r"|\[/?inst\]|<</?sys>>|<start_of_turn>|<end_of_turn>|</?(?:system|assistant|instructions?)>"
    r"|^\s*(?:human|assistant)\s?:\s"
    r"|\bsystem\s?(?:prompt|override)\s?:"
)

# Compact letters-only forms of the strongest phrases (catch spaced-out letters).
COMPACT_RULES: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (name, re.compile(pattern), hints)
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

# A chat message smuggled as data: `{"role": "system", "content": ...}` (JSON, a
# Python repr, YAML-ish `role: system`), matched on the visible text.
CHAT_ROLE_RULE = re.compile(
    r"""["']?\brole["']?\s*[:=]\s*["']?(?:system|developer|assistant|user|tool|function)\b["']?"""
    r"""[\s\S]{0,200}?["']?\b(?:content|parts|text)["']?\s*[:=]"""
    r"""|["']?\b(?:content|parts)["']?\s*[:=][\s\S]{0,400}?["']?\brole["']?\s*[:=]\s*["']?(?:system|developer)\b"""
    r"""|["']role["']\s*:\s*["'](?:system|developer)["']"""
)

# Authority claims and instructions dressed up as privileged, on the skeleton.
AUTHORITY_RULES: tuple[Rule, ...] = tuple(
    Rule(name, skeleton_pattern(pattern), _keys(*gates))
    for name, pattern, *gates in (
        (
            "authority_claim",
            r"\b(?:i\s?am|i\sm|im|this\sis|here\sis|message\sfrom|note\sfrom|notice\sfrom|instructions?\sfrom"
            r"|orders?\sfrom|directive\sfrom|update\sfrom|on\sbehalf\sof|speaking\sas|speaking\sfor|as)"
            r"\s(?:your|the\sai\s?s|the\smodel\s?s|the\sassistant\s?s)\s(?:\w+\s){0,2}?"
            r"(?:developers?|creators?|administrators?|admins?|operators?|owners?|makers?|trainers?"
            r"|programmers?|supervisors?|boss|manager|master|maintainers?|vendor|provider|designers?|engineers?)\b",
            "developer developers creator creators administrator administrators admin admins operator operators owner"
            " owners maker makers trainer trainers programmer programmers supervisor supervisors boss manager master"
            " maintainer maintainers vendor provider designer designers engineer engineers",
            "your the",
        ),
        (
            "authority_claim",
            r"\b(?:as|i\s?am|i\sm|im|this\sis)\s(?:the|an?|your)\s(?:\w+\s){0,2}?"
            r"(?:developer|creator|administrator|admin|operator|owner|supervisor|boss|manager|maintainer|sre\slead"
            r"|incident\scommander|security\steam)s?\b.{0,40}?\b(?:you\s(?:must|should|shall"
            r"|are\s(?:to|required|ordered|instructed|authorized))"
            r"|(?:telling|ordering|instructing|commanding|directing|requiring|authori[sz]ing|asking)\syou)\b",
            "developer creator administrator admin operator owner supervisor boss manager maintainer lead"
            " commander team developers creators administrators admins operators owners",
            "you",
        ),
        (
            "authority_claim",
            r"\b(?:openai|anthropic|deepmind|the\smodel\sprovider|your\s(?:developers|creators|vendor|provider))"
            r"\s(?:here|speaking|has\s(?:authorized|instructed|approved|ordered)|instructs|requires|authorizes"
            r"|orders|says\syou|wants\syou|policy\supdate)\b",
            "openai anthropic deepmind provider developers creators vendor",
        ),
        (
            "authority_claim",
            r"\b(?:admin|administrator|root|developer|sudo|god|maintenance|debug|override|superuser|privileged"
            r"|system|security)\s(?:mode|access|override|privileges?|rights|authority|clearance|level)\s(?:is\s|has\sbeen\s)?"
            r"(?:enabled|activated|granted|unlocked|engaged|confirmed|on)\b.{0,60}?\b(?:you|your|assistant|model|ai|llm)\b",
            "mode access override privilege privileges rights authority clearance level",
            "you your assistant model ai llm",
        ),
        (
            "authority_claim",
            r"\b(?:this|the\sfollowing)\s(?:message|instruction|directive|note|text|request|order)\s(?:is|comes|was|has\sbeen)"
            r"\s(?:from|authorized|approved|signed|issued|sent|verified|mandated)\s(?:by\s|from\s)?(?:the\s|your\s)?"
            r"(?:system|developers?|administrators?|admins?|security\steam|openai|anthropic|operators?|owners?"
            r"|sre\slead|incident\scommander|ciso|cto|ceo|management|platform\steam)\b",
            "message instruction directive note text request order",
            "this the",
        ),
        (
            "authority_claim",
            r"\b(?:highest|top|maximum|absolute|overriding|supreme|critical)[\s-]priority\s(?:instruction|directive|order"
            r"|command|message|override|task)\b",
            "highest top maximum absolute overriding supreme critical",
        ),
        (
            "authority_claim",
            r"\b(?:authori[sz]ed|official|verified|trusted|signed|mandatory)\s(?:system\s|admin\s|developer\s)?"
            r"(?:instruction|directive|override)s?\s(?:for|to)\s(?:the\s|this\s)?(?:ai|model|assistant|llm|bot)\b"
            r"|\b(?:authori[sz]ed|official|verified|trusted|signed)\s(?:system\smessage|prompt\supdate|system\sprompt)\b",
            "authorized authorised official privileged verified trusted signed mandatory",
        ),
        (
            "authority_claim",
            r"\b(?:with|using|by)\s(?:my\s)?(?:admin|administrator|root|developer|system|elevated)\s(?:rights|privileges"
            r"|authority|access|clearance),?\si\s(?:instruct|order|tell|command|authorize|direct|require)\syou\b",
            "instruct order tell command authorize direct require",
            "with using by",
        ),
        (
            "authority_claim",
            r"\b(?:overrides?|supersedes?|takes\sprecedence\sover|replaces)\s(?:all|any|every|your)\s(?:other\s|previous\s"
            r"|prior\s|earlier\s|existing\s)*(?:instructions|rules|directives|guidelines|prompts?|orders)\b",
            "override overrides supersede supersedes takes replaces",
        ),
    )
)

# Addressing a model by name, on the visible text (in the skeleton, leetspeak
# would read a time such as `01:41:29` as `ai:`).
ADDRESSING_RULES: tuple[Rule, ...] = (
    Rule(
        "addressing_model",
        r"\b(?:ai|llm|gpt|chatgpt|claude|(?:ai|llm)\s(?:assistant|model|agent))\s?:\s(?=[a-z])",
        (frozenset({"ai", "llm", "gpt", "chat", "clau"}),),
    ),
    Rule(
        "addressing_model",
        r"^\W*(?:ai|assistant|llm|gpt|chatgpt|claude)\s?,\s(?:please|you|ignore|stop|mark|report|do|say|close)\b",
        (frozenset({"ai", "assi", "llm", "gpt", "chat", "clau"}),),
    ),
)

# A model told it is free of its limits, in any wording ("you're now operating without any restrictions").
JAILBREAK_RULE = Rule(
    "jailbreak",
    skeleton_pattern(
        r"\byou\s(?:are|re|have|will|can|may)\s(?:now\s)?(?:\w+\s){0,2}?(?:without|free\sof|free\sfrom|no|zero)\s"
        r"(?:any\s|more\s)?(?:restrictions|rules|limits|filters|guidelines|guardrails|limitations|constraints|censorship)\b"
    ),
    _keys("restrictions rules limits filters guidelines guardrails limitations constraints censorship", "you"),
)
