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
            cells = [f"[{e['id']}]({link})", f"`{e['name']}`", e["severity"], e["category"], ", ".join(e["formats"]),
                     f"`{e['reason_code']}`", e["summary"]]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"
