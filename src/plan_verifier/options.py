"""What one verification is asked to do, as one frozen value.

`VerifyOptions` replaces the untyped option bag: the semantic grader and its
endpoint, whether the execution level runs, and the two facts the pipeline
learns before the rules run and hands to the rules that report them — the
graph error (R-GRF-000) and the checks that crashed (R-SYS-001). Nothing
mutates options or a rule context after it is built; the pipeline derives a
new value with `dataclasses.replace` instead.

Callers that hold settings as plain data (a rule fixture, ROS parameters)
build options with `VerifyOptions.from_mapping`, which rejects unknown keys
so that a misspelt setting is an error, not a silent default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from plan_verifier.findings import Category

GRADERS = ("rule_check", "llm")
#: The llm grader's API key variable (never a flag), default model name and per-request timeout.
LLM_API_KEY_ENV = "PLAN_VERIFIER_LLM_API_KEY"
LLM_DEFAULT_MODEL = "default"
LLM_DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class GraderOptions:
    """The semantic stage's grader (level FULL): `rule_check` (no model) or `llm` (rule_check plus a model)."""

    name: str = "rule_check"
    llm_url: str | None = None
    llm_model: str = LLM_DEFAULT_MODEL
    llm_timeout_s: float = LLM_DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.name not in GRADERS:
            raise ValueError(f"unknown semantic grader {self.name!r} (expected one of {', '.join(GRADERS)})")
        if not (math.isfinite(self.llm_timeout_s) and self.llm_timeout_s > 0):
            raise ValueError("llm_timeout_s must be a positive number")


@dataclass(frozen=True, slots=True)
class Crash:
    """A check that raised: the rule's id (None: the plan reader), its category and the exception."""

    rule_id: str | None
    category: "Category"
    error: BaseException


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    grader: GraderOptions = field(default_factory=GraderOptions)
    #: Run the execution level (kinematic simulation of every motion) at STANDARD and FULL.
    execution: bool = True
    #: Why the knowledge graph could not be read for this verification (R-GRF-000), if it could not: a
    #: `graph.port.GraphUnavailable`, whose `reason_code` is seed 004's code.
    graph_error: Exception | None = None
    #: Checks that raised during this verification (R-SYS-001).
    crashes: tuple[Crash, ...] = ()

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> "VerifyOptions":
        """Options from plain settings: `semantic_grader`, `llm_url`, `llm_model`, `llm_timeout_s`,
        `execution`. Unknown keys raise ValueError naming them."""
        values = dict(values or {})
        grader_keys = {"semantic_grader": "name", "llm_url": "llm_url", "llm_model": "llm_model", "llm_timeout_s": "llm_timeout_s"}
        known = set(grader_keys) | {"execution"}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown verification option(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        grader = {grader_keys[k]: v for k, v in values.items() if k in grader_keys and v is not None}
        if "llm_timeout_s" in grader:
            grader["llm_timeout_s"] = float(grader["llm_timeout_s"])
        if "llm_url" in grader:
            grader["llm_url"] = str(grader["llm_url"]) or None
        return cls(grader=GraderOptions(**grader), execution=bool(values.get("execution", True)))
