"""The execution level (seed 004's L3): the plan run in a kinematic simulation of the cell.

From the start configuration (the robot's real joints when known, else one it
can be standing in at the start position — `motion.start` —, else the spec's
`home_joints_deg`) every motion of the plan
(`motion.program`) is run as a controller runs it (`motion.paths`): a
Cartesian target is reached by the IK solution nearest to where the arm is, a
joint move interpolates in joint space, a linear or circular move follows its
line or arc on the IK branch it starts on. Every instant of every motion is
then checked against the floor, the cell's obstacles and the robot's own
links (`motion.sweep`, conservative advancement: nothing is missed between
samples). The result is a list of neutral facts (`motion.facts`); the R-KIN
and R-COL rules judge them. The simulation judges nothing itself: it
records the rate each joint needs along each Cartesian path and how near a
singularity the arm is there, each body's closest approaches and where
they are; which of them is too fast, too close, or a mistake already
reported is for the rules to say.

Every instant reported is a function of the run's inputs alone: the deepest
(or fastest) instant of a motion is the first sample within `PLATEAU_MM`
(`PLATEAU_DEG_S`) of the extreme, where the motion first gets as bad as it
gets. A tool passing through a fixture is as deep over a whole stretch, and
which sample of it is a hair deeper than the others is rounding.

One mistake, one finding: a motion that fails — a target without an IK
solution (or none within the joint limits), a linear or circular path that
breaks off — is where a controller stops the program, so the simulation stops
there too. Every later motion is recorded as not simulated *after* that step
(`NotSimulated.cause == AFTER_FAILURE`, a consequence of the failure's own
finding), never simulated from a configuration the robot would not be in.
The IK of every later Cartesian target is still checked (it does not depend
on the way there). After a motion whose target is only known at run time
(`UNEVALUABLE`), the next motion's target is checked where it is, but not the
way there.
"""

from __future__ import annotations

import math
import threading
import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from plan_verifier.caching import ByIdentity, BytesLRU
from plan_verifier.collision.frames import pose_matrix as cell_pose_matrix
from plan_verifier.collision.scene import Scene
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.graph.model import Cell
from plan_verifier.graph.simulate import Simulation
from plan_verifier.ir import Plan
from plan_verifier.kinematics.arm import Arm, NoKinematicsError, arm_for
from plan_verifier.kinematics.bodies import BodySet, body_set
from plan_verifier.motion import timing
from plan_verifier.motion.facts import (
    AFTER_FAILURE,
    Approach,
    Execution,
    JointDemand,
    MotionRef,
    NotSimulated,
    PathBreak,
    Proximity,
    SimulatedMotion,
    Start,
    TargetCheck,
    ToolProblem,
)
from plan_verifier.kinematics.rigid import invert
from plan_verifier.motion.paths import CartesianPath, Samples, joint_at, joint_samples, solve_paths
from plan_verifier.motion.program import CIRCULAR_PATH, JOINT_PATH, Motion, ToolRef, Unknown, Waypoint, motion_program
from plan_verifier.motion.start import assumed_start
from plan_verifier.motion.sweep import SweptPath, sweep
from plan_verifier.motion.taught import TaughtJoints
from plan_verifier.robots.spec import RobotSpec

#: Distances within this of a motion's least one are one stretch of equal depth (mm): far above the distance
#: engine's rounding (1e-7 mm), far below the 0.1 mm a finding shows.
PLATEAU_MM = 1e-3
#: Joint rates within this of a joint's peak are one stretch at that peak (deg/s).
PLATEAU_DEG_S = 1e-4


@dataclass(frozen=True)
class _Mount:
    """What is on the flange for one motion: the TCP (flange -> TCP) and the tool's shape."""

    tcp: np.ndarray
    shape: ToolShape | None
    label: str


@dataclass
class _Planned:
    """A motion whose joint path is known, waiting for the sweep."""

    ref: MotionRef
    motion: Motion
    mount: _Mount
    s: np.ndarray
    q: np.ndarray
    at: Any
    complete: bool
    report_first: bool  # its first sample is not the previous motion's last (report contacts there too)
    cartesian: CartesianPath | None


