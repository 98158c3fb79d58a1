"""A one-shot client of the node's ~/verify service (what `plan-verify call` uses)."""

from __future__ import annotations

import os
import time

import rclpy
from rclpy.executors import SingleThreadedExecutor
from plan_verifier_interfaces.srv import VerifyPlan

from plan_verifier.ros import qos
from plan_verifier.serving.requests import VerifyRequest


class CallError(Exception):
    """The service could not be reached or did not answer in time."""


def call_verify(request: VerifyRequest, *, service: str, timeout: float) -> VerifyPlan.Response:
    """Send one request and wait for its answer; CallError when there is none within `timeout` seconds."""
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node(f"plan_verify_call_{os.getpid()}", context=context)
        client = node.create_client(VerifyPlan, service, qos_profile=qos.CLIENT)
        deadline = time.monotonic() + timeout
        if not qos.wait_until_ready(client, timeout):
            raise CallError(f"service {service} is not available (is the node running and configured?)")
        msg = VerifyPlan.Request(
            correlation_id=request.correlation_id, plan=request.plan, plan_format=request.plan_format,
            instruction=request.instruction, level=request.level, attempt=request.attempt,
            start_position=request.start_position, start_tool=request.start_tool,
        )
        future = client.call_async(msg)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        executor.spin_until_future_complete(future, timeout_sec=max(0.0, deadline - time.monotonic()))
        if not future.done():
            raise CallError(f"no answer from {service} within {timeout:g} s")
        return future.result()
    finally:
        rclpy.try_shutdown(context=context)
