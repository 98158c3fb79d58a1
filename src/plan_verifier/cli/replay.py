"""`plan-verify replay BAG...`: re-verify recorded verifier traffic and report what changed.

Offline (the default) needs no ROS: the bag is read with rosbags, every
recorded request is verified again in this process with the current rules
and the robot spec and graph given here (the flags of `check`), and the
answers are compared with the recorded ones, or with an accepted baseline
(`<bag>.baseline.json`, written by `--accept`). Exit 0 when no verdict
changed, 1 when one did, 2 when a bag (or the setup) cannot be used.

`--live` instead publishes the recorded requests into a running node at their
recorded pacing (or `--rate`), records the node's outputs into a new bag and
compares them with the recorded outputs message for message (rclpy needed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from plan_verifier.cli.common import add_graph_server_arguments, add_robot_arguments, open_graph_from
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR, EXIT_REJECTED


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="re-verify the requests recorded in rosbag2 bags; report changed verdicts",
                       description="Re-verify the plan requests recorded in rosbag2 bags (sqlite3 or mcap) with the current rules, "
                                   "robot spec and graph, and print a regression table per correlation id.")
    p.add_argument("bags", nargs="+", metavar="BAG", help="rosbag2 directory, or a .db3/.mcap file")
    add_robot_arguments(p)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--cell", metavar="NAME|PATH", help="cell graph file (embedded backend) the node used, e.g. weld_cell")
    add_graph_server_arguments(p, uri_group=group)
    p.add_argument("--node", metavar="NAME", help="the verifier node whose topics to read, e.g. /plan_verifier (default: the only one in the bag)")
    p.add_argument("--robot-state-topic", metavar="TOPIC", help="the node's RobotState input (default: the only RobotState topic in the bag)")
    p.add_argument("--max-attempts", type=int, metavar="N", help="the node's max_plan_attempts (default: as recorded, else 3)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N", help="worker processes for distinct verifications (default: all cores)")
    p.add_argument("--baseline", metavar="PATH", help="compare with this baseline (default: BAG.baseline.json if it exists, else the recorded answers)")
    p.add_argument("--accept", action="store_true", help="write the new answers as the baseline (BAG.baseline.json or --baseline) and exit 0")
    p.add_argument("--format", choices=("text", "json"), default="text", dest="output_format")
    p.add_argument("--changes-only", action="store_true", help="text: list only correlation ids whose answers changed")
    live = p.add_argument_group("live replay (needs rclpy)")
    live.add_argument("--live", action="store_true", help="publish the recorded requests into a running node and record its outputs")
    live.add_argument("--output", metavar="NEW_BAG", help="--live: the bag to record the node's outputs into")
    live.add_argument("--storage", choices=("sqlite3", "mcap"), default="sqlite3", help="--live: storage of NEW_BAG")
    live.add_argument("--rate", type=float, metavar="HZ", help="--live: send requests at this rate instead of the recorded pacing")
    live.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="--live: wait this long for the node and its answers")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    problem = _flag_problem(args)
    if problem:
        print(f"plan-verify: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    if args.live:
        return _live(args)
    from plan_verifier.graph.port import GraphUnavailable
    from plan_verifier.replay.engine import ReplaySetup
    from plan_verifier.robots.spec import load_robot

    robot = load_robot(args.robot)
    graph = open_graph_from(args)
    try:
        cell = graph.snapshot() if graph is not None else None
    except GraphUnavailable as exc:
        print(f"plan-verify: error: cannot read the graph ({graph.describe()}): {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        if graph is not None:
            graph.close()
    setup = ReplaySetup(robot, cell, profile=args.profile, level=args.level, max_attempts=args.max_attempts, jobs=args.jobs)
    status = EXIT_APPROVED
    documents = []
    for bag in args.bags:
        outcome = _replay_one(bag, args, setup)
        if isinstance(outcome, str):
            print(f"plan-verify: error: {outcome}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        documents.append(outcome)
        if outcome.regressions and not args.accept and status != EXIT_ERROR:
            status = EXIT_REJECTED
    _emit(documents, args)
    return status


def _flag_problem(args: argparse.Namespace) -> str | None:
    if args.jobs < 1:
        return "--jobs must be at least 1"
    if args.max_attempts is not None and not 1 <= args.max_attempts <= 100:
        return "--max-attempts must be between 1 and 100"
    if args.baseline and len(args.bags) > 1:
        return "--baseline names one file: give one BAG"
    if args.live:
        if len(args.bags) != 1 or not args.output:
            return "--live replays one BAG into a running node and needs --output NEW_BAG"
        if args.accept or args.baseline:
            return "--live compares with the recorded outputs; --accept and --baseline are for offline replay"
        if args.rate is not None and args.rate <= 0:
            return "--rate must be positive"
    elif args.output or args.rate is not None:
        return "--output and --rate belong to --live"
    return None


def _replay_one(bag: str, args: argparse.Namespace, setup):
    """The ReplayResult of one bag, or the one-line reason it could not be replayed."""
    from plan_verifier.replay import baseline as baselines
    from plan_verifier.replay.bag import BagError, read_bag
    from plan_verifier.replay.compare import compare
    from plan_verifier.replay.engine import replay
    from plan_verifier.replay.render import ReplayResult
    from plan_verifier.replay.traffic import read_traffic

    try:
        contents = read_bag(bag, node=args.node, robot_state_topic=args.robot_state_topic)
    except BagError as exc:
        return str(exc)
    traffic = read_traffic(contents)
    path = Path(args.baseline) if args.baseline else baselines.default_path(bag)
    if path.is_file():
        try:
            before, meta = baselines.load(path, traffic.requests)
        except baselines.BaselineError as exc:
            return str(exc)
        compared_with = f"the baseline {path}" + (f" (accepted {meta['accepted']})" if meta.get("accepted") else "")
    elif args.baseline and not args.accept:
        return f"{path}: no such baseline (make it with --accept)"
    elif traffic.has_outputs:
        before, compared_with = [r.answer for r in traffic.requests], "the recorded answers"
    elif args.accept:
        before, compared_with = [None] * len(traffic.requests), "nothing (the bag holds no answers)"
    else:
        t = contents.topics
        return (f"{bag}: missing topic: no recorded answers ({t.feedback}, {t.approved_actions}, {t.service_events}) and no baseline; "
                "record the node's outputs too, or run with --accept to make the baseline")
    run = replay(traffic, setup)
    result = ReplayResult(bag, contents.storage, contents.topics.node, compared_with, compare(traffic.requests, before, run.answers),
                          run.verifications, run.distinct, _notes(traffic, setup))
    if args.accept:
        try:
            baselines.write(path, bag=bag, requests=traffic.requests, answers=run.answers, robot=setup.robot.name,
                            graph_fingerprint=setup.cell.fingerprint if setup.cell is not None else None)
        except OSError as exc:
            return f"{path}: cannot write the baseline: {exc.strerror or exc}"
        print(f"plan-verify: accepted {len(run.answers)} answers as the baseline {path}", file=sys.stderr)
    return result


def _notes(traffic, setup) -> tuple[str, ...]:
    notes = []
    if traffic.unmatched_outputs:
        notes.append(f"{traffic.unmatched_outputs} recorded outputs answer no recorded request (an approval latched before the recording "
                     "began, or service calls recorded without service_introspection)")
    if traffic.without_contents:
        notes.append(f"{traffic.without_contents} service calls were recorded without their request (service_introspection metadata): not replayed")
    replay_graph = setup.cell.fingerprint if setup.cell is not None else None
    if traffic.graph_fingerprint and traffic.graph_fingerprint != replay_graph:
        now = f"graph {replay_graph[:12]}…" if replay_graph else "no graph (give the node's --cell or --graph-uri)"
        notes.append(f"the recorded approvals were checked against graph {traffic.graph_fingerprint[:12]}…; this replay uses {now}")
    if traffic.robots and setup.robot.name not in traffic.robots:
        notes.append(f"the recorded approvals are for robot {', '.join(sorted(traffic.robots))}; replaying with {setup.robot.name}")
    if traffic.contents.robot_state_topic is None and any(not (r.request.start_position and r.request.start_tool) for r in traffic.requests):
        notes.append("no RobotState topic in the bag: requests without a start state start from the cell's initial state")
    return tuple(notes)


def _emit(documents, args: argparse.Namespace) -> None:
    from plan_verifier.replay import render

    if args.output_format == "json":
        if len(documents) == 1 and len(args.bags) == 1:
            sys.stdout.write(json.dumps(render.to_dict(documents[0]), ensure_ascii=False, indent=2) + "\n")
        else:
            for document in documents:
                sys.stdout.write(json.dumps(render.to_dict(document), ensure_ascii=False) + "\n")
        return
    for document in documents:
        sys.stdout.write(render.text(document, changes_only=args.changes_only))


def _live(args: argparse.Namespace) -> int:
    from plan_verifier.replay.bag import BagError, read_bag
    from plan_verifier.replay.outputs import compare_outputs, recorded_outputs, request_ids
    from plan_verifier.replay.traffic import read_traffic

    try:
        from plan_verifier.ros.live_replay import LiveReplayError, live_replay
    except ImportError as exc:
        print(f"plan-verify: error: --live needs rclpy and plan_verifier_interfaces ({exc})", file=sys.stderr)
        return EXIT_ERROR
    try:
        contents = read_bag(args.bags[0], node=args.node, robot_state_topic=args.robot_state_topic)
        traffic = read_traffic(contents)
        live = live_replay(traffic, output=Path(args.output), storage=args.storage, rate=args.rate, timeout=args.timeout)
        new = read_bag(args.output, node=contents.topics.node, robot_state_topic=contents.robot_state_topic)
    except (BagError, LiveReplayError) as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    ids = request_ids(traffic)
    before = recorded_outputs(contents, ids, since_ns=traffic.requests[0].stamp_ns if traffic.requests else 0)
    after = recorded_outputs(new, ids, responses=live.responses)
    differences = compare_outputs(before, after)
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(before.counts().items())) or "no outputs"
    print(f"live replay of {args.bags[0]} into {contents.topics.node}: sent {live.sent} requests and {live.states} robot states, "
          f"recorded {args.output} ({args.storage})")
    print(f"  recorded outputs: {counts}")
    for note in live.notes:
        print(f"  note: {note}")
    if differences:
        print(f"{len(differences)} differences from the recorded outputs:")
        for line in differences:
            print(f"  {line}")
        return EXIT_REJECTED
    print("the node reproduced the recorded outputs message for message")
    return EXIT_APPROVED
