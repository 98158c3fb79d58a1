"""`plan-verify repair PLAN`: propose a repaired JSON/YAML plan from the cell graph.

The repaired plan is printed as JSON with a `repair` block (`verified: false`,
the changes made, what could not be repaired). It is a proposal: it goes back
through review and `plan-verify check` like any plan. Exit status: 0 when the
proposal passes the graph checks, 1 when problems remain, 2 on errors.
"""

from __future__ import annotations

import argparse
import json
import sys

from plan_verifier.cli.common import InputError, add_graph_arguments, add_robot_arguments, open_graph_from, read_plan
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR, EXIT_REJECTED


def add_parser(sub) -> None:
    p = sub.add_parser("repair", help="print a repaired JSON plan (unverified)",
                       description="Insert missing waypoints and tool-change detours into a JSON/YAML step plan, using the cell graph.")
    p.add_argument("plan", metavar="PLAN", help="a JSON/YAML step plan, or - for standard input")
    add_robot_arguments(p)
    add_graph_arguments(p)
    p.add_argument("-o", "--output", metavar="PATH", help="write the repaired plan to PATH instead of standard output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.actions import write_atomic
    from plan_verifier.findings import Category
    from plan_verifier.graph.repair import repair_plan
    from plan_verifier.graph.simulate import SimState
    from plan_verifier.inputs import read_plan_text
    from plan_verifier.pipeline import Verifier

    try:
        plan_text = read_plan_text(read_plan(args.plan).data)
    except InputError as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if plan_text.text is not None and plan_text.steps_format == "tdl":
        print(f"plan-verify: error: {args.plan}: repair works on JSON/YAML step plans; a TDL program's findings carry the repair hints",
              file=sys.stderr)
        return EXIT_ERROR
    graph = open_graph_from(args)
    if graph is None:
        print("plan-verify: error: repair needs a cell graph (--cell or --graph-uri)", file=sys.stderr)
        return EXIT_ERROR
    try:
        verifier = Verifier(args.robot, graph=graph, profile=args.profile, level=args.level)
        report = verifier.verify(plan_text, start_position=args.start_position, start_tool=args.start_tool, path=args.plan)
        plan, cell = report.plan, report.cell
        if cell is None:
            unavailable = report.could_not_run(Category.GRAPH)
            print(f"plan-verify: error: {unavailable.message if unavailable else 'no graph'}", file=sys.stderr)
            return EXIT_ERROR
        if plan is None or not plan.parsed:
            problems = "; ".join(f.message for f in report.findings if f.category is Category.SYNTAX)
            print(f"plan-verify: error: {args.plan} is not a readable step plan: {problems}", file=sys.stderr)
            return EXIT_ERROR
        start = verifier.start_state(cell, args.start_position, args.start_tool)
        fixed = repair_plan(plan, cell, SimState(start.position, start.tool))
        document = {k: v for k, v in (("name", plan.name), ("description", plan.description)) if v is not None}
        document["steps"] = list(fixed.steps)
        document["repair"] = {"verified": False, "source": args.plan, "changes": list(fixed.changes), "unresolved": list(fixed.unresolved)}
        text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        recheck = verifier.verify(text, plan_format="json", start_position=args.start_position, start_tool=args.start_tool)
    finally:
        graph.close()
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    remaining = [f for f in recheck.findings if f.category is Category.GRAPH]
    print(f"plan-verify: {len(fixed.changes)} changes, {len(fixed.unresolved)} unresolved; the repaired plan is unverified until checked "
          f"and approved again (a graph check now gives {len(remaining)} findings)", file=sys.stderr)
    return EXIT_APPROVED if not remaining else EXIT_REJECTED
