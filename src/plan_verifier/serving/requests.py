"""A verification request as the service receives it, and what makes one unusable.

A request can be wrong in two ways. A bad *plan* (empty, 5 MiB, not a program)
is a verification result: the report rejects it with findings and the attempt
counts. A bad *request* (unknown plan_format or level, a correlation id that
cannot be logged safely) is a client bug: it gets ERROR_BAD_REQUEST and costs
no attempt. The error codes mirror the VerifyPlan service's constants.
"""

from __future__ import annotations

import enum
import uuid
from dataclasses import dataclass

from plan_verifier.pipeline import LEVELS

PLAN_FORMATS = ("auto", "tdl", "json")
MAX_CORRELATION_ID_CHARS = 128
MAX_INSTRUCTION_BYTES = 64 * 1024
MAX_NAME_CHARS = 256
#: What rosidl puts where a string field held bytes that are not UTF-8.
REPLACEMENT_CHAR = "\ufffd"


class ErrorCode(enum.IntEnum):
    """Why a request was answered without a verification (VerifyPlan.srv ERROR_*)."""

    NONE = 0
    NOT_ACTIVE = 1
    BAD_REQUEST = 2
    INTERNAL = 3
    ATTEMPTS_EXHAUSTED = 4
    ALREADY_APPROVED = 5
    TOO_LARGE = 6
    CANCELLED = 7


class RequestError(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class VerifyRequest:
    """The fields of VerifyPlan.srv / PlanRequest.msg, as received (empty = not given)."""

    plan: str
    correlation_id: str = ""
    plan_format: str = ""
    instruction: str = ""
    level: str = ""
    attempt: int = 0
    start_position: str = ""
    start_tool: str = ""
    source: str = "service"  # service | topic


@dataclass(frozen=True)
class CheckedRequest:
    """A request with every field validated and normalised (None = not given)."""

    plan: str
    correlation_id: str
    generated_id: bool
    plan_format: str
    level: str | None
    instruction: str | None
    attempt: int
    start_position: str | None
    start_tool: str | None
    source: str


def check_request(request: VerifyRequest) -> CheckedRequest:
    """Validate the request's metadata; raises RequestError(BAD_REQUEST). The plan itself is not judged here."""
    correlation_id = request.correlation_id.strip()
    problem = _correlation_id_problem(correlation_id)
    if problem:
        raise RequestError(ErrorCode.BAD_REQUEST, problem)
    plan_format = (request.plan_format.strip() or "auto").lower()
    if plan_format not in PLAN_FORMATS:
        raise RequestError(ErrorCode.BAD_REQUEST, f"unknown plan_format {request.plan_format!r} (expected one of {', '.join(PLAN_FORMATS)}, or empty for auto)")
    level = request.level.strip().upper() or None
    if level is not None and level not in LEVELS:
        raise RequestError(ErrorCode.BAD_REQUEST, f"unknown level {request.level!r} (expected one of {', '.join(LEVELS)}, or empty for the node's default)")
    if request.attempt < 0:
        raise RequestError(ErrorCode.BAD_REQUEST, f"attempt must be 0 (counted by the node) or a positive number, not {request.attempt}")
    instruction = request.instruction.strip() or None
    if instruction is not None and len(instruction.encode("utf-8", "surrogatepass")) > MAX_INSTRUCTION_BYTES:
        raise RequestError(ErrorCode.BAD_REQUEST, f"instruction is longer than {MAX_INSTRUCTION_BYTES} bytes")
    names = {}
    for field in ("start_position", "start_tool"):
        value = getattr(request, field).strip()
        if len(value) > MAX_NAME_CHARS or not value.isprintable() or REPLACEMENT_CHAR in value:
            raise RequestError(ErrorCode.BAD_REQUEST, f"{field} is not a usable name (printable, at most {MAX_NAME_CHARS} characters)")
        names[field] = value or None
    return CheckedRequest(
        plan=request.plan,
        correlation_id=correlation_id or uuid.uuid4().hex,
        generated_id=not correlation_id,
        plan_format=plan_format,
        level=level,
        instruction=instruction,
        attempt=int(request.attempt),
        start_position=names["start_position"],
        start_tool=names["start_tool"],
        source=request.source,
    )


def safe_correlation_id(raw: str) -> str:
    """The id to echo in any answer: a usable id as it is (stripped), an unusable one escaped and cut.

    A refused id is still echoed so that the client can match the error to its
    request: every character that is not printable, and U+FFFD (what rosidl
    puts for bytes that are not UTF-8), is written as a Python escape
    (`\\n`, `\\x07`, `\\ufffd`), and the result is cut to
    MAX_CORRELATION_ID_CHARS. The echo is one line of printable text, safe
    for logs and the audit record; a client finds its request by applying the
    same function to the id it sent.
    """
    value = raw.strip()
    if not _correlation_id_problem(value):
        return value
    escaped = "".join(c if c.isprintable() and c != REPLACEMENT_CHAR else c.encode("unicode_escape").decode("ascii") for c in value)
    return escaped[:MAX_CORRELATION_ID_CHARS]


def _correlation_id_problem(value: str) -> str | None:
    if len(value) > MAX_CORRELATION_ID_CHARS:
        return f"correlation_id is longer than {MAX_CORRELATION_ID_CHARS} characters"
    if not value.isprintable() or REPLACEMENT_CHAR in value:
        return "correlation_id contains control characters or bytes that are not UTF-8"
    return None
