"""`plan-verify rules`: the rule catalogue, straight from the registry.

`--format markdown` prints the rules index of the documentation, docs/rules.md
(regenerate it with `plan-verify rules --format markdown > docs/rules.md`; a test
fails while the committed page differs from the registry).
"""

from __future__ import annotations

import argparse
import json

#: Where the rule modules are, seen from docs/ (the markdown index links every rule to its module).
DOCS_TO_SOURCES = "../src"


def add_parser(sub) -> None:
    p = sub.add_parser("rules", help="print the rule catalogue", description="Print every rule: id, severity, one-line documentation.")
    p.add_argument("--doc", metavar="RULE_ID", help="print the full documentation of one rule")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text", dest="output_format")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier import rules as registry
    from plan_verifier.resources import ConfigError

    entries = registry.all_rules()
    if args.doc:
        match = [r for r in entries if r.id == args.doc.upper()]
        if not match:
            raise ConfigError(f"unknown rule '{args.doc}'")
        rule = match[0]
        print(f"{rule.id} ({'/'.join(s.value for s in rule.severities())}, {rule.category.value}, {rule.name})\n")
        print(rule.doc())
        return 0
    if args.output_format == "json":
        print(json.dumps([_entry(r) for r in entries], indent=2))
    elif args.output_format == "markdown":
        print(_markdown(entries), end="")
    else:
        for r in entries:
            e = _entry(r)
            print(f"{e['id']:<10} {e['severity']:<27} {e['category']:<12} {e['summary']}")
    return 0


def _entry(rule) -> dict:
    return {
        "id": rule.id,
        "name": rule.name,
        "severity": " / ".join(s.value for s in rule.severities()),
        "category": rule.category.value,
        "formats": sorted(rule.formats),
        "reason_code": rule.reason(),
        "module": rule.__module__,
        "summary": rule.summary(),
    }


def _markdown(entries: list) -> str:
    """The rules index page: one table per family (R-SYN, R-SAF, ...), families in stage order."""
    from plan_verifier.findings import Category

    stages = list(Category)
    families: dict[str, list] = {}
    for rule in sorted(entries, key=lambda r: (stages.index(r.category), r.id)):
        families.setdefault(rule.id.rsplit("-", 1)[0], []).append(rule)
    lines = [
        "# Rules index",
        "",
        "Generated from the rule registry by `plan-verify rules --format markdown > docs/rules.md`; do not edit it",
        "by hand (a test fails when it differs from the registry). Each id links to the rule's module, which holds",
        "its check, its wording and its documentation; `plan-verify rules --doc ID` prints that documentation with",
        "an unsafe and a safe example. Severity: the severities a rule can emit (a CRITICAL finding rejects the",
        "plan). Category: the validator (pipeline stage) that runs it. Reason code: the seed 004 code of its findings.",
        "",
        f"{len(entries)} rules in {len(families)} families: " + ", ".join(families) + ".",
    ]
    for family, rules in families.items():
        categories = " / ".join(dict.fromkeys(r.category.value for r in rules))
        lines += ["", f"## {family}: {categories}", "",
                  "| id | name | severity | category | formats | reason code | summary |",
                  "|---|---|---|---|---|---|---|"]
        for rule in rules:
            e = _entry(rule)
            link = f"{DOCS_TO_SOURCES}/{e['module'].replace('.', '/')}.py"
            category = e["category"] + (" (every level)" if rule.every_level else "")
            cells = [f"[{e['id']}]({link})", f"`{e['name']}`", e["severity"], category, ", ".join(e["formats"]),
                     f"`{e['reason_code']}`", e["summary"]]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    lines += ["", *UNEVALUATED.splitlines()]
    return "\n".join(lines) + "\n"


#: The index's section on values the verifier cannot evaluate (issue 14): which rule says so, and what then.
UNEVALUATED = """## Values that cannot be evaluated

Nothing the verifier could not evaluate is approved, at any level and in both profiles. The readers
record why a value could not be evaluated (`ir.Cause`); each cause has one rule that reports it, at the
column of the expression, naming the step:

| cause | example | reported by | reason code |
|---|---|---|---|
| `undefined` | `PosX(foo, ...)`, `velocity=speed` with `speed` bound nowhere | R-CON-001 (every level) | `self_inconsistency` |
| `non_finite` | `nan`, `inf`, `Infinity`, `1e999`, `1e308 * 10`, `100 / 0`; JSON `NaN`, YAML `.inf` | R-SYN-011 (TDL), R-SYN-008 (JSON/YAML, actions files) | `numeric_error`, `format_leak` |
| `runtime` | `GetAnalogInput(1)`, a variable `Assign`ed from it, a `For` loop variable | R-CON-008 (every level) | `reverify_with_value` |
| `unsupported` | `A_Pose + B_Pose`, a comparison, an actions file's `{expression: ...}` | R-CON-008 (every level) | `insufficient_evidence` |
| `malformed` | `PosX(1, 2, 3)`, `PosX("a", ...)`, an unknown function | R-SYN-003/004/007/011 | `format_leak` |
| `no_coordinates` | a cell position with neither `pose` nor `joints` | R-KIN-000 (the execution level) | `insufficient_evidence` |

At STANDARD and FULL a motion the execution level could not simulate — its target is one of the above,
or beyond what the simulation follows (a coordinate beyond 100 m, a joint beyond ±720°) — is one more CRITICAL R-KIN-000
finding per motion (`insufficient_evidence`), as is a motion whose collision sweep could not be proven,
and a branch, loop or jump decided at run time before a motion (`If`/`Else`, `While`, `For`, `GoTo`,
`IfGoTo`, `Call`, `ThreadRun`): the simulation follows the text order only, so the ways the robot may
take across it were never checked. Write such a task as one straight-line plan per case.

`reverify_with_value` means: the plan must be verified again with the value in it. The planner does
that: it resubmits the plan with the value written as numbers (the feedback names the step and the
expression). The node does not re-verify at run time: it knows where the arm is (`/joint_states`), but
never the value a program reads while it runs, and a value nobody has checked never reaches the robot.
"""
