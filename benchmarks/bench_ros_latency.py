"""Service round-trip latency of the running node against a trivial service on the same machine, 1 and 4 clients.

Not a test: it prints figures for the README. It starts the node as its own
process (the parameter file and arguments of the launch file, the example weld
cell, audit log fsync'ed per request, approved YAML written atomically, the
default verification workers) and, as the floor, a trivial server of the same
`VerifyPlan` type that answers every request at once with an empty response
(same messages, same transport, nothing done). Client processes call each
sequentially, alone and four at once, with the QoS of `plan_verifier.ros.qos`
and `wait_until_ready`; the table gives the round trips (request sent ->
response received) and the ratio of the node's p50 to the floor's.

It also reports the first request after configure: its round trip and the
node's own latency from the audit log, against the median of the next ones
(issue 18: no slow first call).
Targets (issue 4): p50 < 5 ms, p99 < 20 ms for a 100-step plan.

    AMENT_PREFIX_PATH=.venv .venv/bin/python benchmarks/bench_ros_latency.py [--calls 300]
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

NAMESPACE = f"/bench_{os.getpid()}"
SERVICE = f"{NAMESPACE}/plan_verifier/verify"
TRIVIAL = f"{NAMESPACE}/trivial/verify"
TDL_FLOOR = "GOAL Execute_Process() {\n    SPAWN Delay(0.5) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n"


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


# ----------------------------------------------------------------------------- the processes


def serve_trivial(namespace: str) -> None:
    """The floor: a VerifyPlan server that answers every request at once (its own process, like the node)."""
    import rclpy
    from plan_verifier_interfaces.srv import VerifyPlan
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor

    from plan_verifier.ros import qos

    rclpy.init()
    node = rclpy.create_node("trivial", namespace=namespace)
    node.create_service(VerifyPlan, "~/verify", lambda request, response: response, qos_profile=qos.requests(100))
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        rclpy.try_shutdown()


def run_client(service: str, plans_file: str, calls: int, start_at: float) -> None:
    """One planner: `calls` sequential requests (the plans of a JSON list in turn), started together with the other clients;
    prints the round trips (ms) as JSON."""
    import rclpy
    from plan_verifier_interfaces.srv import VerifyPlan
    from rclpy.executors import SingleThreadedExecutor

    from plan_verifier.ros import qos

    plans = json.loads(Path(plans_file).read_text(encoding="utf-8"))
    rclpy.init()
    node = rclpy.create_node(f"bench_client_{os.getpid()}")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    client = node.create_client(VerifyPlan, service, qos_profile=qos.CLIENT)
    if not qos.wait_until_ready(client, 60):
        raise SystemExit(f"{service} is not available")
    time.sleep(max(0.0, start_at - time.time()))
    rtts, errors = [], 0
    for i in range(calls):
        t0 = time.perf_counter()
        future = client.call_async(VerifyPlan.Request(plan=plans[i % len(plans)]))
        executor.spin_until_future_complete(future, timeout_sec=60)
        rtts.append((time.perf_counter() - t0) * 1000.0)
        if future.result() is None or future.result().error_code:
            errors += 1
    print(json.dumps({"rtts": rtts, "errors": errors}))
    rclpy.try_shutdown()


def percentile(values: list[float], q: float) -> float:
    from plan_verifier.serving.stats import percentile as nearest_rank

    return nearest_rank(sorted(values), q)


def clients(service: str, plan_file: Path, calls: int, count: int) -> tuple[list[float], int]:
    """`count` client processes, each `calls` requests with the plans of `plan_file` (a JSON list)."""
    start_at = time.time() + 8.0  # every client has discovered the service and settled by then
    procs = [subprocess.Popen([sys.executable, __file__, "--client", service, str(plan_file), str(calls), str(start_at)],
                              stdout=subprocess.PIPE, text=True) for _ in range(count)]
    rtts, errors = [], 0
    for proc in procs:
        out, _ = proc.communicate(timeout=3600)
        result = json.loads(out.strip().splitlines()[-1])
        rtts += result["rtts"]
        errors += result["errors"]
    return rtts, errors


def first_call(work: Path) -> None:
    """The first request a freshly configured node answers, against the next ones (round trip and the node's own latency).

    Every request is another variant of the pick-and-place example (its poses shifted by a few
    millimetres), so none of them profits from what the verifier remembers of an earlier plan's
    motions: the difference between the first and the others is what the process had not yet
    loaded or built.
    """
    from plan_verifier.ros.launch_spec import ros_arguments
    from plan_verifier.serving.audit import read_records

    text = (ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8")
    plan = work / "first_plans.json"
    plan.write_text(json.dumps([text.replace("450, ", f"{450 + i}, ") for i in range(20)]), encoding="utf-8")
    node_work = work / "first"
    node_work.mkdir()
    ns = f"{NAMESPACE}_first"
    cmd = [sys.executable, "-m", "plan_verifier.ros.node",
           *ros_arguments(str(ROOT / "config" / "verifier.yaml"), overrides={"autostart": True}, namespace=ns)]
    proc = subprocess.Popen(cmd, cwd=node_work, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        rtts, _ = clients(f"{ns}/plan_verifier/verify", plan, 20, 1)
        logged = [r["latency_ms"] for path in (node_work / "logs" / "verification").glob("*.jsonl") for r in read_records(path)]
        print(f"first request after configure (pick_and_place.tdl variants): round trip {rtts[0]:.1f} ms, node {logged[0]:.1f} ms; "
              f"median of the next 19: round trip {statistics.median(rtts[1:]):.1f} ms, node {statistics.median(logged[1:]):.1f} ms")
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="measured calls per client (after 20 warm-up calls)")
    args = parser.parse_args()
    from bench_core import program
    from plan_verifier.ros.launch_spec import ros_arguments

    work = Path(tempfile.mkdtemp(prefix="bench_ros_"))
    overrides = {"autostart": True, "audit_log_dir": str(work / "logs"), "actions_output_path": str(work / "actions.yaml")}
    cmd = [sys.executable, "-m", "plan_verifier.ros.node", *ros_arguments(str(ROOT / "config" / "verifier.yaml"), overrides=overrides,
                                                                       namespace=NAMESPACE)]
    node = subprocess.Popen(cmd, cwd=work, stdout=open(work / "node.log", "wb"), stderr=subprocess.STDOUT, start_new_session=True)
    trivial = subprocess.Popen([sys.executable, __file__, "--trivial", NAMESPACE], start_new_session=True)
    plans = {"TDL, 2 commands (the node's floor)": TDL_FLOOR, "JSON, 100 steps on weld_cell": json_plan(100),
             "TDL, 100 commands": program(100)}
    try:
        print(f"node: {SERVICE} (embedded weld_cell, audit log fsync'ed per request, 2 verification workers); floor: {TRIVIAL} "
              f"(same service type, empty answer); {args.calls} sequential calls per client after 20 warm-up calls")
        print(f"{'plan':<36} {'clients':>7} {'node p50':>9} {'p99':>8} {'floor p50':>10} {'p99':>7} {'ratio p50':>10}")
        for label, text in plans.items():
            plan_file = work / f"plan_{abs(hash(label))}.json"
            plan_file.write_text(json.dumps([text]), encoding="utf-8")
            for count in (1, 4):
                floor, _ = clients(TRIVIAL, plan_file, args.calls + 20, count)
                rtts, errors = clients(SERVICE, plan_file, args.calls + 20, count)
                if errors:
                    print(f"{label}: {errors} answers with an error; see {work / 'node.log'}", file=sys.stderr)
                    return 2
                floor = [v for i, v in enumerate(floor) if i % (args.calls + 20) >= 20]
                rtts = [v for i, v in enumerate(rtts) if i % (args.calls + 20) >= 20]
                print(f"{label:<36} {count:>7} {percentile(rtts, 50):9.2f} {percentile(rtts, 99):8.2f} {percentile(floor, 50):10.2f} "
                      f"{percentile(floor, 99):7.2f} {percentile(rtts, 50) / percentile(floor, 50):10.1f}")
        print()
        first_call(work)
        print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}, "
              "RMW Fast DDS (ROS 2 Kilted wheels)")
    finally:
        stop(node)
        stop(trivial)
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--trivial":
        serve_trivial(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == "--client":
        run_client(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    else:
        sys.exit(main())
