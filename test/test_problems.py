"""Reader problems are typed facts; each kind is worded by exactly one syntax rule."""

from __future__ import annotations

from plan_verifier import rules as registry
from plan_verifier.findings import Category
from plan_verifier.problems import ProblemKind


def test_every_problem_kind_is_owned_by_exactly_one_rule() -> None:
    for kind in ProblemKind:
        owners = [rule.id for rule in registry.all_rules() if kind in rule.owns]
        assert len(owners) == 1, f"{kind}: owned by {owners or 'no rule'}"


def test_only_syntax_rules_own_problems_and_they_word_them() -> None:
    for rule in registry.all_rules():
        if rule.owns:
            assert rule.category is Category.SYNTAX, rule.id
            assert "word" in vars(rule), f"{rule.id} owns problems but does not word them"
            assert rule.owns <= set(ProblemKind), rule.id
