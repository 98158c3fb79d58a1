"""The graph port: the one question the verifier asks a knowledge graph.

A backend hands out an immutable `Cell` snapshot; everything else (state
simulation, repair hints, drawing) works on that snapshot, so the backends
cannot drift apart in what they answer. A backend that cannot produce a
snapshot raises `GraphUnavailable`, which the pipeline turns into R-GRF-000
(fail closed, outcome UNKNOWN).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from plan_verifier.graph.model import Cell


class GraphUnavailable(Exception):
    """The graph could not be read (server down, wrong credentials, timeout)."""

    def __init__(self, message: str, reason_code: str = "tool_failure") -> None:
        super().__init__(message)
        self.reason_code = reason_code


@runtime_checkable
class GraphPort(Protocol):
    def snapshot(self) -> Cell:
        """A consistent view of the whole cell; raises GraphUnavailable."""

    def describe(self) -> str:
        """Where the graph comes from, without credentials (for reports and logs)."""

    def close(self) -> None:
        """Release connections; the port may not be used afterwards."""
