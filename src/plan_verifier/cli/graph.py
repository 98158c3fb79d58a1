"""`plan-verify graph load|export|show|lint`: put a cell into Neo4j, read it back, draw it, check it."""

from __future__ import annotations

import argparse
import sys

from plan_verifier.cli.common import InputError, add_graph_server_arguments, add_robot_arguments, open_graph_from, read_plan
from plan_verifier.cli.main import EXIT_APPROVED, EXIT_ERROR


def add_parser(sub) -> None:
    p = sub.add_parser("graph", help="load, export or draw a cell graph", description="Cell knowledge graph tools (contract §4).")
    actions = p.add_subparsers(dest="graph_command", required=True, metavar="ACTION", parser_class=type(p))

    load = actions.add_parser("load", help="load a cell file into Neo4j (idempotent MERGE)",
                              description="Make the Neo4j graph equal to a cell file: MERGE every element, remove what the file lacks, "
                                          "create uniqueness constraints (or indexes where the server has no constraints).")
    load.add_argument("cell", metavar="CELL", help="cell file: a shipped name (config/cells/NAME.yaml) or a YAML path")
    add_graph_server_arguments(load, required=True)
    load.set_defaults(func=run_load)

    export = actions.add_parser("export", help="write the Neo4j graph as a cell file", description="Read the graph and print it as a cell file.")
    add_graph_server_arguments(export, required=True)
    export.add_argument("-o", "--output", metavar="PATH", help="write to PATH instead of standard output")
    export.set_defaults(func=run_export)

    show = actions.add_parser("show", help="draw the cell (and a plan's path) into a PNG",
                              description="Draw positions by role, allowed moves and tool stands; with --plan, the plan's path "
                                          "through the cell with the failing steps highlighted.")
    show.add_argument("cell", metavar="CELL", nargs="?", help="cell file (or give --graph-uri)")
    add_graph_server_arguments(show)
    show.add_argument("--png", metavar="PATH", required=True, help="the image to write")
    show.add_argument("--plan", metavar="PLAN", help="a plan to draw through the cell")
    show.add_argument("--plan-format", choices=("auto", "tdl", "json"), default="auto")
    show.add_argument("--start-position", metavar="NAME")
    show.add_argument("--start-tool", metavar="NAME")
    add_robot_arguments(show)
    show.set_defaults(func=run_show)

    lint = actions.add_parser("lint", help="check a cell: every posed position reachable and clear, every allowed move clear",
                              description="Run the execution level over the cell itself: each position reachable (inverse "
                                          "kinematics) and collision-free, each allowed move a collision-free joint move, with "
                                          "every tool that may be on the flange. Exit 1 when something is wrong.")
    lint.add_argument("cell", metavar="CELL", nargs="?", help="cell file (or give --graph-uri)")
    add_graph_server_arguments(lint)
    lint.add_argument("--robot", default="ur10e", metavar="NAME|PATH", help="robot spec (default ur10e)")
    lint.add_argument("--teach", action="store_true",
                      help="also print `joints` for the posed positions that have none (the configurations the checks used)")
    lint.add_argument("--format", choices=("text", "json"), default="text", dest="output_format")
    lint.set_defaults(func=run_lint)


def run_load(args: argparse.Namespace) -> int:
    from plan_verifier.graph.model import load_cell_file
    from plan_verifier.graph.port import GraphUnavailable
    from plan_verifier.resources import resolve

    cell = load_cell_file(resolve("cells", args.cell))
    graph = _server(args)
    try:
        summary = graph.load(cell)
    except GraphUnavailable as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        graph.close()
    names = "unique (constraints)" if summary.schema == "constraints" else "indexed (this server has no uniqueness constraints)"
    print(f"loaded {cell.name} into {graph.describe()}: {summary.positions} positions, {summary.moves} moves, {summary.tools} tools, "
          f"{summary.routines} routines, {summary.supports} :SUPPORTED_AT, {summary.collision_objects} collision objects; "
          f"removed {summary.removed} stale elements; "
          f"names {names}; fingerprint {summary.fingerprint[:12]}")
    return EXIT_APPROVED


def run_export(args: argparse.Namespace) -> int:
    import yaml

    from plan_verifier.actions import write_atomic
    from plan_verifier.graph.port import GraphUnavailable

    graph = _server(args)
    try:
        cell = graph.export()
    except GraphUnavailable as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        graph.close()
    text = f"# exported from {graph.describe()}\n" + yaml.safe_dump(cell.to_file_dict(), sort_keys=False, allow_unicode=True, width=120)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_APPROVED


