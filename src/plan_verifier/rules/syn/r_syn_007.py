from __future__ import annotations

from plan_verifier import catalogue
from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn007(Rule):
    """Unknown command, too many arguments, or an unknown parameter name.

    Every command must be in the TDL command catalogue (or be a GOAL of the
    program), take no more positional arguments than its signature, and use
    only its own parameter names, each once. ``COMMAND`` implementation blocks
    may only bind catalogue commands, with the catalogue's parameter names.

    **Unsafe**::

        SPAWN MoveLiner(A, 100, 50, 0, 0) WITH WAIT;              // unknown command
        SPAWN Delay(duration_sec=0.5, speed=2) WITH WAIT;         // unknown parameter

    **Safe**::

        SPAWN MoveLinear(A, 100, 50, 0, 0) WITH WAIT;
        SPAWN Delay(duration_sec=0.5) WITH WAIT;
    """

    id = "R-SYN-007"
    name = "unknown-command-or-parameter"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    owns = frozenset({K.UNKNOWN_FUNCTION, K.COMMAND_IN_ARGUMENT})

    def check(self, ctx):
        yield from self.owned_problems(ctx)
        for step in ctx.plan.steps:
            binding = step.binding
            if binding is None:
                continue
            if not binding.known:
                guess = catalogue.closest(step.command)
                yield self.finding(f"Unknown command '{step.command}'", span=step.span, step=step.index, evidence={"command": step.command},
                                   suggestion=f"Did you mean '{guess}'?" if guess else "Use a command from `plan-verify commands`")
                continue
            spec = catalogue.lookup(step.command)
            for arg in binding.extra_positional:
                yield self.finding(f"Too many arguments for '{step.command}': it takes {len(spec.params)} ({spec.signature})",
                                   span=arg.span or step.span, step=step.index, evidence={"command": step.command, "max": len(spec.params)})
            for arg in binding.unknown_names:
                names = ", ".join(p.name for p in spec.params)
                yield self.finding(f"Unknown parameter '{arg.name}' for command '{step.command}' (parameters: {names})",
                                   span=arg.span or step.span, step=step.index, evidence={"command": step.command, "param": arg.name})
            for arg in binding.duplicates:
                yield self.finding(f"Parameter '{arg.name}' given twice to '{step.command}'", span=arg.span or step.span, step=step.index,
                                   evidence={"command": step.command, "param": arg.name})
        for definition in ctx.plan.command_defs:
            spec = catalogue.lookup(definition.name)
            if spec is None:
                yield self.finding(f"Unknown command '{definition.name}' in a COMMAND block (only catalogue commands may be bound)",
                                   span=definition.span, evidence={"command": definition.name})
            elif tuple(p.name for p in spec.params) != definition.params:
                yield self.finding(f"COMMAND {definition.name}({', '.join(definition.params)}) does not match the catalogue signature {spec.signature}",
                                   span=definition.span, evidence={"command": definition.name})

    def word(self, problem: Problem) -> Finding:
        name = problem.values["command"]
        if problem.kind is K.UNKNOWN_FUNCTION:
            guess = catalogue.closest(name)
            return self.finding(f"Unknown function '{name}' in an argument", span=problem.span, step=problem.step,
                                evidence={"command": name}, suggestion=f"Did you mean '{guess}'?" if guess else None)
        return self.finding(f"'{name}' is a command and cannot be used inside an argument", span=problem.span, step=problem.step,
                            evidence={"command": name}, suggestion=f"Run {name}(...) as its own statement")
