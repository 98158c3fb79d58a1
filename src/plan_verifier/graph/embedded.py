"""The embedded backend: a cell file held in memory. No server, no round trips."""

from __future__ import annotations

from pathlib import Path

from plan_verifier.graph.model import Cell, load_cell_file
from plan_verifier.resources import resolve


class EmbeddedGraph:
    """Serves one cell loaded from a YAML file (contract §4)."""

    def __init__(self, cell: Cell, origin: str = "embedded") -> None:
        self._cell = cell
        self._origin = origin

    @classmethod
    def from_file(cls, name_or_path: str | Path) -> "EmbeddedGraph":
        """A NAME resolves to the shipped `config/cells/NAME.yaml`; a path is a file."""
        path = resolve("cells", str(name_or_path))
        return cls(load_cell_file(path), f"cell file {path}")

    def snapshot(self) -> Cell:
        return self._cell

    def describe(self) -> str:
        return self._origin

    def close(self) -> None:
        """Nothing to release."""
