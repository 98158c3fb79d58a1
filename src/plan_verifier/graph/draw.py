"""A picture of the cell for the human who decides on a rejected plan.

`scene` decides what to draw - positions by role, allowed moves (arrows for
one-way ones), tool stands, and with a simulation the plan's path through the
cell with the steps the graph rules found wrong marked - and `render_png`
draws a scene with matplotlib. The layout shows the move graph, not the workspace: positions
stand in columns by their distance in moves from the start position (poses
put approach points right above their work points, which hides the moves).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from plan_verifier.findings import Finding
from plan_verifier.graph.model import Cell
from plan_verifier.graph.result import graph_problems
from plan_verifier.graph.simulate import Simulation

ROLE_STYLE = {  # role -> (marker, colour, label)
    "home": ("s", "#1f77b4", "home"),
    "safe_approach": ("o", "#2ca02c", "safe approach"),
    "tool_mount": ("^", "#ff7f0e", "tool stand"),
    "work": ("D", "#d62728", "work"),
}
_OTHER_ROLE = ("o", "#7f7f7f", "other")
_BEND = 0.12  # curvature of the plan's arrows


@dataclass(frozen=True)
class Node:
    name: str
    role: str
    xy: tuple[float, float]
    stand: str | None = None  # "ToolStand_Welder (Welder)" for a tool stand's position


@dataclass(frozen=True)
class Segment:
    """One move of the plan: from, to, the step that makes it, and whether that step failed."""

    src: str
    dst: str
    step: int
    failed: bool
    legal: bool


@dataclass(frozen=True)
class Scene:
    title: str
    nodes: tuple[Node, ...]
    edges: tuple[tuple[str, str, bool], ...]  # (a, b, two_way)
    path: tuple[Segment, ...] = ()
    failed_positions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # the failing steps' feedback lines, shown under the drawing
    start: str | None = None


def scene(cell: Cell, simulation: Simulation | None = None, findings: Iterable[Finding] = (), *,
          title: str | None = None) -> Scene:
    """The picture's content; `findings` are the verification's findings on `simulation` (its graph
    findings colour the failing steps)."""
    xy = _layout(cell)
    nodes = []
    for name in sorted(cell.positions):
        tool = cell.tool_at(name)
        stand = f"{cell.tools[tool].stand} ({tool})" if tool else None
        nodes.append(Node(name, cell.positions[name].role, xy[name], stand))
    edges = []
    for a, b in sorted(cell.edges):
        two_way = (b, a) in cell.edges
        if not two_way or a < b:
            edges.append((a, b, two_way))
    path: list[Segment] = []
    failed: list[str] = []
    notes: list[str] = []
    start = None
    verdict = ""
    if simulation is not None:
        findings = [f for f in findings if f.graph is not None]
        start = simulation.start.position if simulation.start.position in cell.positions else None
        failing_steps = {f.step for f in findings}
        at = start
        for trace in simulation.steps:
            bad = trace.step in failing_steps
            for target in trace.visits:
                if at is not None and at != target and at in cell.positions and target in cell.positions:
                    path.append(Segment(at, target, trace.step, bad, cell.allows(at, target)))
                at = target
            if bad and trace.after.position in cell.positions and trace.after.position not in failed:
                failed.append(trace.after.position)
        problems = graph_problems(findings)
        notes = [p.feedback[0] for p in problems]
        verdict = " - plan rejected" if problems else " - plan valid"
    return Scene(title or f"{cell.name}{verdict}", tuple(nodes), tuple(edges), tuple(path), tuple(failed), tuple(notes), start)


def render_png(view: Scene, path: str | Path, *, dpi: int = 120) -> None:
    """Draw the scene into a PNG file (matplotlib's non-interactive Agg backend; no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    where = {n.name: n.xy for n in view.nodes}
    large = len(view.nodes) > 200
    fig, ax = plt.subplots(figsize=(11, 8.5), dpi=dpi)
    try:
        for a, b, two_way in view.edges:
            (x1, y1), (x2, y2) = where[a], where[b]
            if two_way:
                ax.plot([x1, x2], [y1, y2], color="#bbbbbb", lw=1.0, zorder=1)
            else:
                ax.annotate("", xy=(x2, y2), xytext=(x1, y1), zorder=1,
                            arrowprops={"arrowstyle": "-|>", "color": "#999999", "lw": 1.0, "shrinkA": 8, "shrinkB": 8})
        for seg in view.path:
            (x1, y1), (x2, y2) = where[seg.src], where[seg.dst]
            colour = "#d62728" if seg.failed else "#1f3a93"
            ax.annotate("", xy=(x2, y2), xytext=(x1, y1), zorder=3,
                        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2.6 if seg.failed else 1.8,
                                    "linestyle": "-" if seg.legal else "--", "shrinkA": 9, "shrinkB": 9,
                                    "connectionstyle": f"arc3,rad={_BEND}"})
            label_at = ((x1 + x2) / 2 + _BEND * (y2 - y1) / 2, (y1 + y2) / 2 - _BEND * (x2 - x1) / 2)  # on the arc: a move and its return stay apart
            ax.annotate(str(seg.step), label_at, color=colour, fontsize=8, fontweight="bold", zorder=4,
                        ha="center", va="center", bbox={"boxstyle": "circle,pad=0.15", "fc": "white", "ec": colour, "lw": 0.8})
        for role in sorted({n.role for n in view.nodes}):
            marker, colour, _ = ROLE_STYLE.get(role, _OTHER_ROLE)
            members = [n for n in view.nodes if n.role == role]
            ax.scatter([n.xy[0] for n in members], [n.xy[1] for n in members], marker=marker, s=20 if large else 140,
                       c=colour, edgecolors="black", linewidths=0.6, zorder=2)
        for name in view.failed_positions:
            x, y = where[name]
            ax.scatter([x], [y], s=520, facecolors="none", edgecolors="#d62728", linewidths=2.2, zorder=5)
        if view.start in where:
            x, y = where[view.start]
            ax.scatter([x], [y], s=380, facecolors="none", edgecolors="#1f3a93", linewidths=1.5, linestyle="--", zorder=5)
        if not large:
            for n in view.nodes:
                label = n.name + (f"\n{n.stand}" if n.stand else "")
                ax.annotate(label, n.xy, textcoords="offset points", xytext=(0, 11), ha="center", fontsize=7.5, zorder=6)
        handles = [Line2D([], [], marker=m, color="w", markerfacecolor=c, markeredgecolor="black", markersize=9, label=label)
                   for m, c, label in ROLE_STYLE.values()]
        handles.append(Line2D([], [], color="#bbbbbb", lw=1, label="allowed move"))
        if view.path:
            handles.append(Line2D([], [], color="#1f3a93", lw=1.8, label="plan (step numbers)"))
            handles.append(Line2D([], [], color="#d62728", lw=2.6, label="failing step"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
        ax.set_title(view.title)
        ax.set_aspect("equal", adjustable="datalim")
        ax.margins(0.12)
        ax.set_xticks([])
        ax.set_yticks([])
        if view.notes:
            shown = list(view.notes[:6]) + ([f"... and {len(view.notes) - 6} more"] if len(view.notes) > 6 else [])
            fig.text(0.02, 0.02, "\n".join(shown), fontsize=8, color="#d62728", va="bottom", ha="left", family="monospace")
            fig.subplots_adjust(bottom=0.08 + 0.022 * len(shown))
        fig.savefig(path, bbox_inches="tight")
    finally:
        plt.close(fig)


def _layout(cell: Cell) -> dict[str, tuple[float, float]]:
    """Columns by breadth-first distance (in moves, either way) from the start position; unreachable
    positions last. Within a column, positions sit near the average height of their neighbours in the
    previous column, which keeps the moves from crossing."""
    undirected: dict[str, set[str]] = {name: set() for name in cell.positions}
    for a, b in cell.edges:
        undirected[a].add(b)
        undirected[b].add(a)
    root = cell.initial_position if cell.initial_position in cell.positions else next(iter(sorted(cell.positions)), None)
    depth: dict[str, int] = {}
    if root is not None:
        depth[root] = 0
        queue = deque([root])
        while queue:
            node = queue.popleft()
            for nxt in sorted(undirected[node]):
                if nxt not in depth:
                    depth[nxt] = depth[node] + 1
                    queue.append(nxt)
    last = max(depth.values(), default=-1) + 1
    columns: dict[int, list[str]] = {}
    for name in sorted(cell.positions):
        columns.setdefault(depth.get(name, last), []).append(name)
    out: dict[str, tuple[float, float]] = {}
    for column in sorted(columns):
        names = columns[column]

        def height(name: str) -> float:
            placed = [out[n][1] for n in undirected[name] if n in out]
            return sum(placed) / len(placed) if placed else 0.0

        names.sort(key=lambda n: (height(n), n))
        for row, name in enumerate(names):
            out[name] = (3.0 * column, 1.6 * (row - (len(names) - 1) / 2.0))
    return out
