"""A picture of the execution level's run, for the human who decides on a rejected plan.

`picture` decides what to draw from the simulation's facts (`motion.facts`)
— the cell's floor and collision objects, the TCP path of every simulated
motion (red when a finding rejects that step, amber for a warning), targets
without an inverse-kinematics solution, and the robot's bodies at the worst
instant (`worst_instant`) — and `render_png` draws it with matplotlib (imported
there, so nothing else pays for it). Nothing is simulated again: the robot is
drawn from the joint angles the sweep checked, with the same bodies
(`kinematics.bodies`) the collision checks used.

Four panels: three orthographic views (top, front, side) and a legend with
the findings. A projection of a convex shape is the convex hull of its
projected outline points, so each body is drawn exactly as the checks see it
(a capsule projects to a stadium, a box to a hexagon at most).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from plan_verifier.collision.frames import pose_matrix
from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Mesh, Shape, Sphere
from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.graph.model import Cell
from plan_verifier.kinematics.arm import Arm
from plan_verifier.kinematics.bodies import body_set
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.motion.facts import Execution, JointDemand, MotionRef

#: Path colours by what the findings say about a motion's step.
FAILED, WARNED, NEUTRAL = "failed", "warned", "neutral"
COLOURS = {FAILED: "#d62728", WARNED: "#f0a202", NEUTRAL: "#6b7f99"}
ROBOT_COLOUR, OBSTACLE_COLOUR, FLOOR_COLOUR = "#9db4cc", "#cdbb94", "#d9d9d9"
#: The views: (title, horizontal axis, vertical axis) as indices into x, y, z.
VIEWS = (("top (x, y)", 0, 1), ("front (x, z)", 0, 2), ("side (y, z)", 1, 2))
_CIRCLE = 32  # outline points per circle
_MAX_STEP_LABELS = 40


@dataclass(frozen=True)
class Instant:
    """The instant the robot is drawn at: sample `sample` of `Execution.motions[motion]`, and why that one.

    `kind`: contact (the deepest penetration of the floor, an obstacle or the robot itself),
    break (a Cartesian path that cannot go on), speed (a joint needs more than its limit — at a
    singularity or not, the finding says; after the clearance, the joint nearest its limit on a
    step with a finding), clearance (the closest approach under the cell's clearance) or end
    (nothing came close: the end of the last motion).
    """

    motion: int
    sample: int
    kind: str
    what: str
    body: str | None = None
    other: str | None = None
    point: tuple[float, float, float] | None = None


def worst_instant(execution: Execution, findings: Iterable[Finding] = ()) -> Instant | None:
    """The most severe instant of the run (see `Instant`), or None when no motion was simulated; `findings` (the
    report's) say which steps the rules found something wrong with."""
    if not execution.motions:
        return None
    contacts = [a for a in execution.approaches if a.distance_mm < 0.0]
    if contacts:
        a = min(contacts, key=lambda a: a.distance_mm)
        into = "below the floor" if a.kind == "floor" else f"into {a.other}"
        return _at(execution, a.motion, a.s, "contact", f"{a.body} {_mm(-a.distance_mm)} mm {into}", a.body, a.other, a.point)
    if execution.breaks:
        b = min(execution.breaks, key=lambda b: b.motion.step)
        why = "the configuration would flip" if b.flip else "no configuration reaches the path"
        return _at(execution, b.motion, b.s, "break", f"the path breaks off ({why})")
    fast = max(execution.demands, key=lambda d: d.share, default=None)
    if fast is not None and fast.share > 1.0:
        return _speed(execution, fast)
    near = [a for a in execution.approaches if a.distance_mm >= 0.0]
    if near:
        a = min(near, key=lambda a: a.distance_mm)
        other = "the floor" if a.kind == "floor" else a.other
        return _at(execution, a.motion, a.s, "clearance", f"{a.body} {_mm(a.distance_mm)} mm from {other}", a.body, a.other, a.point)
    flagged = {f.step for f in findings if f.category is Category.EXECUTION and f.step is not None}
    fast = max((d for d in execution.demands if d.motion.step in flagged), key=lambda d: d.share, default=None)
    if fast is not None:
        return _speed(execution, fast)
    last = len(execution.motions) - 1
    return Instant(last, len(execution.motions[last].s) - 1, "end", "the end of the last motion")


def _speed(execution: Execution, fast: JointDemand) -> Instant:
    return _at(execution, fast.motion, fast.s, "speed", f"{fast.name} needs {_mm(fast.needed_deg_s)} of {_mm(fast.limit_deg_s)} deg/s")


def _at(execution: Execution, ref: MotionRef, s: float, kind: str, what: str, body: str | None = None,
        other: str | None = None, point: tuple[float, float, float] | None = None) -> Instant:
    """The sample of the motion `ref` nearest to fraction `s` (a path that broke off ends before s)."""
    index = next((i for i, m in enumerate(execution.motions) if m.motion == ref), None)
    if index is None:  # the fact is about a motion without a swept path: show the closest one before it
        index = max((i for i, m in enumerate(execution.motions) if m.motion.step <= ref.step), default=0)
        s = 1.0
    motion = execution.motions[index]
    return Instant(index, int(np.argmin(np.abs(motion.s - s))), kind, what, body, other, point)


# ---------------------------------------------------------------------------------------------- content


@dataclass(frozen=True)
class Solid:
    """A shape placed in the robot base frame (mm)."""

    name: str
    shape: Shape
    transform: np.ndarray


@dataclass(frozen=True)
class TcpPath:
    """The TCP path of one motion and how its step fared."""

    step: int
    tcp_mm: np.ndarray
    status: str


@dataclass(frozen=True)
class Picture:
    title: str
    floor_z_mm: float
    obstacles: tuple[Solid, ...]
    paths: tuple[TcpPath, ...]
    robot: tuple[Solid, ...]
    highlight: tuple[str, ...]  # the robot bodies and obstacles at the worst instant's contact or approach
    instant: Instant | None
    unreachable: tuple[tuple[int, tuple[float, float, float]], ...]  # (step, position) of targets without an IK solution
    notes: tuple[str, ...]  # the findings, one line each
    #: `show --repair`: the failing motions of the plan before its repair (TCP paths), drawn under the repaired run.
    replaced: tuple[TcpPath, ...] = ()


def picture(execution: Execution, arm: Arm, cell: Cell | None, findings: Iterable[Finding], *, title: str,
            before: tuple[Execution, Iterable[Finding]] | None = None) -> Picture:
    """What to draw for one verified plan (`findings`: the report's); `before`: the run and findings of the plan
    it repairs, whose failing motions are drawn too."""
    findings = tuple(findings)
    worst = {f.step: f.severity for f in sorted(findings, key=lambda f: f.severity.rank) if f.step is not None}
    paths = tuple(TcpPath(m.motion.step, m.tcp_mm, _status(worst.get(m.motion.step))) for m in execution.motions)
    instant = worst_instant(execution, findings)
    robot: tuple[Solid, ...] = ()
    if instant is not None:
        motion = execution.motions[instant.motion]
        robot = _robot(arm, motion.tool_shape, motion.q_deg[instant.sample])
    elif execution.start is not None:  # nothing moved: the arm where the run starts
        robot = _robot(arm, None, np.array(execution.start.joints_deg))
    obstacles = tuple(Solid(o.name, o.shape, pose_matrix(o.pose)) for _, o in sorted(cell.collision_objects.items())) if cell else ()
    unreachable = tuple((t.motion.step, (float(t.pose[0]), float(t.pose[1]), float(t.pose[2]))) for t in execution.targets
                        if t.reading == 0 and t.within_limits == 0 and len(t.pose) >= 3)
    replaced: tuple[TcpPath, ...] = ()
    if before is not None:
        failing = {f.step for f in before[1] if f.severity is Severity.CRITICAL and f.step is not None}
        replaced = tuple(TcpPath(m.motion.step, m.tcp_mm, FAILED) for m in before[0].motions if m.motion.step in failing)
    return Picture(_heading(title, execution, instant, findings), execution.floor_z_mm, obstacles, paths, robot,
                   _highlight(execution, instant), instant, unreachable, _notes(findings), replaced)


def _robot(arm: Arm, tool: ToolShape | None, q_deg: np.ndarray) -> tuple[Solid, ...]:
    """The robot's collision bodies (link capsules and the tool's shape) placed at one configuration."""
    bodies = body_set(arm, tool)
    placed = bodies.poses(np.radians(q_deg))
    return tuple(Solid(b.name, b.shape, placed[k]) for k, b in enumerate(bodies.bodies))


def _highlight(execution: Execution, instant: Instant | None) -> tuple[str, ...]:
    """The bodies and obstacles to mark: at a contact, every one in contact during that motion; else the closest pair."""
    if instant is None or instant.kind == "end":
        return ()
    if instant.kind != "contact":
        return tuple(n for n in (instant.body, instant.other) if n)
    ref = execution.motions[instant.motion].motion
    names = {n for a in execution.approaches if a.motion == ref and a.distance_mm < 0.0 for n in (a.body, a.other)}
    return tuple(sorted(names))


def _status(severity: Severity | None) -> str:
    if severity is Severity.CRITICAL:
        return FAILED
    return WARNED if severity is Severity.WARNING else NEUTRAL


def _heading(title: str, execution: Execution, instant: Instant | None, findings: Sequence[Finding]) -> str:
    """The title, the instant shown, and the finding about it (the most severe execution finding of its step)."""
    lines = [title]
    if instant is None:
        where = f": the robot at its start ({execution.start.source})" if execution.start is not None else ""
        return "\n".join([*lines, f"no motion was simulated{where}"])
    motion = execution.motions[instant.motion]
    ref = motion.motion
    share = round(100 * float(motion.s[instant.sample]))
    lines.append(f"robot at {share}% of step {ref.step} ({ref.command} to {ref.target}, {ref.tool}): {instant.what}")
    about = [f for f in findings if f.step == ref.step and f.category is Category.EXECUTION] if instant.kind != "end" else []
    rejecting = [f for f in findings if f.severity is Severity.CRITICAL]
    if about or rejecting:  # the finding about the instant shown, else what rejects the plan
        finding = max(about, key=lambda f: f.severity.rank) if about else rejecting[0]
        step = "" if about or finding.step is None else f"step {finding.step}: "
        lines.extend(textwrap.wrap(f"{step}{finding.rule_id} {finding.severity.value}: {finding.message}", 150)[:3])
    return "\n".join(lines)


def _notes(findings: Sequence[Finding], limit: int = 14) -> tuple[str, ...]:
    ranked = sorted((f for f in findings if f.severity is not Severity.INFO), key=lambda f: (-f.severity.rank, f.step or 0))
    lines = [textwrap.shorten(f"{'step ' + str(f.step) if f.step else '-'}: {f.rule_id} {f.message}", 95, placeholder=" ...")
             for f in ranked[:limit]]
    if len(ranked) > limit:
        lines.append(f"... and {len(ranked) - limit} more")
    return tuple(lines)


def _mm(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.1f}"


# ---------------------------------------------------------------------------------------------- geometry


def outline(shape: Shape, transform: np.ndarray, axes: tuple[int, int]) -> np.ndarray:
    """The projection of a placed convex shape onto two world axes: a convex polygon (K, 2)."""
    h, v = axes
    angles = np.linspace(0.0, 2.0 * math.pi, _CIRCLE, endpoint=False)
    ring = np.column_stack([np.cos(angles), np.sin(angles)])
    centre = transform[:3, 3]
    if isinstance(shape, Sphere):
        return centre[[h, v]] + shape.radius * ring
    if isinstance(shape, Capsule):  # a sphere swept along a segment: discs around both projected ends
        ends = [transform[:3, :3] @ np.array([0.0, 0.0, z]) + centre for z in (-shape.length / 2, shape.length / 2)]
        return convex_hull(np.vstack([e[[h, v]] + shape.radius * ring for e in ends]))
    if isinstance(shape, Cylinder):
        local = np.vstack([np.column_stack([shape.radius * ring, np.full(_CIRCLE, z)]) for z in (-shape.length / 2, shape.length / 2)])
    elif isinstance(shape, Box):
        half = np.array([shape.sx, shape.sy, shape.sz]) / 2.0
        local = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float) * half
    elif isinstance(shape, Mesh):  # a mesh link: the outline of its convex hull
        local = shape.hull
    else:
        raise TypeError(f"no outline for {type(shape).__name__}")
    world = local @ transform[:3, :3].T + centre
    return convex_hull(world[:, [h, v]])


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain: the hull's corners counter-clockwise (K, 2)."""
    pts = sorted(set(map(tuple, np.round(points, 6))))
    if len(pts) <= 2:
        return np.array(pts, dtype=float)

    def half(seq: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1], dtype=float)


