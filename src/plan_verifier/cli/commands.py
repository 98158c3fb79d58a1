"""`plan-verify commands`: the TDL command catalogue (signatures)."""

from __future__ import annotations

import argparse


def add_parser(sub) -> None:
    p = sub.add_parser("commands", help="print the TDL command catalogue", description="Print every TDL command signature.")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from plan_verifier.catalogue import catalogue

    for spec in catalogue().values():
        print(f"{spec.kind:<12} {spec.signature}")
    return 0
