"""The semantic stage (level FULL): does the plan do what the instruction says?

One small interface, two graders, chosen by the verification options:

* `semantic_grader: rule_check` (default): deterministic reading of English and
  Korean instructions compared with the plan (`rule_check.py`); no model.
* `semantic_grader: llm`: rule_check plus seed 000's two-stage review by any
  OpenAI-compatible chat endpoint (`llm_url`, `llm_model`, `llm_timeout_s`);
  the model can add issues, never remove them (`llm.py`).

A grader is anything with `name` and `assess(ctx) -> Assessment`. The stage
runs once per verification (`RuleContext.semantic`); the R-SEM rules turn its
issues into findings. `semantic_observer`, if given in the options, is called
with every assessment (the evaluation uses it to record confidences).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from plan_verifier.semantic.assessment import Assessment, Unavailable

if TYPE_CHECKING:
    from plan_verifier.context import RuleContext

GRADERS = ("rule_check", "llm")
#: The llm grader's settings: API key variable (never a flag), default model name and per-request timeout.
LLM_API_KEY_ENV = "PLAN_VERIFIER_LLM_API_KEY"
LLM_DEFAULT_MODEL = "default"
LLM_DEFAULT_TIMEOUT_S = 10.0


class Grader(Protocol):
    name: str

    def assess(self, ctx: "RuleContext") -> Assessment: ...


def grader_for(options) -> Grader:
    """The grader the options select (unknown names are a configuration error)."""
    from plan_verifier.semantic.llm import ChatClient, LlmGrader
    from plan_verifier.semantic.rule_check import RuleCheckGrader

    options = options or {}
    name = options.get("semantic_grader") or "rule_check"
    if name == "rule_check":
        return RuleCheckGrader()
    if name == "llm":
        url = options.get("llm_url")
        client = ChatClient(url, options.get("llm_model") or LLM_DEFAULT_MODEL,
                            float(options.get("llm_timeout_s") or LLM_DEFAULT_TIMEOUT_S)) if url else None
        return LlmGrader(client)
    raise ValueError(f"unknown semantic grader {name!r} (expected one of {', '.join(GRADERS)})")


def assess(ctx: "RuleContext") -> Assessment:
    """The semantic assessment of this verification (no instruction: nothing to compare with)."""
    if not (ctx.instruction or "").strip():
        result = Assessment("none", "UNKNOWN", 0.0, unavailable=(Unavailable(
            "No instruction given: the semantic checks (level FULL) need the natural-language instruction",
            "insufficient_evidence", "none"),))
    else:
        result = grader_for(ctx.options).assess(ctx)
    observer = (ctx.options or {}).get("semantic_observer")
    if observer is not None:
        observer(result)
    return result
