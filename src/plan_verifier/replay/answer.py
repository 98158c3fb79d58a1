"""One answer to one request, as recorded in a bag, kept in a baseline, or found again by replay.

Recorded answers come from three kinds of messages that carry different
amounts of detail: a VerifyPlan response (service introspection) and a
~/feedback message carry the findings; an ~/approved_actions message only
the verdict and the sha256 of the approved steps. Whatever a source does not
carry is None and is not compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple

from plan_verifier.findings import Finding

VERDICTS = ("PASS", "PARTIAL", "FAIL")
#: Finding.msg severity constants, by value.
SEVERITY_NAMES = ("INFO", "WARNING", "CRITICAL")


class FindingKey(NamedTuple):
    """What identifies a finding across runs (the message text included: a changed limit is a changed finding)."""

    rule_id: str
    severity: str
    line: int
    column: int
    step: int
    message: str

    def text(self) -> str:
        where = ", ".join(f"{name} {value}" for name, value in (("line", self.line), ("step", self.step)) if value)
        return f"{self.rule_id}{f' ({where})' if where else ''}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


def finding_key(f: Finding) -> FindingKey:
    span = f.span
    return FindingKey(f.rule_id, f.severity.value, span.line if span else 0, span.column if span else 0, f.step or 0, f.message)


def finding_key_from_msg(msg: Any) -> FindingKey:
    """A Finding.msg (zero = no position), as the node converted it."""
    severity = SEVERITY_NAMES[msg.severity] if 0 <= msg.severity < len(SEVERITY_NAMES) else str(msg.severity)
    return FindingKey(msg.rule_id, severity, int(msg.line), int(msg.column), int(msg.step), msg.message)


def sorted_keys(keys: Iterable[FindingKey]) -> tuple[FindingKey, ...]:
    return tuple(sorted(keys))


@dataclass(frozen=True)
class Answer:
    """`status` is the verdict (PASS, PARTIAL, FAIL) or, for a request that was not verified, the error name."""

    status: str
    correlation_id: str
    attempt: int | None = None
    fallback: bool | None = None
    findings: tuple[FindingKey, ...] | None = None
    sha256: str | None = None  # of the approved steps
    #: The robot's joints the node's execution level started from (/joint_states), as its approved YAML recorded them;
    #: replay starts there too. Not compared, not kept in baselines.
    start_joints_deg: tuple[float, ...] | None = None

    @property
    def verified(self) -> bool:
        return self.status in VERDICTS

    @property
    def approved(self) -> bool:
        return self.status in ("PASS", "PARTIAL")

    def label(self) -> str:
        return f"{self.status} (fallback)" if self.fallback else self.status

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "correlation_id": self.correlation_id,
            "attempt": self.attempt,
            "fallback": self.fallback,
            "findings": [f.to_dict() for f in self.findings] if self.findings is not None else None,
            "sha256": self.sha256,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Answer":
        findings = data.get("findings")
        return cls(
            status=str(data["status"]),
            correlation_id=str(data.get("correlation_id") or ""),
            attempt=data.get("attempt"),
            fallback=data.get("fallback"),
            findings=sorted_keys(FindingKey(**f) for f in findings) if findings is not None else None,
            sha256=data.get("sha256"),
        )