# ---------------------------------------------------------------------------------------------- drawing


def render_png(view: Picture, path: str | Path, *, dpi: int = 100) -> None:
    """Draw `view` into a PNG file (matplotlib, headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig, grid = plt.subplots(2, 2, figsize=(14, 11), dpi=dpi)
    try:
        panels = [grid[0, 0], grid[0, 1], grid[1, 0]]
        for ax, (name, h, v) in zip(panels, VIEWS):
            _draw_view(ax, view, name, (h, v))
        legend_ax = grid[1, 1]
        legend_ax.axis("off")
        statuses = {p.status for p in view.paths}
        handles = [Line2D([], [], color=COLOURS[NEUTRAL], lw=1.6, label="TCP path (step numbers at the targets)")]
        if FAILED in statuses:
            handles.append(Line2D([], [], color=COLOURS[FAILED], lw=2.6, label="TCP path of a failing step"))
        if view.replaced:
            handles.append(Line2D([], [], color=COLOURS[FAILED], lw=1.8, ls="--", label="failing motion before the repair"))
        if WARNED in statuses:
            handles.append(Line2D([], [], color=COLOURS[WARNED], lw=2.0, label="TCP path of a step with a warning"))
        handles += [Line2D([], [], color="#2ca02c", marker="o", lw=0, label="start"),
                   Patch(facecolor=ROBOT_COLOUR, edgecolor="#34495e", label="robot at the instant shown"),
                   Patch(facecolor=OBSTACLE_COLOUR, edgecolor="#7a6a48", label="collision object"),
                   Patch(facecolor=FLOOR_COLOUR, edgecolor="#888888", label="floor")]
        if view.highlight:
            handles.append(Patch(facecolor=COLOURS[FAILED] if _contact(view) else COLOURS[WARNED], edgecolor="black",
                                 label="bodies in contact" if _contact(view) else "closest approach"))
        if view.unreachable:
            handles.append(Line2D([], [], color=COLOURS[FAILED], marker="x", lw=0, markersize=9, label="target without IK solution"))
        legend_ax.legend(handles=handles, loc="upper left", fontsize=9, frameon=False)
        if view.notes:
            legend_ax.text(0.0, 0.52, "findings:\n" + "\n".join(view.notes), transform=legend_ax.transAxes, fontsize=7.5,
                           family="monospace", va="top", ha="left")
        else:
            legend_ax.text(0.0, 0.52, "no findings", transform=legend_ax.transAxes, fontsize=9, va="top", ha="left")
        fig.suptitle(view.title, fontsize=10, x=0.02, ha="left")
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)


def _contact(view: Picture) -> bool:
    return view.instant is not None and view.instant.kind == "contact"


def _draw_view(ax, view: Picture, name: str, axes: tuple[int, int]) -> None:
    from matplotlib.patches import Polygon as polygon, Rectangle as rectangle
    from matplotlib.transforms import blended_transform_factory

    h, v = axes
    extent: list[np.ndarray] = []
    mark = COLOURS[FAILED] if _contact(view) else COLOURS[WARNED]
    for solid in view.obstacles:
        corners = outline(solid.shape, solid.transform, axes)
        hit = solid.name in view.highlight
        ax.add_patch(polygon(corners, closed=True, facecolor=OBSTACLE_COLOUR, edgecolor=mark if hit else "#7a6a48",
                             lw=2.2 if hit else 0.8, alpha=0.7 if v != 2 else 0.45, zorder=1))
        if v != 2:  # names once, in the top view
            ax.annotate(solid.name, tuple(solid.transform[[h, v], 3]), fontsize=7, ha="center", va="center", color="#5a4a28", zorder=2)
        extent.append(corners)
    for p in view.replaced:  # what the repair replaced, under the repaired run
        ax.plot(p.tcp_mm[:, h], p.tcp_mm[:, v], color=COLOURS[FAILED], lw=1.8, ls="--", alpha=0.8, zorder=8)
        extent.append(p.tcp_mm[:, [h, v]])
    for p in view.paths:
        colour = COLOURS[p.status]
        ax.plot(p.tcp_mm[:, h], p.tcp_mm[:, v], color=colour, lw={FAILED: 2.6, WARNED: 2.0}.get(p.status, 1.4),
                zorder={FAILED: 11, WARNED: 10}.get(p.status, 9), solid_capstyle="round")
        extent.append(p.tcp_mm[:, [h, v]])
    if view.paths:
        start = view.paths[0].tcp_mm[0]
        ax.plot([start[h]], [start[v]], "o", color="#2ca02c", markersize=7, zorder=12)
        if v != 2 and len(view.paths) <= _MAX_STEP_LABELS:
            for p in view.paths:
                end = p.tcp_mm[-1]
                ax.annotate(str(p.step), (end[h], end[v]), textcoords="offset points", xytext=(4, 4), fontsize=7,
                            color=COLOURS[p.status] if p.status != NEUTRAL else "#34495e", zorder=13,
                            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})
    for solid in view.robot:
        corners = outline(solid.shape, solid.transform, axes)
        hit = solid.name in view.highlight
        ax.add_patch(polygon(corners, closed=True, facecolor=mark if hit else ROBOT_COLOUR, edgecolor="#34495e", lw=0.8,
                             alpha=0.75, zorder=8 if hit else 7))
        extent.append(corners)
    if view.instant is not None and view.instant.point is not None:
        point = view.instant.point
        ax.plot([point[h]], [point[v]], "*", color="black", markersize=11, zorder=14)
    for step, target in view.unreachable:
        ax.plot([target[h]], [target[v]], "x", color=COLOURS[FAILED], markersize=10, mew=2.2, zorder=14)
        ax.annotate(str(step), (target[h], target[v]), textcoords="offset points", xytext=(6, 6), fontsize=7,
                    color=COLOURS[FAILED], zorder=14)
        extent.append(np.array([[target[h], target[v]]]))
    ax.plot([0.0], [0.0], "+", color="black", markersize=10, zorder=9)  # the robot base frame
    points = np.vstack(extent) if extent else np.zeros((1, 2))
    lo, hi = points.min(axis=0), points.max(axis=0)
    pad = 0.08 * float(max(hi - lo)) + 50.0
    if v == 2:  # the floor, seen from the side
        floor = view.floor_z_mm
        lo[1] = min(lo[1], floor)
        band = rectangle((0.0, floor - 1e6), 1.0, 1e6, transform=blended_transform_factory(ax.transAxes, ax.transData),
                         color=FLOOR_COLOUR, zorder=0)
        ax.add_artist(band)  # not a data limit: the panel's scale comes from what is in the cell
        ax.axhline(floor, color="#888888", lw=1.0, zorder=0)
    # Equal scales on both axes, the panel filled: the data limits grow to the panel's shape (no clipping).
    ax.update_datalim(np.array([lo - pad, hi + pad]))
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    ax.set_title(name + " mm", fontsize=9)
    ax.tick_params(labelsize=7)
    ax.grid(True, color="#eeeeee", lw=0.6, zorder=0)
