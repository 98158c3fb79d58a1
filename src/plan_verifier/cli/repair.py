"""`plan-verify repair PLAN`: the plan back with the smallest change the verifier itself approves (contract §8).

TDL programs, JSON/YAML step plans and approved-actions files; the same robot, cell,
start and level options as `check`. The repaired plan (in the input's own format)
goes to `-o OUT`, else to standard output; `--format json` prints the repair report
(`verified`, `edits`, `unrepaired`, the repaired plan's `report`, and the `plan` text)
instead. Exit status: 0 when the repaired (or unchanged) plan is approved by the
whole pipeline, 1 when something could not be repaired, 2 when the tool could not do
its job.
"""

from __future__ import annotations

import argparse
import json
import sys

from plan_verifier.cli.common import InputError, add_graph_arguments, add_robot_arguments, add_start_joints_argument, open_graph_from, read_plan
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR, EXIT_REJECTED
from plan_verifier.cli.semantic_args import add_semantic_arguments, semantic_options


def add_parser(sub) -> None:
    p = sub.add_parser("repair", help="repair a rejected plan with the smallest change the verifier approves",
                       description="Repair a TDL program, JSON/YAML step plan or approved-actions file: motion types, joint-space "
                                   "via points from a motion planner, IK branches and speeds change; targets, gripper/IO events, "
                                   "routines and tool changes never do. Every candidate is verified by the whole pipeline.")
    p.add_argument("plan", metavar="PLAN", help="a plan file, or - for standard input")
    add_robot_arguments(p)
    add_graph_arguments(p)
    add_start_joints_argument(p)
    p.add_argument("--plan-format", choices=("auto", "tdl", "json"), default="auto")
    p.add_argument("--instruction", metavar="TEXT", help="the natural-language instruction (level FULL: the semantic verdict must not change)")
    p.add_argument("-o", "--output", metavar="OUT", help="write the repaired plan to OUT (atomically) instead of standard output")
    p.add_argument("--format", choices=("text", "json"), default="text", dest="output_format",
                   help="text: the repaired plan, with the edits and what stays unrepaired on standard error; json: the repair report")
    add_semantic_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.actions import write_atomic
    from plan_verifier.findings import Category
    from plan_verifier.inputs import read_plan_text
    from plan_verifier.pipeline import Verifier
    from plan_verifier.repair import Verification, repair_plan

    try:
        plan = read_plan(args.plan)
    except InputError as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    plan_text = read_plan_text(plan.data, args.plan_format)
    if plan_text.text is None:
        print(f"plan-verify: error: {plan.path}: not a readable text plan", file=sys.stderr)
        return EXIT_ERROR
    graph = open_graph_from(args)
    if graph is None and plan_text.steps_format == "json":
        print(f"plan-verify: error: {plan.path}: a JSON plan needs a cell graph (--cell or --graph-uri)", file=sys.stderr)
        return EXIT_ERROR
    try:
        verifier = Verifier(args.robot, graph=graph, profile=args.profile, level=args.level, options=semantic_options(args))
        verification = Verification(verifier, level=args.level, instruction=args.instruction, start_position=args.start_position,
                                    start_tool=args.start_tool, start_joints=args.start_joints, path=plan.path)
        result = repair_plan(plan_text.text, verification, args.plan_format)
    finally:
        if graph is not None:
            graph.close()
    if graph is not None and result.report.cell is None:
        unavailable = result.report.could_not_run(Category.GRAPH)
        print(f"plan-verify: error: {unavailable.message if unavailable else 'the cell graph could not be read'}", file=sys.stderr)
        return EXIT_ERROR
    if args.output:
        try:
            write_atomic(args.output, result.text)
        except OSError as exc:
            print(f"plan-verify: error: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_ERROR
    if args.output_format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        if not args.output:
            sys.stdout.write(result.text if result.text.endswith("\n") else result.text + "\n")
        sys.stderr.write(summary(result, plan.path))
    return EXIT_APPROVED if result.verified else EXIT_REJECTED


def summary(result, path: str) -> str:
    """Compiler-style lines: each edit, each finding that stays, then the verdict."""
    name = "<stdin>" if path == "-" else path
    lines = []
    for edit in result.edits:
        where = f"{name}:{edit.line}" if edit.line else name
        change = edit.after if edit.before is None else f"{edit.before.strip()}  ->  {edit.after.strip()}"
        verb = "insert" if edit.before is None else "change"
        lines.append(f"{where}: {verb} ({', '.join(edit.fixes) or 'repair'}): {change.strip()}")
        if edit.why:
            lines.append(f"    why: {edit.why}")
    for item in result.unrepaired:
        where = f"{name}:{item.line}" if item.line else name
        lines.append(f"{where}: not repaired {item.rule_id}: {item.why}")
        if item.alternative:
            lines.append(f"    nearest alternative: {item.alternative}")
    if result.verified:
        verdict = "nothing to repair: the plan is approved" if not result.edits else \
            f"{len(result.edits)} edit(s); the repaired plan is approved ({result.report.verdict}) by the whole pipeline"
    else:
        verdict = f"{len(result.unrepaired)} finding(s) could not be repaired; the plan is still rejected"
    lines.append(f"plan-verify: {verdict} ({result.candidates} candidate(s) verified in {result.seconds:.2f} s)")
    return "\n".join(lines) + "\n"
