"""The cell graph as the node serves it: a graph that answers must also hold the cell.

A graph server restarted empty still answers every query, with nothing: read
as it is, every plan would be rejected for positions that "do not exist",
and the planner would be told to repair a correct plan. A graph that holds
another cell than the one the node was commissioned with (`graph_fingerprint`)
would be worse: plans checked against the wrong cell. Both are the graph's
fault, not the plan's, so both make the graph unavailable: GraphUnavailable
with reason code `tool_output_invalid` (seed 004: the tool answered, but its
output is not what the contract says), which the pipeline reports as
R-GRF-000 (outcome UNKNOWN, fail closed) and /diagnostics as graph_ok=false.
"""

from __future__ import annotations

from plan_verifier.graph.model import Cell
from plan_verifier.graph.port import GraphPort, GraphUnavailable

#: Seed 004's reason code for a graph that answers with something that is not the cell.
NOT_THE_CELL = "tool_output_invalid"


class CellGraph:
    """A GraphPort that refuses snapshots without positions, or (with `fingerprint`) of another cell."""

    def __init__(self, port: GraphPort, fingerprint: str | None = None) -> None:
        self.port = port
        self.fingerprint = fingerprint or None

    def snapshot(self) -> Cell:
        cell = self.port.snapshot()
        if not cell.positions:
            raise GraphUnavailable(f"{self.describe()} answers but holds no cell (no positions): restarted empty, or not loaded yet "
                                   "(plan-verify graph load)", NOT_THE_CELL)
        if self.fingerprint is not None and cell.fingerprint != self.fingerprint:
            raise GraphUnavailable(f"{self.describe()} holds cell {cell.name!r} with fingerprint {cell.fingerprint}, not the cell "
                                   f"this node serves (graph_fingerprint {self.fingerprint})", NOT_THE_CELL)
        return cell

    def describe(self) -> str:
        return self.port.describe()

    def close(self) -> None:
        self.port.close()
