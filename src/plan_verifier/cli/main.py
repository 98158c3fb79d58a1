"""`plan-verify`: entry point and subcommand registry.

Every subcommand module exposes `add_parser(subparsers)`, which registers its
arguments and sets `func` to a callable returning the exit status. Modules are
imported when the parser is built; heavy libraries are imported inside the
subcommand functions so that `plan-verify check` starts quickly.

Exit status: 0 approved, 1 rejected, 2 the tool could not do its job.
No input produces a traceback: errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from plan_verifier import __version__
from plan_verifier.resources import ConfigError

SUBCOMMANDS = ("check", "show", "rules", "commands", "call", "dataset", "eval", "graph", "repair", "replay", "record")

EXIT_APPROVED, EXIT_REJECTED, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse's own convention)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="plan-verify", description="Verify robot plans (TDL programs, JSON step plans) before execution.")
    parser.add_argument("--version", action="version", version=f"plan-verify {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    for name in SUBCOMMANDS:
        importlib.import_module(f"plan_verifier.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return int(args.func(args))
    except ConfigError as exc:
        print(f"plan-verify: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - never a traceback on the terminal
        print(f"plan-verify: internal error: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
