"""Shared by the speed rules (R-SAF-002/003/009): a value against a hard and a recommended range."""

from __future__ import annotations

from typing import Iterator

from plan_verifier.findings import Severity
from plan_verifier.ir import fmt_number
from plan_verifier.robots.spec import Range


def bounds(low: float, high: float) -> str:
    """`[10-1000]`, the way seed 000 writes a range."""
    return f"[{fmt_number(low)}-{fmt_number(high)}]"


def out_of_range(value: float, limits: Range) -> Iterator[tuple[Severity, str, dict]]:
    """At most one (severity, "safe range [..]" or "recommended range [..]", evidence) for `value`."""
    if not limits.min <= value <= limits.max:
        yield Severity.CRITICAL, f"safe range {bounds(limits.min, limits.max)}", {"min": limits.min, "max": limits.max}
    elif not limits.recommended_min <= value <= limits.recommended_max:
        yield (Severity.WARNING, f"recommended range {bounds(limits.recommended_min, limits.recommended_max)}",
               {"recommended_min": limits.recommended_min, "recommended_max": limits.recommended_max})


def recommendation(limits: Range, unit: str) -> str:
    return f"Use a value between {fmt_number(limits.recommended_min)} and {fmt_number(limits.recommended_max)}{unit}"
