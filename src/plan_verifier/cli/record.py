"""`plan-verify record OUT_BAG`: record the verifier node's traffic into a rosbag2 bag (rclpy + rosbags).

For machines without `ros2 bag`: subscribes to the node's inputs and outputs
(~/plan_requests, ~/feedback, ~/fallback, ~/approved_actions,
~/verify/_service_event, and the robot-state topic it listens to) and writes
a bag that `plan-verify replay` and `ros2 bag play` read. Runs until Ctrl-C
(or SIGTERM, or --duration), then closes the bag properly. On a ROS install
`ros2 bag record` with the same topic names does the same (docs/replay-and-simulation.md).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time

from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR

DEFAULT_NODE = "/plan_verifier"


def add_parser(sub) -> None:
    p = sub.add_parser("record", help="record the ROS 2 node's requests and answers into a rosbag2 bag",
                       description="Record the plan_verifier node's topics into a rosbag2 bag (for `plan-verify replay`).")
    p.add_argument("bag", metavar="OUT_BAG", help="the bag directory to create (must not exist)")
    p.add_argument("--node", default=DEFAULT_NODE, metavar="NAME", help=f"the verifier node's full name (default {DEFAULT_NODE})")
    p.add_argument("--robot-state-topic", default="/robot_state", metavar="TOPIC",
                   help="the RobotState topic the node listens to (default /robot_state, the launch file's); '' = none")
    p.add_argument("--storage", choices=("sqlite3", "mcap"), default="sqlite3")
    p.add_argument("--duration", type=float, metavar="SECONDS", help="stop after this long (default: until Ctrl-C)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.duration is not None and args.duration <= 0:
        print("plan-verify: error: --duration must be positive", file=sys.stderr)
        return EXIT_ERROR
    from plan_verifier.replay.bag import BagError, BagWriter
    from plan_verifier.replay.interfaces import Topics

    try:
        from plan_verifier.ros.bag_recorder import BagRecorder, verifier_topics
        from plan_verifier.ros.session import spinning_node
    except ImportError as exc:
        print(f"plan-verify: error: `record` needs rclpy and plan_verifier_interfaces ({exc}); on a ROS install `ros2 bag record` works too",
              file=sys.stderr)
        return EXIT_ERROR
    node_name = "/" + args.node.strip("/")
    try:
        writer = BagWriter(args.bag, args.storage)
    except BagError as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.set())
    try:
        with spinning_node("plan_verify_record", threads=1) as node:
            recorder = BagRecorder(node, writer)
            items = verifier_topics(Topics(node_name), args.robot_state_topic or None)
            for item in items:
                recorder.record(item)
            print(f"recording {len(items)} topics of {node_name} into {args.bag} ({args.storage}); Ctrl-C stops", file=sys.stderr, flush=True)
            deadline = time.monotonic() + args.duration if args.duration else None
            unmatched = [item.topic for item in items]
            reported = 0
            while not stop.wait(0.1):
                for topic in [t for t in unmatched if recorder.publishers(t)]:
                    unmatched.remove(topic)
                    print(f"  {topic}: publisher found", file=sys.stderr, flush=True)
                total = sum(writer.counts.values())
                if total != reported:  # progress, so an operator (or a test) sees when the traffic has all arrived
                    reported = total
                    print(f"  {total} messages", file=sys.stderr, flush=True)
                if deadline is not None and time.monotonic() >= deadline:
                    break
    finally:
        try:
            writer.close()
            failure = None
        except BagError as exc:
            failure = str(exc)
    if failure is not None:
        print(f"plan-verify: error: {failure}", file=sys.stderr)
        return EXIT_ERROR
    counts = ", ".join(f"{topic} {n}" for topic, n in sorted(writer.counts.items())) or "no messages"
    print(f"wrote {sum(writer.counts.values())} messages to {args.bag}: {counts}", file=sys.stderr)
    return EXIT_APPROVED
