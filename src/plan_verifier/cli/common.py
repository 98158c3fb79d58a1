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
    parser.add_argument("--level", choices=("BASIC", "STANDARD", "FULL"), default="STANDARD")


def add_graph_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--cell", metavar="NAME|PATH", help="cell graph file (embedded backend): a shipped name or a YAML file")
    parser.add_argument("--start-position", metavar="NAME", help="simulated start position (default: the cell's initial state, else Home)")
    parser.add_argument("--start-tool", metavar="NAME", help="simulated start tool (default: the cell's initial state, else none)")


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
