"""What the readers found wrong with a plan's text, as neutral typed facts.

The scanner, the TDL parser and its error recovery, the lowering, the
JSON/YAML and actions-file readers and the input decoder never decide which
rule a problem belongs to and never word it: they record a `Problem` — a
stable `kind`, where it is, and the values a message needs. Each syntax rule
declares the kinds it owns (`Rule.owns`) and turns each of its problems into a
finding in its own words (`Rule.word`), so a rule's id, message, suggestion
and evidence live in its module and nowhere else. Every kind is owned by
exactly one rule (a test checks this over `ProblemKind`).
"""

from __future__ import annotations

import enum
import types
from dataclasses import dataclass, field
from typing import Any, Mapping

from plan_verifier.findings import Span


class ProblemKind(enum.StrEnum):
    """Every problem a reader can record; the value is the stable identifier."""

    # input decoding and limits
    PLAN_TOO_LARGE = "plan_too_large"
    TOO_MANY_COMMANDS = "too_many_commands"
    NOT_UTF8 = "not_utf8"
    UNPAIRED_SURROGATE = "unpaired_surrogate"
    NUL_CHARACTER = "nul_character"
    # TDL scanner
    BAD_CHARACTERS = "bad_characters"
    HEADER_UNCLOSED = "header_unclosed"
    NESTING_TOO_DEEP = "nesting_too_deep"
    # TDL parser (error recovery), by the statement the parser was in
    UNEXPECTED_TOKEN = "unexpected_token"
    STRAY_RBRACE = "stray_rbrace"
    UNCLOSED_BRACE = "unclosed_brace"
    BODY_WITHOUT_BRACES = "body_without_braces"
    BLOCK_MISSING_RPAR = "block_missing_rpar"
    DEFINE_UNEXPECTED_TOKEN = "define_unexpected_token"
    DEFINE_MISSING_SEMICOLON = "define_missing_semicolon"
    DEFINE_MISSING_RPAR = "define_missing_rpar"
    DEFINE_MISSING_EQUAL = "define_missing_equal"
    STATEMENT_UNEXPECTED_TOKEN = "statement_unexpected_token"
    STATEMENT_MISSING_SEMICOLON = "statement_missing_semicolon"
    STATEMENT_MISSING_RPAR = "statement_missing_rpar"
    SPAWN_MISSING_WITH = "spawn_missing_with"
    SPAWN_MISSING_OPTION = "spawn_missing_option"
    SPAWN_WITH_WITHOUT_OPTION = "spawn_with_without_option"
    SPAWN_UNKNOWN_OPTION = "spawn_unknown_option"
    WITH_WITHOUT_SPAWN = "with_without_spawn"
    # TDL lowering
    HEADER_LINE_FORMAT = "header_line_format"
    GOAL_RECURSION = "goal_recursion"
    DEFINE_MISSING_POS_TYPE = "define_missing_pos_type"
    DEFINE_NOT_A_POSE = "define_not_a_pose"
    UNKNOWN_FUNCTION = "unknown_function"
    COMMAND_IN_ARGUMENT = "command_in_argument"
    NESTED_CALL_MISSING_PARAMETER = "nested_call_missing_parameter"
    NON_FINITE_NUMBER = "non_finite_number"
    # JSON/YAML step plans and actions files
    JSON_INVALID = "json_invalid"
    YAML_INVALID = "yaml_invalid"
    DOCUMENT_TOO_DEEP = "document_too_deep"
    NOT_A_STEP_LIST = "not_a_step_list"
    SCHEMA_MISMATCH = "schema_mismatch"
    ACTIONS_STEPS_CHANGED = "actions_steps_changed"


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem found while reading a plan: what, where, and the values a message needs."""

    kind: ProblemKind
    span: Span | None = None
    step: int | None = None
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.values) is not types.MappingProxyType:
            object.__setattr__(self, "values", types.MappingProxyType(dict(self.values)))
