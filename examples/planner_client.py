#!/usr/bin/env python3
"""A planner's side of the verification loop: send a plan, read the feedback, repair, try again.

The node owns the budget (seed 003: three attempts per task). A planner keeps
one correlation id per task, sends each attempt to ~/verify, and stops when the
answer is approved or `retry_allowed` is false; in the latter case the node has
already published the task on ~/fallback for the fallback handler (an operator,
a safe stop). Between attempts the planner repairs its plan from
`response.feedback` (seed 003's per-step lines with repair hints) and
`response.findings` (rule id, line or step, evidence, suggestion).

Here the "planner" is a stand-in that proposes the given plan files in order;
an LLM planner would put the feedback into its next prompt instead.

    python examples/planner_client.py examples/weld_seam_5_illegal_edge.json examples/weld_seam_5_repaired.json
    python examples/planner_client.py --service /robot1/plan_verifier/verify examples/pick_and_place_unsafe.tdl

Exit status: 0 when a plan was approved, 1 when the task went to the fallback, 2 on errors.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path
from typing import Callable

import rclpy
from plan_verifier_interfaces.srv import VerifyPlan
from rclpy.node import Node

from plan_verifier.ros import qos

#: Proposes the plan text for an attempt (1-based), given the feedback on the previous one.
Planner = Callable[[int, str], str]


class PlannerClient(Node):
    def __init__(self, service: str) -> None:
        super().__init__("example_planner")
        # A deep response history: with many planners on one verifier, the default (10) can lose
        # this client's answer among the others' (see plan_verifier.ros.qos).
        self._client = self.create_client(VerifyPlan, service, qos_profile=qos.CLIENT)
        self._service = service
        self._ready = False

    def verify(self, plan: str, correlation_id: str, timeout: float = 30.0) -> VerifyPlan.Response:
        # The first call also waits for the server to match this client's response reader.
        ready = self._ready or qos.wait_until_ready(self._client, timeout)
        if not ready:
            raise RuntimeError(f"{self._service} is not available; is the verifier node running and active?")
        self._ready = True
        future = self._client.call_async(VerifyPlan.Request(correlation_id=correlation_id, plan=plan))
        rclpy.spin_until_future_complete(self, future, timeout_sec=timeout)
        if future.result() is None:
            raise RuntimeError(f"no answer from {self._service} within {timeout} s")
        return future.result()


def repair_loop(client: PlannerClient, planner: Planner) -> VerifyPlan.Response:
    """Attempt, repair, attempt again, until approved or the node says no retry is allowed."""
    correlation_id = f"task-{uuid.uuid4().hex[:12]}"  # one id for every attempt of this task
    feedback = ""
    attempt = 1
    while True:
        response = client.verify(planner(attempt, feedback), correlation_id)
        if response.error_code != VerifyPlan.Response.ERROR_NONE:
            raise RuntimeError(f"the verifier could not verify the plan (error {response.error_code}): {response.error_msg}")
        print(f"attempt {response.attempt}/{response.max_attempts}: {response.verdict} (score {response.score:g})")
        if response.approved:
            print(f"approved; the executor receives it on ~/approved_actions (sha256 {response.sha256[:12]}…)")
            return response
        for finding in response.findings:
            where = ", ".join(part for part in (f"line {finding.line}" if finding.line else "", f"step {finding.step}" if finding.step else "") if part)
            print(f"  {finding.rule_id} at {where}: {finding.message}" + (f" -> {finding.suggestion}" if finding.suggestion else ""))
        if not response.retry_allowed:
            print(f"no retry allowed: task {correlation_id} was handed to the fallback (~/fallback)")
            return response
        feedback = response.feedback
        attempt = response.attempt + 1


def scripted_planner(paths: list[Path]) -> Planner:
    """Proposes the files in order (the last one again when they run out); ignores the feedback."""

    def propose(attempt: int, feedback: str) -> str:
        if feedback:
            print("  feedback for the repair:\n" + "\n".join(f"    {line}" for line in feedback.splitlines()))
        return paths[min(attempt, len(paths)) - 1].read_text(encoding="utf-8")

    return propose


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("plans", nargs="+", type=Path, help="plan files proposed for attempts 1, 2, 3")
    parser.add_argument("--service", default="/plan_verifier/verify")
    args = parser.parse_args()
    rclpy.init()
    client = PlannerClient(args.service)
    try:
        response = repair_loop(client, scripted_planner(args.plans))
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        client.destroy_node()
        rclpy.try_shutdown()
    return 0 if response.approved else 1


if __name__ == "__main__":
    sys.exit(main())
