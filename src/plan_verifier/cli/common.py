"""Arguments and helpers shared by subcommands that verify plans."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from dataclasses import dataclass

from plan_verifier.inputs import MAX_PLAN_BYTES


class InputError(Exception):
    """A plan file that cannot be read at all (exit 2, one line)."""


@dataclass(frozen=True)
class PlanInput:
    path: str  # as given ("-" for standard input)
    data: bytes


def add_robot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--robot", default="ur10e", metavar="NAME|PATH", help="robot spec: a shipped name (default ur10e) or a YAML file")
    parser.add_argument("--profile", choices=("default", "strict"), default="default", help="strict: require DEFINE, approve only PASS")
    parser.add_argument("--level", type=str.upper, choices=("BASIC", "STANDARD", "FULL"), default="STANDARD")


def add_start_joints_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--start-joints", metavar="J1,J2,...", type=_joints,
                        help="the robot's joint angles in degrees, comma-separated (write --start-joints=... when the first "
                             "is negative): the execution level starts there (default: the start position's, else the "
                             "robot spec's home_joints_deg)")


def _joints(text: str) -> tuple[float, ...]:
    """`--start-joints 180,-90,90,-90,-90,0`: six finite angles (degrees), else a usage error naming what is wrong."""
    from plan_verifier.pipeline import check_joints

    try:
        return check_joints(v.strip() for v in text.replace(" ", ",").split(",") if v.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_graph_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--cell", metavar="NAME|PATH", help="cell graph file (embedded backend): a shipped name or a YAML file")
    add_graph_server_arguments(parser, uri_group=group)
    parser.add_argument("--start-position", metavar="NAME", help="simulated start position (default: the cell's initial state, else Home)")
    parser.add_argument("--start-tool", metavar="NAME", help="simulated start tool (default: the cell's initial state, else none)")


def add_graph_server_arguments(parser: argparse.ArgumentParser, *, uri_group=None, required: bool = False) -> None:
    """--graph-uri/--graph-user/--graph-database/--graph-timeout (the password only from the environment)."""
    (uri_group or parser).add_argument("--graph-uri", metavar="URI", required=required,
                                       help="Neo4j/Bolt cell graph, e.g. bolt://host:7687 (password from $PLAN_VERIFIER_GRAPH_PASSWORD)")
    parser.add_argument("--graph-user", metavar="USER", default="neo4j", help="user for --graph-uri (default neo4j)")
    parser.add_argument("--graph-database", metavar="DB", help="database (graph) name for --graph-uri (default: the server's)")
    parser.add_argument("--graph-timeout", metavar="SECONDS", type=float, default=5.0,
                        help="a graph slower than this counts as unavailable (R-GRF-000; default 5)")


def open_graph_from(args: argparse.Namespace, *, cell: str | None = None):
    """The graph port the graph flags name (a positional CELL may stand in for --cell), or None."""
    from plan_verifier.graph.open import open_graph

    return open_graph(cell=cell or getattr(args, "cell", None), uri=args.graph_uri, user=args.graph_user,
                      database=args.graph_database, timeout_s=args.graph_timeout)


def read_plan(path: str) -> PlanInput:
    """Read at most MAX_PLAN_BYTES + 1 bytes (larger plans are rejected by R-SYN-010)."""
    if path == "-":
        return PlanInput(path, sys.stdin.buffer.read(MAX_PLAN_BYTES + 1))
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a directory, not a plan file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if b"\x00" in data[:8192]:
        raise InputError(f"{path}: binary file, not a text plan")
    return PlanInput(path, data)
