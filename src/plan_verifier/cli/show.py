"""`plan-verify show PLAN --png out.png`: the execution level's run as a picture (top, front and side views)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from plan_verifier.cli.common import InputError, add_graph_arguments, add_start_joints_argument, open_graph_from, read_plan
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR


def add_parser(sub) -> None:
    p = sub.add_parser("show", help="draw a plan's simulated run into a PNG",
                       description="Verify the plan (level STANDARD) and draw the cell's floor and collision objects, the TCP "
                                   "path of every motion (failing steps in red) and the robot at the worst instant: the deepest "
                                   "contact, else where a path breaks off, meets a singularity or overspeeds a joint, else the "
                                   "closest approach, else the end.")
    p.add_argument("plan", metavar="PLAN", help="a plan file, or - for standard input")
    p.add_argument("--png", metavar="PATH", required=True, help="the image to write")
    p.add_argument("--robot", default="ur10e", metavar="NAME|PATH", help="robot spec: a shipped name (default ur10e) or a YAML file")
    p.add_argument("--profile", choices=("default", "strict"), default="default", help="strict: require DEFINE, approve only PASS")
    add_graph_arguments(p)
    p.add_argument("--plan-format", choices=("auto", "tdl", "json"), default="auto")
    add_start_joints_argument(p)
    p.add_argument("--repair", action="store_true",
                   help="repair the plan first (plan-verify repair) and draw the repaired run, with the original failing "
                        "motions dashed under it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.findings import Category
    from plan_verifier.inputs import read_plan_text
    from plan_verifier.kinematics.arm import arm_for
    from plan_verifier.motion.draw import picture, render_png
    from plan_verifier.pipeline import Verifier

    try:
        plan = read_plan(args.plan)
    except InputError as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    graph = open_graph_from(args)
    try:
        plan_text = read_plan_text(plan.data, args.plan_format)
        if graph is None and plan_text.steps_format == "json":
            print(f"plan-verify: error: {plan.path}: a JSON plan needs a cell graph (--cell or --graph-uri)", file=sys.stderr)
            return EXIT_ERROR
        verifier = Verifier(args.robot, graph=graph, profile=args.profile, level="STANDARD")
        report = verifier.verify(plan_text, plan_format=args.plan_format, start_position=args.start_position,
                                 start_tool=args.start_tool, start_joints=args.start_joints, path=plan.path)
        before = None
        if args.repair and not report.approved and plan_text.text is not None:
            from plan_verifier.repair import Verification, repair_plan

            repaired = repair_plan(plan_text.text, Verification(verifier, level="STANDARD", start_position=args.start_position,
                                                                start_tool=args.start_tool, start_joints=args.start_joints,
                                                                path=plan.path), args.plan_format)
            if repaired.edits and repaired.report.motion is not None and report.motion is not None:
                before, report = (report.motion, report.findings), repaired.report
    finally:
        if graph is not None:
            graph.close()
    if graph is not None and report.cell is None:  # a picture without the cell would hide what the plan runs into
        unavailable = report.could_not_run(Category.GRAPH)
        print(f"plan-verify: error: {unavailable.message if unavailable else 'the cell graph could not be read'}", file=sys.stderr)
        return EXIT_ERROR
    execution = report.motion
    if execution is None or execution.unavailable is not None:
        why = execution.unavailable if execution is not None else "the plan could not be read or simulated"
        print(f"plan-verify: error: nothing to draw: {why} ({report.verdict}, {len(report.findings)} findings)", file=sys.stderr)
        return EXIT_ERROR
    name = "standard input" if plan.path == "-" else Path(plan.path).name
    title = f"{name}{' repaired' if before else ''} on {verifier.robot.name}" + \
        (f" in {report.cell.name}" if report.cell is not None else "") + f": {report.verdict}, {len(report.findings)} finding(s)"
    view = picture(execution, arm_for(verifier.robot), report.cell, report.findings, title=title, before=before)
    try:
        render_png(view, args.png)
    except OSError as exc:
        print(f"plan-verify: error: cannot write {args.png}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    shown = f"; robot shown at step {execution.motions[view.instant.motion].motion.step}: {view.instant.what}" if view.instant else ""
    print(f"wrote {args.png}: {report.verdict}, {len(view.paths)} simulated motions{shown}")
    return EXIT_APPROVED
