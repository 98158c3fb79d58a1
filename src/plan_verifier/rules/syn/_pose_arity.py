"""Shared by R-SYN-003/004: is every argument of a pose constructor a number?"""

from __future__ import annotations

from typing import Iterator

from plan_verifier.ir import Arg, BinOp, Number, PoseLiteral, Ref


def non_numeric(literal: PoseLiteral) -> Iterator[tuple[int, Arg]]:
    """Arguments (1-based position, arg) that cannot be a number."""
    for i, arg in enumerate(literal.args, start=1):
        if arg.name is not None or not isinstance(arg.value, (Number, BinOp, Ref)):
            yield i, arg
