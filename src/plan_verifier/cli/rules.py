"""`plan-verify rules`: the rule catalogue, straight from the registry."""

from __future__ import annotations

import argparse
import json


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
        print("| id | severity | category | what |\n|---|---|---|---|")
        for r in entries:
            e = _entry(r)
            print(f"| {e['id']} | {e['severity']} | {e['category']} | {e['summary']} |")
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
        "summary": rule.summary(),
    }
