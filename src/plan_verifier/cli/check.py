"""`plan-verify check PLAN...`: verify plans like a linter (contract §1)."""

from __future__ import annotations

import argparse
import json
import sys

from plan_verifier.cli.common import InputError, add_graph_arguments, add_robot_arguments, read_plan
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR, EXIT_REJECTED


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="verify plans", description="Verify TDL programs and JSON/YAML step plans.")
    p.add_argument("plans", nargs="+", metavar="PLAN", help="plan files, or - for standard input")
    add_robot_arguments(p)
    add_graph_arguments(p)
    p.add_argument("--plan-format", choices=("auto", "tdl", "json"), default="auto")
    p.add_argument("--instruction", metavar="TEXT", help="the natural-language instruction (semantic checks, level FULL)")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text", dest="output_format")
    p.set_defaults(func=run)


def open_graph(args: argparse.Namespace):
    """The graph port the flags ask for, or None."""
    if args.cell:
        from plan_verifier.graph.embedded import EmbeddedGraph

        return EmbeddedGraph.from_file(args.cell)
    return None


def run(args: argparse.Namespace) -> int:
    from plan_verifier.output import render
    from plan_verifier.pipeline import Verifier

    graph = open_graph(args)
    try:
        verifier = Verifier(args.robot, graph=graph, profile=args.profile, level=args.level)
        reports = []
        status = EXIT_APPROVED
        for path in args.plans:
            try:
                plan = read_plan(path)
            except InputError as exc:
                print(f"plan-verify: error: {exc}", file=sys.stderr)
                status = EXIT_ERROR
                continue
            if graph is None and _is_json_plan(plan.data, args.plan_format):
                print(f"plan-verify: error: {plan.path}: a JSON plan needs a cell graph (--cell)", file=sys.stderr)
                status = EXIT_ERROR
                continue
            report = verifier.verify(plan.data, plan_format=args.plan_format, instruction=args.instruction,
                                     start_position=args.start_position, start_tool=args.start_tool, path=plan.path)
            reports.append(report)
            if not report.approved and status != EXIT_ERROR:
                status = EXIT_REJECTED
        out = sys.stdout
        if args.output_format == "json":
            if len(reports) == 1 and len(args.plans) == 1:
                out.write(json.dumps(reports[0].to_dict(), ensure_ascii=False, indent=2) + "\n")
            else:
                for report in reports:
                    out.write(json.dumps(report.to_dict(), ensure_ascii=False) + "\n")
        elif args.output_format == "sarif":
            out.write(json.dumps(render.sarif(reports), ensure_ascii=False, indent=2) + "\n")
        else:
            for report in reports:
                out.write(render.text(report))
        return status
    finally:
        if graph is not None:
            graph.close()


def _is_json_plan(data: bytes, requested: str) -> bool:
    from plan_verifier.inputs import decode, detect_format

    text, _ = decode(data)
    return text is not None and detect_format(text, requested) == "json"
