"""`plan-verify call PLAN`: verify a plan through the running node's ~/verify service.

What `ros2 service call` would be, with the output of `check`: the same
compiler-style text or JSON report, and the same exit status (0 approved,
1 rejected, 2 no answer). The attempt bookkeeping (correlation id, attempt n
of max, whether a retry is allowed) and, for a rejected plan, the feedback
text the node sends to planners go to standard error. rclpy is imported
only when this subcommand runs.
"""

from __future__ import annotations

import argparse
import json
import sys

from plan_verifier.cli.common import InputError, read_plan
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR, EXIT_REJECTED

DEFAULT_SERVICE = "/plan_verifier/verify"


def add_parser(sub) -> None:
    p = sub.add_parser("call", help="verify a plan through the ROS 2 node's ~/verify service",
                       description="Send a plan to the plan_verifier node's ~/verify service and print the report like `check`.")
    p.add_argument("plan", metavar="PLAN", help="plan file, or - for standard input")
    p.add_argument("--service", default=DEFAULT_SERVICE, help=f"the node's verify service (default {DEFAULT_SERVICE})")
    p.add_argument("--correlation-id", default="", metavar="ID", help="task id shared by the attempts of one task (default: the node makes one)")
    p.add_argument("--attempt", type=int, default=0, help="attempt number (default: counted by the node)")
    p.add_argument("--plan-format", choices=("auto", "tdl", "json"), default="auto")
    p.add_argument("--level", type=str.upper, choices=("BASIC", "STANDARD", "FULL"), default="", help="check level (default: the node's)")
    p.add_argument("--instruction", default="", metavar="TEXT", help="the natural-language instruction (semantic checks, level FULL)")
    p.add_argument("--start-position", default="", metavar="NAME", help="start position (default: the node's robot state, else the cell's)")
    p.add_argument("--start-tool", default="", metavar="NAME", help="start tool (default: the node's robot state, else the cell's)")
    p.add_argument("--format", choices=("text", "json"), default="text", dest="output_format")
    p.add_argument("--emit-yaml", metavar="PATH", help="write the approved YAML here (atomically) when the plan is approved")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="wait this long for the service and for the answer")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.ir import Plan
    from plan_verifier.output import render
    from plan_verifier.report import Report
    from plan_verifier.serving.requests import ErrorCode, VerifyRequest

    from plan_verifier.inputs import decode

    try:
        plan = read_plan(args.plan)
    except InputError as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    text, problems = decode(plan.data)  # the node reads the text again, as any request
    if text is None:
        print(f"plan-verify: error: {args.plan}: not UTF-8 text within 1 MiB ({problems[0].kind}; ROS strings must be UTF-8)", file=sys.stderr)
        return EXIT_ERROR
    try:
        from plan_verifier.ros.client import CallError, call_verify
    except ImportError as exc:
        print(f"plan-verify: error: `call` needs rclpy and plan_verifier_interfaces ({exc})", file=sys.stderr)
        return EXIT_ERROR
    request = VerifyRequest(plan=text, correlation_id=args.correlation_id, plan_format=args.plan_format, instruction=args.instruction,
                            level=args.level, attempt=args.attempt, start_position=args.start_position, start_tool=args.start_tool)
    try:
        response = call_verify(request, service=args.service, timeout=args.timeout)
    except CallError as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if response.error_code != ErrorCode.NONE:
        print(f"plan-verify: error: {ErrorCode(response.error_code).name}: {response.error_msg}", file=sys.stderr)
        return EXIT_ERROR
    data = {**json.loads(response.report_json), "path": plan.path}
    read_as = data["plan_format"]  # the node read it; the plan here only lets the report quote its lines
    report = Report.from_dict(data, plan=Plan(format="tdl" if read_as == "tdl" else "json", source=text, parsed=False,
                                               source_format="actions" if read_as == "actions" else None))
    if args.output_format == "json":
        sys.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render.text(report))
    retry = "retry allowed" if response.retry_allowed else "no retry"
    print(f"correlation_id {response.correlation_id}: attempt {response.attempt} of {response.max_attempts}, {retry}", file=sys.stderr)
    if not response.approved and response.feedback:
        print("feedback for the planner:\n" + "\n".join(f"  {line}" for line in response.feedback.splitlines()), file=sys.stderr)
    if response.approved and args.emit_yaml:
        from plan_verifier.actions import write_atomic

        write_atomic(args.emit_yaml, response.actions_yaml)
    return EXIT_APPROVED if response.approved else EXIT_REJECTED
