"""The semantic grader's flags, shared by `check` and `eval` (not a subcommand)."""

from __future__ import annotations

import argparse

from plan_verifier.options import GRADERS, LLM_API_KEY_ENV, LLM_DEFAULT_MODEL, LLM_DEFAULT_TIMEOUT_S, GraderOptions, VerifyOptions
from plan_verifier.resources import ConfigError


def add_semantic_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("semantic checks (level FULL)")
    group.add_argument("--semantic-grader", choices=GRADERS, default="rule_check",
                       help="rule_check: deterministic, no model (default); llm: rule_check plus an LLM review")
    group.add_argument("--llm-url", metavar="URL",
                       help=f"OpenAI-compatible chat-completions endpoint or base URL (.../v1); API key from {LLM_API_KEY_ENV}")
    group.add_argument("--llm-model", metavar="NAME", default=LLM_DEFAULT_MODEL, help="model name sent to the endpoint")
    group.add_argument("--llm-timeout", metavar="SECONDS", type=float, default=LLM_DEFAULT_TIMEOUT_S,
                       help=f"per request; on timeout the outcome is UNKNOWN and the verdict unchanged (default {LLM_DEFAULT_TIMEOUT_S:g})")


def semantic_options(args: argparse.Namespace) -> VerifyOptions:
    """Verifier options for the flags; `--semantic-grader llm` without `--llm-url` is a usage error."""
    if args.semantic_grader == "llm" and not args.llm_url:
        raise ConfigError("--semantic-grader llm needs --llm-url")
    if args.llm_timeout <= 0:
        raise ConfigError("--llm-timeout must be positive")
    if args.semantic_grader == "llm":
        return VerifyOptions(grader=GraderOptions("llm", args.llm_url, args.llm_model, args.llm_timeout))
    return VerifyOptions()
