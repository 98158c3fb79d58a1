"""Service round-trip latency of the running node: p50/p99 for 100-step plans on the embedded backend.

Not a test: it prints figures for the README. It starts the node as its own
process (the parameter file and arguments of the launch file, the example weld
cell, audit log on), then calls ~/verify sequentially from this process and
reports the round trip (request sent -> response received, including the
audit-log fsync) next to the verifier's own time from the report.
Targets (issue 4): p50 < 5 ms, p99 < 20 ms for a 100-step plan.

    AMENT_PREFIX_PATH=.venv .venv/bin/python benchmarks/bench_ros_latency.py [--calls 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("ROS_DOMAIN_ID", str(1 + os.getpid() % 100))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)

import rclpy  # noqa: E402
from plan_verifier_interfaces.srv import VerifyPlan  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402

from bench_core import program  # noqa: E402
from plan_verifier.ros import qos  # noqa: E402
from plan_verifier.ros.launch_spec import ros_arguments  # noqa: E402
from plan_verifier.serving.stats import percentile  # noqa: E402

NAMESPACE = f"/bench_{os.getpid()}"
SERVICE = f"{NAMESPACE}/plan_verifier/verify"


def json_plan(steps: int) -> str:
    """A valid 100-step weld-cell plan: fetch the Welder, then weld seam 1 over and over."""
    fetch = [("move", "Tool_Weld_Safe_Position"), ("move", "Tool_Weld_Position"), ("attach", "Tool_Weld_Position"),
             ("move", "Tool_Weld_Safe_Position"), ("move", "Home")]
    cycle = [("move", "Safe_Pos_1"), ("move", "Pos_1"), ("weld", "Pos_1"), ("move", "Safe_Pos_1"), ("move", "Home")]
    plan = list(fetch)
    while len(plan) < steps:
        plan.extend(cycle)
    out = []
    for i, (kind, where) in enumerate(plan[:steps], 1):
        if kind == "move":
            out.append({"id": i, "name": f"Move to {where}", "action": "move", "target": where})
        elif kind == "attach":
            out.append({"id": i, "name": "Attach Welder", "action": "routine", "target": "tool_attach", "position": where, "tool": "Welder"})
        else:
            out.append({"id": i, "name": f"Tack weld at {where}", "action": "routine", "target": "tack_weld", "position": where})
    return json.dumps({"name": "bench", "steps": out})


def call(client, executor, plan: str) -> tuple[float, VerifyPlan.Response]:
    t0 = time.perf_counter()
    future = client.call_async(VerifyPlan.Request(plan=plan))
    executor.spin_until_future_complete(future, timeout_sec=30)
    elapsed = (time.perf_counter() - t0) * 1000.0
    if future.result() is None:
        raise RuntimeError("no answer within 30 s")
    return elapsed, future.result()


def in_process(plans: dict[str, tuple[str, bool]], work: Path, repeat: int = 200) -> None:
    """Where a request's time goes inside the node, without ROS: verify, approved YAML, audit record."""
    from plan_verifier.actions import approved_yaml
    from plan_verifier.graph.embedded import EmbeddedGraph
    from plan_verifier.pipeline import Verifier
    from plan_verifier.serving.audit import AuditLog

    verifier = Verifier("ur10e", graph=EmbeddedGraph.from_file("weld_cell"))
    audit = AuditLog(work / "inprocess")
    print(f"in-process breakdown (p50 ms over {repeat} runs)")
    print(f"{'plan':<42} {'verify':>8} {'yaml':>8} {'audit':>8}")
    for label, (plan, _) in plans.items():
        samples: dict[str, list[float]] = {"verify": [], "yaml": [], "audit": []}
        for _ in range(repeat):
            t0 = time.perf_counter()
            report = verifier.verify(plan)
            t1 = time.perf_counter()
            approved_yaml(report, correlation_id="bench", robot="ur10e", graph_fingerprint=report.cell.fingerprint)
            t2 = time.perf_counter()
            audit.append({"report": report.to_dict()})
            t3 = time.perf_counter()
            for key, a, b in (("verify", t0, t1), ("yaml", t1, t2), ("audit", t2, t3)):
                samples[key].append((b - a) * 1000.0)
        print(f"{label:<42} " + " ".join(f"{statistics.median(v):8.2f}" for v in samples.values()))
    audit.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="measured calls per plan (after 50 warm-up calls)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_ros_"))
    overrides = {"autostart": True, "audit_log_dir": str(work / "logs"), "actions_output_path": str(work / "actions.yaml")}
    cmd = [sys.executable, "-m", "plan_verifier.ros.node", *ros_arguments(str(ROOT / "config" / "verifier.yaml"), overrides=overrides, namespace=NAMESPACE)]
    node_log = open(work / "node.log", "wb")
    proc = subprocess.Popen(cmd, cwd=work, stdout=node_log, stderr=subprocess.STDOUT, start_new_session=True)
    rclpy.init()
    node = rclpy.create_node("bench_ros_latency")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    client = node.create_client(VerifyPlan, SERVICE, qos_profile=qos.CLIENT)
    try:
        if not client.wait_for_service(timeout_sec=30):
            print(f"the node did not come up; see {work / 'node.log'}", file=sys.stderr)
            return 2
        plans = {"TDL, 100 commands (approved)": (program(100), True), "JSON, 100 steps on weld_cell (approved)": (json_plan(100), True),
                 "TDL, 2 commands (approved; the floor)": ("GOAL Execute_Process() {\n    SPAWN Delay(0.5) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n", True)}
        print(f"node: {SERVICE} (embedded weld_cell, audit log fsync'ed per request); {args.calls} sequential calls per plan")
        print(f"{'plan':<42} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8} {'max ms':>8} {'verify p50 ms':>14}")
        for label, (plan, approved) in plans.items():
            for _ in range(50):
                _, response = call(client, executor, plan)
            if response.approved != approved or response.error_code:
                print(f"{label}: unexpected answer: {response.verdict} {response.feedback or response.error_msg}", file=sys.stderr)
                return 2
            rtts, verify_ms = [], []
            for _ in range(args.calls):
                elapsed, response = call(client, executor, plan)
                rtts.append(elapsed)
                verify_ms.append(json.loads(response.report_json)["timings_ms"]["total"])
            rtts.sort()
            print(f"{label:<42} {percentile(rtts, 50):8.2f} {percentile(rtts, 99):8.2f} {statistics.fmean(rtts):8.2f} {rtts[-1]:8.2f} "
                  f"{statistics.median(verify_ms):14.2f}")
        print()
        in_process(plans, work)
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, RMW Fast DDS (ROS 2 Kilted wheels)")
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        node_log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
