"""Turning untrusted bytes into plan text, within documented limits.

Plans come from language models and over the network: they may be huge,
binary, or not UTF-8. None of that may crash or stall the verifier, and none
of it may be silently "fixed": each becomes a syntax finding with a position.

Limits: a plan may be at most 1 MiB (`MAX_PLAN_BYTES`) and at most 100,000
commands/steps (`MAX_COMMANDS`); larger inputs are rejected with R-SYN-010
before any parsing.
"""

from __future__ import annotations

from plan_verifier.findings import Span
from plan_verifier.ir import Diagnostic
from plan_verifier.plans.json_plan import looks_like_plan

MAX_PLAN_BYTES = 1 << 20
MAX_COMMANDS = 100_000


def decode(data: bytes | str) -> tuple[str | None, list[Diagnostic]]:
    """Text of a plan, or None with the diagnostics that explain why there is none."""
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > MAX_PLAN_BYTES:
        return None, [Diagnostic("R-SYN-010", f"Plan is {size} bytes; the limit is {MAX_PLAN_BYTES} bytes (1 MiB)", Span.point(1, 1),
                                 evidence={"bytes": size, "limit": MAX_PLAN_BYTES}, suggestion="Split the task into smaller plans")]
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            return None, [Diagnostic("R-SYN-009", f"Plan is not valid UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}",
                                     Span.point(line, column), evidence={"offset": exc.start}, suggestion="Send the plan as UTF-8 text")]
    else:
        text = data[1:] if data.startswith("\ufeff") else data
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return None, [Diagnostic("R-SYN-009", f"Plan contains an unpaired surrogate at offset {exc.start}", _point(text, exc.start))]
    nul = text.find("\x00")
    if nul >= 0:
        return None, [Diagnostic("R-SYN-009", f"Plan contains binary data (a NUL character at offset {nul})", _point(text, nul),
                                 suggestion="Send the plan as text")]
    return text, []


def detect_format(text: str, requested: str = "auto") -> str:
    """`tdl` or `json`; `auto` picks JSON/YAML plans by content (contract §1)."""
    if requested in ("tdl", "json"):
        return requested
    return "json" if looks_like_plan(text) else "tdl"


def too_many_commands(text: str, plan_format: str) -> Diagnostic | None:
    """A cheap upper bound on the command count, checked before parsing."""
    count = text.count(";") if plan_format == "tdl" else text.count("action")
    if count > MAX_COMMANDS:
        return Diagnostic("R-SYN-010", f"Plan has about {count} commands; the limit is {MAX_COMMANDS}", Span.point(1, 1),
                          evidence={"commands": count, "limit": MAX_COMMANDS}, suggestion="Split the task into smaller plans")
    return None


def _point(text: str, offset: int) -> Span:
    line = text.count("\n", 0, offset) + 1
    return Span.point(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)
