"""The one entry point every surface answers a follow-up question through: rule mode, or a model when one is given.

`rootward ask`, the console and its API, Slack and Matrix threads and the MCP
`ask` tool all call `answer_followup`; what they pass decides the mode. With
no client (`llm.provider: none`, the caller's `charged_llm_client` gives
None) it is the rule-mode answer (`engine/followup.py`). With one, the model
answers over the same evidence (`engine/followup_llm.py`), and anything that
goes wrong with it comes back as the rule-mode answer with the reason.
"""

from __future__ import annotations

from rootward.domain.investigation import InvestigationResult
from rootward.engine.followup import Answer, answer, asked_about
from rootward.engine.followup_context import FollowupContext
from rootward.engine.followup_llm import model_answer
from rootward.llm.client import LLMClient


def answer_followup(
    result: InvestigationResult,
    question: str,
    context: FollowupContext | None = None,
    *,
    client: LLMClient | None = None,
    severity: str = "P2",
    variant: str = "control",
) -> Answer:
    """`question` answered from `result`'s evidence and `context`, cited; by the model of `client` when given.

    `severity` picks the model of that tier (`llm.models`); `variant` the arm of
    the `followup_system` prompt (`followup_system.<variant>.j2`) a prompt trial
    or a promotion asks for."""
    rule = answer(result, question, context)
    if client is None or not client.enabled or not asked_about(question)[0]:
        return rule
    return model_answer(client, result, question, context, rule, severity=severity, variant=variant)
