"""`plan-verify check PLAN...`: verify plans like a linter (contract §1)."""

from __future__ import annotations

import argparse
import json
import sys

from plan_verifier.cli.common import InputError, add_graph_arguments, add_robot_arguments, add_start_joints_argument, open_graph_from, read_plan
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR, EXIT_REJECTED
from plan_verifier.cli.semantic_args import add_semantic_arguments, semantic_options


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="verify plans", description="Verify TDL programs and JSON/YAML step plans.")
    p.add_argument("plans", nargs="+", metavar="PLAN", help="plan files, or - for standard input")
    add_robot_arguments(p)
    add_graph_arguments(p)
    p.add_argument("--plan-format", choices=("auto", "tdl", "json"), default="auto")
    p.add_argument("--instruction", metavar="TEXT", help="the natural-language instruction (semantic checks, level FULL)")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text", dest="output_format")
    add_start_joints_argument(p)
    p.add_argument("--repair", action="store_true",
                   help="with --format json: add a `repair` object (contract §8: the smallest change the verifier approves, or why "
                        "none) to each rejected plan's report")
    p.add_argument("--emit-yaml", metavar="PATH", help="write the approved YAML (contract §6) to PATH, atomically; only for one plan, only if approved")
    add_semantic_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.inputs import read_plan_text
    from plan_verifier.output import render
    from plan_verifier.pipeline import Verifier

    if args.emit_yaml and len(args.plans) != 1:
        print("plan-verify: error: --emit-yaml needs exactly one plan", file=sys.stderr)
        return EXIT_ERROR
    graph = open_graph_from(args)
    try:
        verifier = Verifier(args.robot, graph=graph, profile=args.profile, level=args.level, options=semantic_options(args))
        reports = []
        repairs: dict[int, dict] = {}
        status = EXIT_APPROVED
        for path in args.plans:
            try:
                plan = read_plan(path)
            except InputError as exc:
                print(f"plan-verify: error: {exc}", file=sys.stderr)
                status = EXIT_ERROR
                continue
            plan_text = read_plan_text(plan.data, args.plan_format)  # decoded, detected and parsed once, here
            if graph is None and plan_text.steps_format == "json":
                print(f"plan-verify: error: {plan.path}: a JSON plan needs a cell graph (--cell or --graph-uri)", file=sys.stderr)
                status = EXIT_ERROR
                continue
            report = verifier.verify(plan_text, plan_format=args.plan_format, instruction=args.instruction,
                                     start_position=args.start_position, start_tool=args.start_tool, path=plan.path,
                                     start_joints=args.start_joints)
            reports.append(report)
            if args.repair and not report.approved and args.output_format == "json" and plan_text.text is not None:
                repairs[id(report)] = _repair(verifier, args, plan, plan_text)
            if not report.approved and status != EXIT_ERROR:
                status = EXIT_REJECTED
            if args.emit_yaml and not _emit_yaml(report, args.emit_yaml, verifier.robot.name):
                status = EXIT_ERROR
        out = sys.stdout
        if args.output_format == "json":
            documents = [{**r.to_dict(), **({"repair": repairs[id(r)]} if id(r) in repairs else {})} for r in reports]
            if len(reports) == 1 and len(args.plans) == 1:
                out.write(json.dumps(documents[0], ensure_ascii=False, indent=2) + "\n")
            else:
                for document in documents:
                    out.write(json.dumps(document, ensure_ascii=False) + "\n")
        elif args.output_format == "sarif":
            out.write(json.dumps(render.sarif(reports), ensure_ascii=False, indent=2) + "\n")
        else:
            for report in reports:
                out.write(render.text(report))
        return status
    finally:
        if graph is not None:
            graph.close()


def _repair(verifier, args: argparse.Namespace, plan, plan_text) -> dict:
    """The repair object of a rejected plan (contract §8), from the same verifier and inputs as its check."""
    from plan_verifier.repair import Verification, repair_plan

    verification = Verification(verifier, level=args.level, instruction=args.instruction, start_position=args.start_position,
                                start_tool=args.start_tool, start_joints=args.start_joints, path=plan.path)
    return repair_plan(plan_text.text, verification, args.plan_format).to_dict()


def _emit_yaml(report, path: str, robot: str) -> bool:
    """Write the approved YAML; a rejected plan writes nothing. False when the file cannot be written."""
    import uuid

    from plan_verifier.actions import approved_yaml, write_atomic

    if not report.approved:
        print(f"plan-verify: {path} not written: the plan was rejected", file=sys.stderr)
        return True
    text, _ = approved_yaml(report, correlation_id=str(uuid.uuid4()), robot=robot,
                            graph_fingerprint=report.cell.fingerprint if report.cell is not None else None)
    try:
        write_atomic(path, text)
    except OSError as exc:
        print(f"plan-verify: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True