def run_show(args: argparse.Namespace) -> int:
    from plan_verifier.findings import Category
    from plan_verifier.graph.draw import render_png, scene
    from plan_verifier.graph.port import GraphUnavailable
    from plan_verifier.graph.simulate import simulate

    if bool(args.cell) == bool(args.graph_uri):
        print("plan-verify: error: give a CELL file or --graph-uri (one of them)", file=sys.stderr)
        return EXIT_ERROR
    graph = open_graph_from(args, cell=args.cell)
    try:
        simulation = None
        if args.plan:
            from plan_verifier.pipeline import Verifier

            try:
                data = read_plan(args.plan).data
            except InputError as exc:
                print(f"plan-verify: error: {exc}", file=sys.stderr)
                return EXIT_ERROR
            verifier = Verifier(args.robot, graph=graph, profile=args.profile, level=args.level)
            report = verifier.verify(data, plan_format=args.plan_format, start_position=args.start_position,
                                     start_tool=args.start_tool, path=args.plan)
            if report.cell is None:
                unavailable = report.could_not_run(Category.GRAPH)
                print(f"plan-verify: error: {unavailable.message if unavailable else 'no graph'}", file=sys.stderr)
                return EXIT_ERROR
            cell = report.cell
            if report.plan is not None and report.plan.parsed:
                simulation = simulate(report.plan, cell, verifier.start_state(cell, args.start_position, args.start_tool))
            summary = f"; plan {report.verdict} ({len(report.findings)} findings)"
        else:
            try:
                cell = graph.snapshot()
            except GraphUnavailable as exc:
                print(f"plan-verify: error: {exc}", file=sys.stderr)
                return EXIT_ERROR
            summary = ""
        render_png(scene(cell, simulation, report.findings if simulation is not None else ()), args.png)
    finally:
        graph.close()
    print(f"wrote {args.png}: {cell.name}, {len(cell.positions)} positions, {len(cell.edges)} allowed moves{summary}")
    return EXIT_APPROVED


def run_lint(args: argparse.Namespace) -> int:
    import json

    from plan_verifier.cli.main import EXIT_REJECTED
    from plan_verifier.graph.port import GraphUnavailable
    from plan_verifier.motion.lint import lint_cell, teach
    from plan_verifier.robots.spec import load_robot

    if not args.cell and not args.graph_uri:
        print("plan-verify: error: give a cell file or --graph-uri", file=sys.stderr)
        return EXIT_ERROR
    robot = load_robot(args.robot)
    graph = open_graph_from(args)
    try:
        cell = graph.snapshot()
    except GraphUnavailable as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        graph.close()
    result = lint_cell(cell, robot)
    taught = teach(cell, robot) if args.teach else {}
    if args.output_format == "json":
        sys.stdout.write(json.dumps({"cell": result.cell, "robot": result.robot, "positions": result.positions_checked,
                                     "moves": result.moves_checked,
                                     "problems": [{"where": p.where, "tool": p.tool, "message": p.message} for p in result.problems],
                                     "configurations": {k: list(v) if v else None for k, v in result.configurations.items()},
                                     "no_collision_free_configuration": [{"position": position, "tool": tool}
                                                                         for position, tool in result.no_free_configuration],
                                     **({"teach": {k: list(v) for k, v in taught.items()}} if args.teach else {})},
                                    ensure_ascii=False, indent=2) + "\n")
    else:
        for p in result.problems:
            print(f"{result.cell}: {p.where} ({p.tool}): {p.message}")
        verdict = "clean" if not result.problems else f"{len(result.problems)} problem(s)"
        print(f"{result.cell} with {result.robot}: {result.positions_checked} positions, {result.moves_checked} allowed moves "
              f"checked with every tool: {verdict}")
        if taught:
            print("# joints for the posed positions that have none (paste into the positions of the cell file):")
            for name, joints in taught.items():
                print(f"#   {name}: joints: [{', '.join(f'{v:g}' for v in joints)}]")
    return EXIT_APPROVED if not result.problems else EXIT_REJECTED


def _server(args: argparse.Namespace):
    from plan_verifier.graph.neo4j_backend import Neo4jGraph

    return Neo4jGraph(args.graph_uri, user=args.graph_user, database=args.graph_database, timeout_s=args.graph_timeout)
