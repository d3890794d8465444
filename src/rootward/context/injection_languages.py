"""The injection intents in many languages: one `Lexicon` per language.

Each lexicon says, in that language, the words of the intents described in
`injection_rules.py` (override, role change, forced conclusion, authority,
new instructions). Verbs are written as imperatives or stems (`ignor\\w*`),
because an instruction is an imperative and a log line reports what a
program did (`ignoring previous value`, `marked incident as resolved`): the
override intent also needs the instructions to be the earlier ones, which a
log line almost never says. English is read on the skeleton (leetspeak and
homoglyphs mapped); the others on the folded visible text, accents removed
(both in the text and here), so `precedentes` and `précédentes` are one word.
"""

from __future__ import annotations

from functools import cache

from rootward.context.injection_english import skeleton_pattern
from rootward.context.injection_lexicons_latin import LATIN_LEXICONS
from rootward.context.injection_lexicons_scripts import SCRIPT_LEXICONS
from rootward.context.injection_rules import Lexicon, Rule, build

ENGLISH = Lexicon(
    "en",
    override=(
        r"ignore",
        r"ignoring",
        r"disregard\w*",
        r"forget",
        r"overrid(?:e|ing)",
        r"bypass",
        r"skip",
        r"abandon",
        r"discard",
        r"dismiss",
        r"neglect",
        r"overlook",
        r"scrap",
        r"nullify",
        r"void",
        r"throw\s(?:out|away)",
        r"set\saside",
        r"put\saside",
        r"leave\sbehind",
        r"pay\sno\sattention\sto",
        r"never\smind",
        r"no\slonger\s(?:follow|obey|heed|apply|use|respect)",
        r"stop\s(?:following|obeying|applying|using|respecting)",
        r"(?:do\snot|don\s?t|dont|never)\s(?:follow|obey|heed|apply|respect|listen\sto)",
    ),
    invalidated=(
        r"(?:are|is)\s(?:now\s|hereby\s)?(?:void|obsolete|cancel+ed|revoked|superseded|invalid|null|withdrawn"
        r"|no\slonger\s(?:valid|in\seffect|apply|relevant|binding))",
        r"no\slonger\s(?:apply|applies|valid|in\seffect)",
        r"(?:do|does)\snot\sapply\sanymore",
        r"aside",
        r"to\sone\sside",
    ),
    prior=(
        r"previous\w*",
        r"prior",
        r"above",
        r"earlier",
        r"preceding",
        r"foregoing",
        r"former",
        r"original",
        r"initial",
        r"old",
        r"existing",
        r"all",
        r"every",
        r"your",
        r"system",
        r"safety",
        r"before",
        r"so\sfar",
        r"until\snow",
        r"given",
        r"received",
        r"default",
        r"preset",
        r"built[\s-]in",
    ),
    instructions=(
        r"instructions?",
        r"instructed",
        r"rules",
        r"prompts?",
        r"directions",
        r"directives?",
        r"guidelines",
        r"guidance",
        r"guardrails",
        r"commands",
        r"policies",
        r"constraints",
        r"restrictions",
        r"programming",
        r"training",
        r"context",
        r"briefing",
        r"conditioning",
        r"safeguards",
        r"filters",
        r"protocols",
        r"limitations",
        r"configuration\sof\s(?:the\s)?(?:ai|assistant|model)",
    ),
    told=(
        r"(?:everything|anything|all|whatever|what)\s(?:that\s)?(?:you\s(?:were|have\sbeen|ve\sbeen|got|have|ve|had)\s"
        r"|i\s(?:have\s)?|we\s(?:have\s)?|they\s|has\sbeen\s|was\s)(?:told|taught|given|instructed|asked|said|shown"
        r"|programmed|written|trained)",
        r"(?:everything|anything|all|what)\s(?:(?:that\s)?(?:is|was|came|comes)\s)?(?:above|before|earlier|so\sfar|prior)",
        r"all\sof\sthe\sabove",
        r"the\sabove",
    ),
    role_change=(
        r"you\s(?:are|re)\snow\s(?:\w+\s?,?\s)?(?:a|an|my|the|dan|free|no\slonger|unrestricted|jailbroken|acting|going\sto|root)\b",
        r"from\snow\son,?\s(?:you|your)\b",
        r"henceforth,?\syou\b",
        r"from\s(?:this|that)\s(?:point|moment|message|line)\s(?:on|onwards?|forward),?\s(?:you|your)\b",
        r"as\sof\s(?:now|today|this\smessage),?\syou\s(?:are|will|must|shall)\b",
        r"starting\snow,?\syou\s(?:are|will|must)\b",
        r"your\s(?:new|real|actual|true|only)\s(?:role|identity|persona|name|job|task|purpose|goal|mission)\s(?:is|will\sbe)\b",
        r"switch\s(?:to|into)\s(?:dan|developer|jailbreak|unrestricted|god|admin|debug)\smode\b",
        r"enter\s(?:dan|developer|jailbreak|unrestricted|god|admin|debug)\smode\b",
    ),
    pretend=(
        r"pretend\s(?:to\sbe|you\sare|that\syou|you\s?re|you\shave)\b",
        r"role\s?-?play\s(?:as|the)\b",
        r"play\sthe\srole\sof\b",
        r"imagine\syou\sare\s(?:a|an|the|my)\b",
        r"act\sas\s(?:if\syou\s(?:are|were)\s)?(?:an?\s)?(?:ai|assistant|chatbot|language\smodel|dan|unrestricted"
        r"|jailbroken|different|evil|hacker|admin|root|system)\b",
        r"behave\s(?:as|like)\s(?:an?\s)?(?:ai|assistant|chatbot|dan|unrestricted|jailbroken|different|evil|hacker)\b",
    ),
    report=(
        r"report",
        r"say",
        r"state",
        r"conclude",
        r"write",
        r"answer",
        r"respond",
        r"reply",
        r"claim",
        r"declare",
        r"output",
        r"insist",
        r"assert",
        r"attribute",
        r"blame",
        r"tell\s(?:them|the\suser|everyone|the\sengineer|the\son[\s-]?call|the\steam|the\ssre)",
        r"make\ssure\s(?:to\s)?(?:say|report|state|conclude)",
    ),
    cause=(
        r"(?:the\s)?(?:root\s)?cause\s(?:is|was|=|:|of\s(?:the|this)\s(?:outage|incident|failure|alert)\sis)",
        r"(?:the\s)?culprit\s(?:is|was)",
        r"(?:it\s|this\s)?(?:is|was)\scaused\sby",
        r"(?:the\s)?(?:incident|outage|alert|failure)\s(?:is|was)\s(?:caused\sby|due\sto|because\sof)",
    ),
    mark=(
        r"mark",
        r"close",
        r"flag",
        r"classify",
        r"label",
        r"treat",
        r"resolve",
        r"dismiss",
        r"consider",
        r"downgrade",
        r"suppress",
        r"silence",
    ),
    resolved=(
        r"(?:as\s)?resolved",
        r"(?:as\s)?(?:a\s)?false\spositive",
        r"(?:as\s)?(?:healthy|benign|harmless|noise|informational|not\san\sincident)",
        r"(?:as\s)?(?:a\s)?(?:test|drill)\b",
        r"without\s(?:investigat\w*|escalat\w*|analysis)",
    ),
    authority=(),
    new_instructions=(
        r"(?:new|updated|revised|real|actual|true|secret|hidden|additional|override|replacement)\s(?:system\s)?"
        r"(?:instructions|directives|orders|rules|prompt|task)",
    ),
)

# The rules are compiled when a line is first read, not on import: hundreds of patterns cost tens of
# milliseconds, which every process that imports the settings (and so this module) paid, most of them
# to never read a log line.


@cache
def english_rules() -> tuple[Rule, ...]:
    return build(ENGLISH, transform=skeleton_pattern)


@cache
def latin_rules() -> tuple[Rule, ...]:
    return tuple(rule for lexicon in LATIN_LEXICONS for rule in build(lexicon))


@cache
def script_rules() -> tuple[Rule, ...]:
    return tuple(rule for lexicon in SCRIPT_LEXICONS for rule in build(lexicon))


LANGUAGES = tuple(lexicon.language for lexicon in (ENGLISH, *LATIN_LEXICONS, *SCRIPT_LEXICONS))