def simulate_execution(plan: Plan, robot: RobotSpec, cell: Cell | None, start: Any, trace: Simulation | None,
                       follow: Execution | None = None) -> Execution:
    """Run the plan. `start` has `.position`, `.tool`, `.joints` (deg or None) and `.joints_source`.

    `follow`: a run of the same plan from another start. Where this run reaches the configuration
    that one had at the beginning of a step, the rest would be the same: it stops there
    (`Execution.joined_at`), and its facts cover the steps before."""
    try:
        arm = arm_for(robot)
    except NoKinematicsError as exc:
        return Execution(unavailable=str(exc))
    floor = robot.limits.z.min_mm
    scene = Scene.from_cell(cell, default_floor_z_mm=floor) if cell is not None else Scene(floor_z_mm=floor)
    return _Run(arm, cell, scene).run(motion_program(plan, cell, trace), start, follow)


class _Run:
    def __init__(self, arm: Arm, cell: Cell | None, scene: Scene) -> None:
        self.arm = arm
        self.cell = cell
        self.scene = scene
        self.targets: list[TargetCheck] = []
        self.breaks: list[PathBreak] = []
        self.demands: list[JointDemand] = []
        self.tools: list[ToolProblem] = []
        self.not_simulated: list[NotSimulated] = []
        self.planned: list[_Planned] = []
        self.closest: tuple[float | None, tuple[int, str, str] | None] = (None, None)
        #: Per motion (index in the program): its Cartesian target's feasible solutions (K, 6), None when unreachable.
        self.solved: dict[int, np.ndarray | None] = {}
        self._flange = _Mount(np.eye(4), None, "the flange")
        self._mounts: dict[tuple, _Mount] = {}  # one mount (and one TCP object) per tool: runs group by identity
        self.taught = TaughtJoints(arm, cell)
        #: The step of the motion that failed (the controller stops there), once one has.
        self.failed: int | None = None

    def run(self, program, start: Any, follow: Execution | None = None) -> Execution:
        q, start_fact = self.start(start)
        items = [self.own_joints(item) for item in program.items]
        mounts = {i: (self.mount(m.tool, m), self.mount(m.pose_tool, None) if m.pose_tool is not None else None)
                  for i, m in enumerate(items) if isinstance(m, Motion)}
        self.solve_targets(items, mounts)
        # The configuration is the one the previous motion ended in; a start the robot cannot be in (R-KIN-009) is not
        # one: the first motion's target is checked where it is, but not the way there.
        known = start_fact.problem is None
        passed = np.full((len(items), len(q)), np.nan)
        joined = None
        i = 0
        while i < len(items):
            item = items[i]
            if self.failed is not None:
                self.not_simulated.append(NotSimulated(
                    item.step, item.span, item.command,
                    f"not simulated after step {self.failed}, whose motion fails (its own finding): the controller stops there",
                    cause=AFTER_FAILURE, after_step=self.failed))
                i += 1
                continue
            if known:
                passed[i] = q
                if follow is not None and _joins(follow, items, i, q):
                    joined = item.step
                    break
            if isinstance(item, Unknown):
                self.not_simulated.append(NotSimulated(item.step, item.span, item.command, item.reason, item.param, item.expression))
                known = False
                i += 1
                continue
            mount, pose_mount = mounts[i]
            if known and item.path != JOINT_PATH:
                q, known, i = self.cartesian(items, mounts, self._cartesian_run(items, mounts, i), q)
                continue
            q1 = self.joint_target(i, item, q)
            if q1 is not None:
                self.joint(item, mount, q, q1, known)
                q, known = q1, True
            else:  # no solution (within limits): a TargetCheck says so, and the robot does not move
                self.failed = item.step
            i += 1
        motions, approaches = self.sweep()
        return Execution(start=start_fact, motions=motions, targets=tuple(self.targets), breaks=tuple(self.breaks),
                         demands=tuple(self.demands), tools=tuple(self.tools), approaches=approaches,
                         not_simulated=tuple(self.not_simulated), floor_z_mm=self.scene.floor_z_mm,
                         clearance_mm=self.scene.clearance_mm, closest_mm=self.closest[0], closest=self.closest[1],
                         body_model="conservative" if self.arm.spec.collision_model.conservative else "exact",
                         passed=passed, joined_at=joined)

    # ------------------------------------------------------------------ start

    def start(self, start: Any) -> tuple[np.ndarray, Start]:
        """The robot's joints when given, else a configuration it can be standing in at the start position (`motion.start`)."""
        joints = getattr(start, "joints", None)
        if joints is not None:
            values = tuple(float(j) for j in joints)
            return np.radians(values), Start(values, getattr(start, "joints_source", None) or "request")
        return assumed_start(self.arm, self.scene, self.cell, start.position, start.tool, self.taught, self._cell_tool)

    def _cell_tool(self, name: str | None) -> tuple[np.ndarray, ToolShape | None]:
        mount = self.mount(ToolRef(name=name) if name else None, None)
        return mount.tcp, mount.shape

    def own_joints(self, item):
        """A move to a cell position whose taught joints are another robot's goes to its pose instead."""
        target = item.target if isinstance(item, Motion) else None
        if target is None or target.position is None or self.cell is None:
            return item
        position = self.cell.positions[target.position]
        if self.taught.usable(position):
            return item
        posed = replace(target, joints_deg=None, pose=tuple(float(v) for v in position.pose), convention="rpy")
        return replace(item, waypoints=(*item.waypoints[:-1], posed))

    # ------------------------------------------------------------------ targets

    def solve_targets(self, items, mounts) -> None:
        """Inverse kinematics of every Cartesian target of the plan at once (all readings), recorded as facts."""
        jobs: list[tuple[int, int, tuple[float, ...], np.ndarray]] = []  # (item, reading, pose, flange target)
        for i, item in enumerate(items):
            if not isinstance(item, Motion) or item.target.pose is None:
                continue
            mount, pose_mount = mounts[i]
            tcp = (pose_mount or mount).tcp
            for reading, values in enumerate((item.target.pose, *item.target.alternatives)):
                jobs.append((i, reading, tuple(values), self._matrix(values, item.target) @ invert(tcp)))
        if not jobs:
            return
        flanges = np.array([j[3] for j in jobs])
        key = ("targets", ByIdentity(self.arm), flanges.tobytes())
        solutions, ok = TRACKED.remembered(key, lambda: self.arm.ik_batch(flanges, np.eye(4)))  # read-only: the same targets' solutions (a repair's candidates never move a target)
        for (i, reading, values, flange), found, valid in zip(jobs, solutions, ok):
            item = items[i]
            mount, _ = mounts[i]
            found = found[valid]
            miss_mm = miss_deg = 0.0
            if not len(found):
                result = self.arm.ik(flange, np.eye(4), q_near=self.arm.home)
                found, miss_mm, miss_deg = np.array([r.q for r in result.solutions]).reshape(-1, 6), result.position_miss_mm, result.orientation_miss_deg
            feasible = found[self.arm.within_limits(found)] if len(found) else found
            ref = MotionRef(item.step, item.span, item.command, item.path, item.target.label, mount.label)
            self.targets.append(TargetCheck(ref, reading, values, item.target.span, len(found), len(feasible), miss_mm, miss_deg))
            if reading == 0:
                self.solved[i] = feasible if len(feasible) else None

    def joint_target(self, i: int, motion: Motion, q: np.ndarray) -> np.ndarray | None:
        """The joint target: given (PosJ, cell joints), or the IK solution nearest to `q` (None: unreachable)."""
        if motion.target.joints_deg is not None:
            return np.radians(motion.target.joints_deg)
        feasible = self.solved.get(i)
        return self.arm.nearest(feasible, q) if feasible is not None else None

    # ------------------------------------------------------------------ motions

    def joint(self, motion: Motion, mount: _Mount, q: np.ndarray, q1: np.ndarray, known: bool) -> None:
        ref = self.ref(motion, mount)
        if not known:  # the way there is unknown: the target configuration alone
            self.plan(ref, motion, mount, q1[None], np.array([1.0]), _static, True, True, None)
            return
        samples = joint_samples(q, q1)
        self.plan(ref, motion, mount, samples.q, samples.s, _JointAt(q, q1), True, not self.planned, None)

    def _cartesian_run(self, items, mounts, i: int) -> list[int]:
        """Consecutive linear/circular motions with the same tool from item `i`: their IK is solved in one call."""
        run = [i]
        tcp = mounts[i][0].tcp
        while (run[-1] + 1 < len(items) and isinstance(items[run[-1] + 1], Motion) and items[run[-1] + 1].path != JOINT_PATH
               and mounts[run[-1] + 1][0].tcp is tcp):
            run.append(run[-1] + 1)
        return run

    def cartesian(self, items, mounts, run: list[int], q: np.ndarray) -> tuple[np.ndarray, bool, int]:
        """A run of linear/circular moves from configuration `q`: (where the arm is after it, whether that is
        known, the next item). A target without a solution or a path that breaks off ends the run there and
        marks the failure (`self.failed`): the arm stays where it stopped."""
        mount = mounts[run[0]][0]
        key = self._run_key(items, run, mount, q)
        tracked_at, failed_at, q = TRACKED.remembered(key, lambda: self._track(items, run, mount, q))  # read-only: shared with every later run of the same motions
        tracked = [(run[k], *rest) for k, *rest in tracked_at]
        failed = None if failed_at is None else run[failed_at]
        self.record(items, mount, tracked, key)
        if failed is not None:
            self.failed = items[failed].step
            return q, True, failed + 1
        return q, True, run[-1] + 1

    def _run_key(self, items, run: list[int], mount: _Mount, q: np.ndarray) -> tuple | None:
        """What `_track` of a run computes from, as a value (`TRACKED`'s key): the arm, the tool's TCP, where the
        run starts, and each motion's target (its values, its solutions) and path."""
        parts = []
        for i in run:
            motion = items[i]
            target = motion.target
            solved = self.solved.get(i)
            via = motion.waypoints[0] if motion.path == CIRCULAR_PATH else None
            parts.append((motion.path, target.pose, target.joints_deg, target.convention,
                          None if solved is None else (solved.shape, solved.tobytes()),
                          None if via is None else (via.pose, via.joints_deg, via.convention)))
        return (ByIdentity(self.arm), mount.tcp.tobytes(), np.asarray(q, dtype=float).tobytes(), tuple(parts))

    def _track(self, items, run: list[int], mount: _Mount, q: np.ndarray) -> tuple:
        """A run of linear/circular moves followed on the controller's branch from `q`: ((offset in the run, path,
        poses, samples, break, intended target configuration) per motion started, the offset of the motion that
        failed or None, where the arm is after it). Depends on nothing but `_run_key`."""
        paths: list[CartesianPath] = []
        start = self.arm.tcp_pose(q, mount.tcp)
        for i in run:
            motion = items[i]
            if motion.target.pose is not None:
                end = self._matrix(motion.target.pose, motion.target)
            else:
                end = self.arm.tcp_pose(np.radians(motion.target.joints_deg), mount.tcp)
            via = self._pose(motion.waypoints[0], mount) if motion.path == CIRCULAR_PATH else None
            paths.append(CartesianPath(self.arm, mount.tcp, start, end, via))
            start = end
        tracked = []  # (item, path, poses, samples, break, intended target configuration)
        failed: int | None = None  # the item that failed
        for i, path, (s, poses, solutions, ok) in zip(run, paths, solve_paths(self.arm, mount.tcp, paths)):
            q1 = self.joint_target(i, items[i], q)
            if items[i].target.pose is not None and q1 is None:
                failed = i  # unreachable target (a TargetCheck says so): the robot does not start this motion
                break
            samples, broke = path.track(q, s, poses, solutions, ok, verify=False)
            tracked.append((i, path, poses, samples, broke, q1))
            q = samples.q[-1]  # where it stops when the path breaks off
            if broke is not None:
                failed = i
                break
        if self.arm.method != "numerical" and tracked:  # the closed forms' guard, for the followed branches at once
            good = self.arm.reaches(np.concatenate([t[3].q for t in tracked]), np.concatenate([t[2][:len(t[3].s)] for t in tracked]),
                                    mount.tcp)
            first = 0
            for k, (i, path, poses, samples, broke, q1) in enumerate(tracked):
                bad = np.flatnonzero(~good[first:first + len(samples.s)])
                first += len(samples.s)
                if len(bad):  # rare: cut the motion at the failing sample; the robot stops there
                    cut = int(bad[0])
                    if broke is not None and cut == len(samples.s) - 1:  # the break's own boundary sample, at the singularity
                        broke = path.broken_at(broke.s, broke.flip, samples.q[cut])
                    else:
                        broke = path.broken_at(float(samples.s[cut]), False, samples.q[max(cut - 1, 0)])
                    kept = Samples(samples.s[:max(cut, 1)], samples.q[:max(cut, 1)])
                    tracked = [*tracked[:k], (i, path, poses, kept, broke, q1)]
                    q, failed = kept.q[-1], i
                    break
        return tuple((i - run[0], *rest) for i, *rest in tracked), None if failed is None else failed - run[0], np.array(q)

    def record(self, items, mount: _Mount, tracked: list, key: tuple | None = None) -> None:
        """Facts and sweep plans of tracked Cartesian motions (breaks, each joint's peak rate and where). What they
        measure is remembered with the run (`TRACKED`, by its key and each motion's speed and acceleration): only the
        motions' references are made again."""
        if not tracked:
            return
        timed = None if key is None else ("recorded", key, tuple((items[t[0]].velocity, items[t[0]].acceleration) for t in tracked))
        breaks, demands = TRACKED.remembered(timed, lambda: self._measured(items, mount, tracked))
        refs = [self.ref(items[t[0]], mount) for t in tracked]
        for k, at, tcp_mm, flip, measured in breaks:
            self.breaks.append(PathBreak(refs[k], at, tcp_mm, flip, measured))
        for ref, (i, path, poses, samples, broke, q1) in zip(refs, tracked):
            self.plan(ref, items[i], mount, samples.q, samples.s, path.at, broke is None, not self.planned, path)
        self.demands.extend(JointDemand(refs[k], *rest) for k, *rest in demands)

    def _measured(self, items, mount: _Mount, tracked: list) -> tuple[tuple, tuple]:
        """The breaks ((motion's offset in `tracked`, s, TCP, flip, proximity)) and joint demands (JointDemand's fields,
        the motion's offset for its reference) of tracked Cartesian motions."""
        together = np.concatenate([t[3].q for t in tracked])
        peaks: list[tuple[int, float, int, int, float, float]] = []  # (motion, velocity, joint, sample, rad/s, s)
        breaks = []
        first = 0
        for k, (i, path, poses, samples, broke, q1) in enumerate(tracked):
            motion = items[i]
            if broke is not None:
                last = broke.last if broke.last is not None else samples.q[-1]
                measured = Proximity.measured(self.arm.singularity(last, mount.tcp), 0, _xyz(self.arm.tcp_pose(last, mount.tcp)))
                breaks.append((k, broke.s, broke.tcp_mm, broke.flip, measured))
            velocity = motion.velocity or timing.CARTESIAN_SPEED_MM_S
            peaks.extend((k, velocity, j, first + n, rate, at)
                         for j, n, rate, at in self.peaks(motion, path, samples.s, samples.q))
            first += len(samples.s)
        return tuple(breaks), self.record_demands(peaks, together, mount)

    def peaks(self, motion: Motion, path: CartesianPath, s: np.ndarray, q: np.ndarray) -> list[tuple[int, int, float, float]]:
        """Per joint, the fastest it turns along the path at the commanded speed and acceleration: (joint, segment k
        (between samples k and k+1), rad/s, the fraction midway)."""
        if len(s) < 2:
            return []
        dt = np.diff(timing.path_times(s, path.length_mm, path.turn_rad, motion.velocity, motion.acceleration,
                                       self.arm.spec.limits.tool_rotation_deg_s))
        if not np.all(dt > 0):
            return []
        rates = np.abs(np.diff(q, axis=0)) / dt[:, None]  # (N-1, 6) rad/s per segment and joint
        fastest = np.argmax(rates >= rates.max(axis=0) - math.radians(PLATEAU_DEG_S), axis=0)  # the first at its peak
        joints = range(rates.shape[1])
        return list(zip(joints, fastest.tolist(), rates[fastest, joints].tolist(), ((s[fastest] + s[fastest + 1]) / 2).tolist()))

    def record_demands(self, peaks: list[tuple[int, float, int, int, float, float]], together: np.ndarray,
                       mount: _Mount) -> tuple:
        """The joint demands of one run of Cartesian motions: both ends of every peak's segment placed and measured at
        once. The Jacobian's smallest singular value (an SVD per configuration) is measured where a joint needs more
        than its limit only; the closed forms' geometric measures everywhere."""
        if not peaks:
            return ()
        joints = self.arm.spec.joints
        names, limits = [j.name for j in joints], [float(j.max_speed_deg_s) for j in joints]
        over = {k + e for _, _, j, k, rate, _ in peaks if math.degrees(rate) > limits[j] for e in (0, 1)}
        used = sorted({k + e for _, _, _, k, _, _ in peaks for e in (0, 1)})
        q = together[used]
        measures = self.arm.singularity(q, mount.tcp, jacobian=False)
        sigma = measures.sigma_min
        if over and np.isnan(sigma).any():
            rows = [n for n, k in enumerate(used) if k in over]
            sigma = sigma.copy()
            sigma[rows] = self.arm.singularity(q[rows], mount.tcp).sigma_min
        tcp = self.arm.tcp_pose(q, mount.tcp)[:, :3, 3].tolist()
        lists = [None if v is None else v.tolist() for v in (measures.shoulder_mm, measures.elbow_sin, measures.wrist_sin)]
        at = {k: Proximity(tuple(tcp[n]), sigma_n, *(None if v is None else v[n] for v in lists))
              for n, (k, sigma_n) in enumerate(zip(used, sigma.tolist()))}
        return tuple((motion, j + 1, names[j], math.degrees(rate), limits[j], s, (at[k], at[k + 1]), velocity)
                     for motion, velocity, j, k, rate, s in peaks)

    def ref(self, motion: Motion, mount: _Mount) -> MotionRef:
        return MotionRef(motion.step, motion.span, motion.command, motion.path, motion.target.label, mount.label)

    def mount(self, ref: ToolRef | None, motion: Motion | None) -> _Mount:
        """The tool on the flange; an undefined tool number is a finding (`motion` given) and the flange is used."""
        if ref is None:
            return self._flange
        if ref.name is not None:
            tool = self.cell.tools.get(ref.name) if self.cell is not None else None
            if tool is None:
                return self._flange
            key = ("cell", ref.name)
            if key not in self._mounts:
                self._mounts[key] = _Mount(cell_pose_matrix(tool.tcp) if tool.tcp is not None else np.eye(4), tool.shape, ref.label)
            return self._mounts[key]
        tools = self.arm.spec.tools
        if ref.number is not None and ref.number in tools:
            key = ("spec", ref.number)
            if key not in self._mounts:
                self._mounts[key] = _Mount(self.arm.tcp(ref.number), tools[ref.number].tool_shape, ref.label)
            return self._mounts[key]
        if motion is not None and (ref.number is not None or ref.unreadable is not None):
            given = str(ref.number) if ref.number is not None else str(ref.unreadable)
            self.tools.append(ToolProblem(self.ref(motion, self._flange), given, tuple(sorted(tools))))
        return self._flange

    def _matrix(self, values, waypoint: Waypoint) -> np.ndarray:
        return cell_pose_matrix(values) if waypoint.convention == "rpy" else self.arm.pose_matrix(values)

    def _pose(self, waypoint: Waypoint, mount: _Mount) -> np.ndarray:
        if waypoint.pose is not None:
            return self._matrix(waypoint.pose, waypoint)
        return self.arm.tcp_pose(np.radians(waypoint.joints_deg), mount.tcp)

    # ------------------------------------------------------------------ collisions

    def plan(self, ref, motion, mount, q, s, at, complete: bool, report_first: bool, path: CartesianPath | None) -> None:
        self.planned.append(_Planned(ref, motion, mount, np.asarray(s, float), np.asarray(q, float), at, complete, report_first, path))

    def sweep(self) -> tuple[tuple[SimulatedMotion, ...], tuple[Approach, ...]]:
        groups: dict[ToolShape | None, list[int]] = {}
        for i, p in enumerate(self.planned):
            groups.setdefault(p.mount.shape, []).append(i)
        swept: dict[int, tuple[SweptPath, BodySet]] = {}
        for shape, members in groups.items():
            bodies = body_set(self.arm, shape)
            results = sweep(self.scene, bodies, [(self.planned[i].s, self.planned[i].q, self.planned[i].at) for i in members],
                            [_path_key(self.planned[i]) for i in members])
            swept.update((i, (result, bodies)) for i, result in zip(members, results))
        motions: list[SimulatedMotion] = []
        approaches: list[Approach] = []
        for i, p in enumerate(self.planned):
            result, bodies = swept[i]
            world = np.where(bodies.on_mount[:, None] & (result.world_target == 0), np.inf, result.world)
            if world.size and np.isfinite(world).any():
                b, k = np.unravel_index(int(np.argmin(world)), world.shape)
                if self.closest[0] is None or result.world[b, k] < self.closest[0]:
                    other = self.scene.targets[int(result.world_target[b, k])] if result.world_target[b, k] >= 0 else ""
                    self.closest = (float(result.world[b, k]), (p.ref.step, bodies.bodies[b].name, other))
            tcp, times = self.placed(p, result)
            motions.append(SimulatedMotion(p.ref, result.s, np.degrees(result.q), times, tcp, p.complete, result.proven,
                                           p.mount.shape))
            approaches.extend(self.approaches(p, result, tcp, bodies))
        return tuple(motions), tuple(approaches)

    def placed(self, p: _Planned, result: SweptPath) -> tuple[np.ndarray, np.ndarray]:
        """The TCP position and the time at every sample of a swept motion; remembered with the swept motion (`PLACED`)
        for the same tool, arm and timing, as long as the sweep cache keeps it."""
        key = (ByIdentity(self.arm), p.mount.tcp.tobytes(), p.cartesian is None, p.motion.velocity, p.motion.acceleration)
        with _PLACED_LOCK:
            found = PLACED.get(result, {}).get(key)
        if found is None:
            found = (self.arm.tcp_pose(result.q, p.mount.tcp)[:, :3, 3], self.times(p, result))
            for array in found:
                array.setflags(write=False)
            with _PLACED_LOCK:
                PLACED.setdefault(result, {})[key] = found
        return found

    def times(self, p: _Planned, result: SweptPath) -> np.ndarray:
        if len(result.s) < 2:
            return np.zeros(len(result.s))
        if p.cartesian is None:
            duration = timing.joint_move_s(result.q[0], result.q[-1], self.arm.max_speed, p.motion.velocity, p.motion.acceleration)
            return result.s * duration
        return timing.cartesian_times(result.s, result.q, p.cartesian.length_mm, p.cartesian.turn_rad, self.arm.max_speed,
                                      p.motion.velocity, p.motion.acceleration, self.arm.spec.limits.tool_rotation_deg_s)

    def approaches(self, p: _Planned, result: SweptPath, tcp: np.ndarray, bodies: BodySet) -> list[Approach]:
        """Each body's closest approach to the world (when under the clearance) and each self pair's contact.

        A motion whose first sample is where the previous one ended (`report_first` False) is measured from its
        second sample on; its first sample's distance to the same thing is `Approach.start_mm`."""
        first = 0 if p.report_first or len(result.s) == 1 else 1
        out: list[Approach] = []
        if len(result.s) <= first:
            return out
        clearance = self.scene.clearance_mm
        targets = self.scene.targets
        world = result.world[:, first:]
        close = np.flatnonzero(world.min(axis=1) < clearance)
        for b, k in zip(close, _first_at_least(world[close], PLATEAU_MM) + first):
            target = int(result.world_target[b, k])
            if target < 0:
                continue
            start = float(result.world[b, 0]) if first and result.world_target[b, 0] == target else None
            other = targets[target]
            out.append(Approach(p.ref, bodies.bodies[b].name, other, "floor" if other == targets[0] else "object",
                                float(world[b].min()), float(result.s[k]), _xyz_row(tcp[k]), _point(result.world_points[b, k, 0]),
                                clearance, start))
        if len(bodies.pairs):
            own = result.own[:, first:]
            touching = np.flatnonzero(own.min(axis=1) < 0.0)  # the robot's own links: contact only (see motion.sweep)
            for n, k in zip(touching, _first_at_least(own[touching], PLATEAU_MM) + first):
                a, c = bodies.pairs[n]
                out.append(Approach(p.ref, bodies.bodies[a].name, bodies.bodies[c].name, "self", float(own[n].min()),
                                    float(result.s[k]), _xyz_row(tcp[k]), _point(result.own_points[n, k, 0]), 0.0,
                                    float(result.own[n, 0]) if first else None))
        return out


