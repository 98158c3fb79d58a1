"""One load-test client process: COUNT requests to the verify service, one JSON line per answer.

Usage: python load_client.py SERVICE CLIENT_INDEX COUNT PLANS_JSON
PLANS_JSON is a list of {"plan": text, "approved": bool}; request i uses plan
(i + CLIENT_INDEX) % len(plans) and correlation id "c<CLIENT_INDEX>-<i>".
"""

from __future__ import annotations

import json
import sys
import time

import rclpy
from plan_verifier_interfaces.srv import VerifyPlan

from plan_verifier.ros import qos


def main() -> int:
    service, index, count, plans_file = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with open(plans_file, encoding="utf-8") as handle:
        plans = json.load(handle)
    rclpy.init()
    node = rclpy.create_node(f"load_client_{index}")
    client = node.create_client(VerifyPlan, service, qos_profile=qos.CLIENT)
    if not qos.wait_until_ready(client, 60):
        print(json.dumps({"error": "service not available"}), flush=True)
        return 2
    for i in range(count):
        plan = plans[(i + index) % len(plans)]
        cid = f"c{index}-{i}"
        t0 = time.perf_counter()
        future = client.call_async(VerifyPlan.Request(correlation_id=cid, plan=plan["plan"]))
        rclpy.spin_until_future_complete(node, future, timeout_sec=120)
        response = future.result()
        if response is None:
            print(json.dumps({"cid": cid, "error": "no answer"}), flush=True)
            return 1
        print(json.dumps({"cid": cid, "expected": plan["approved"], "approved": response.approved, "error_code": response.error_code,
                          "answer_cid": response.correlation_id, "verdict": response.verdict,
                          "rtt_ms": round((time.perf_counter() - t0) * 1000, 3)}), flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