class TrackedRuns(BytesLRU[tuple]):
    """Runs of Cartesian motions already followed on their branch (`_Run._track`), by value (`_Run._run_key`), and a
    plan's Cartesian targets solved at once (`_Run.solve_targets`, by the arm and the flange targets' bytes); least
    recently used dropped beyond `limit` bytes; safe across threads. A candidate the repair verifies differs from the
    plan before it in a motion or two and has the same targets: the runs before (and after, when it ends where it
    did) and the targets' solutions are the same values, so computing them again would give the same arrays to the
    last bit. Cached arrays are read-only."""

    def remembered(self, key: tuple | None, compute: Callable[[], tuple]) -> tuple:
        """The value under `key`, computed and kept when missing; with no key (nothing to key it by), computed."""
        found = self.get(key) if key is not None else None
        if found is None:
            found = compute()
            if key is not None:
                self.put(key, found)
        return found

    def put(self, key: tuple, value: tuple) -> None:
        if key[0] == "targets":  # a plan's Cartesian targets solved at once: (solutions, valid)
            arrays, paths = list(value), 0
        elif key[0] == "recorded":  # a run's breaks and joint demands (small tuples)
            arrays, paths = [], 1 + len(value[1]) // 8
        else:
            tracked, _, q = value
            arrays = [q] + [a for _, _, poses, samples, _, q1 in tracked for a in (poses, samples.s, samples.q, q1) if a is not None]
            paths = len(tracked)
        for array in arrays:
            array.setflags(write=False)
        self.store(key, value, sum(a.nbytes for a in arrays) + 2048 * paths + len(key[-1]) // 4)  # + the paths' matrices, the key


#: Per swept motion (`sweep.SweptPath`, the sweep cache's object: gone when it drops it), its TCP positions and sample
#: times by tool, arm and timing (`_Run.placed`).
PLACED: "weakref.WeakKeyDictionary[SweptPath, dict]" = weakref.WeakKeyDictionary()
_PLACED_LOCK = threading.Lock()

#: Followed runs remembered per process (a run: a few kB to a few hundred kB).
TRACKED = TrackedRuns(32 * 2**20)


def _joins(other: Execution, items: list, i: int, q: np.ndarray) -> bool:
    """Whether a run at item `i` in configuration `q` is where `other` was: at a step's first item, exactly."""
    return (other.passed is not None and 0 < i < len(other.passed) and items[i].step != items[i - 1].step
            and bool(np.array_equal(other.passed[i], q)))


def _path_key(p: _Planned) -> tuple | None:
    """What the motion's evaluator computes between samples, as a value (the sweep cache's key; None: not cached)."""
    if p.cartesian is not None:
        return ("path", p.cartesian.key)
    if isinstance(p.at, _JointAt):
        return ("joint", np.asarray(p.at.q0, dtype=float).tobytes(), np.asarray(p.at.q1, dtype=float).tobytes())
    return ("static",) if p.at is _static else None


def _first_at_least(values: np.ndarray, tolerance: float) -> np.ndarray:
    """Per row of `values` (R, N): the first sample within `tolerance` of the row's least value."""
    if not len(values):
        return np.zeros(0, dtype=int)
    return np.argmax(values <= values.min(axis=1, keepdims=True) + tolerance, axis=1)


class _JointAt:
    """A joint move's path at any fractions (the sweep's refinement)."""

    def __init__(self, q0: np.ndarray, q1: np.ndarray) -> None:
        self.q0, self.q1 = q0, q1

    def __call__(self, s: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return joint_at(self.q0, self.q1, s), np.ones(len(s), dtype=bool)


def _static(s: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A single configuration: nothing between samples to evaluate."""
    return near, np.ones(len(s), dtype=bool)


def _xyz(t: np.ndarray) -> tuple[float, float, float]:
    return (float(t[0, 3]), float(t[1, 3]), float(t[2, 3]))


def _xyz_row(p: np.ndarray) -> tuple[float, float, float]:
    return (float(p[0]), float(p[1]), float(p[2]))


def _point(p: np.ndarray) -> tuple[float, float, float] | None:
    return None if not np.all(np.isfinite(p)) else _xyz_row(p)
