"""What the execution level's simulation found: neutral, typed facts the R-KIN and R-COL rules judge.

No rule ids, no messages, no severities: the simulation records where the
robot went and what it came close to; each rule decides what is wrong and
says so. Angles are degrees and lengths mm here (radians stay inside the
simulation); `s` is the fraction of a motion (0 at its start, 1 at its end).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.findings import Span

if TYPE_CHECKING:
    from plan_verifier.kinematics.arm import SingularityMeasures

XYZ = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class MotionRef:
    """Which motion a fact is about: its step (1-based, execution order), source span and target."""

    step: int
    span: Span | None
    command: str
    path: str  # joint | linear | circular
    target: str  # the target's label (a name, or the literal)
    tool: str  # the tool's label ("tool 0", "tool 'Welder'", "the flange")


@dataclass(frozen=True, slots=True)
class StartContact:
    """What a start configuration touches: a robot body against the floor, an obstacle or another body."""

    body: str
    other: str
    kind: str  # floor | object | self
    depth_mm: float  # > 0


@dataclass(frozen=True, slots=True)
class StartProblem:
    """The start the simulation had to assume is not one the robot can be in (`motion.start`).

    `where`: the start position's name, or `home_joints_deg`. `kind`: `unreachable` (its pose has
    no inverse-kinematics solution), `outside_limits` (only outside the joint limits: its taught
    joints too), `collision` (every configuration within the limits touches something; `contacts`
    are those of the configuration the run starts from). `solutions`: the configurations tried.
    """

    where: str
    kind: str
    solutions: int
    taught: bool
    contacts: tuple[StartContact, ...] = ()


@dataclass(frozen=True, slots=True)
class Start:
    """Where the simulation starts: joint angles and where they come from
    (`joint_states`, `request`, `approved`, `position '<name>'`, `home_joints_deg`).

    `assumed`: the verifier chose them (no joints given, none taught for the position).
    `alternatives`: when assumed at a posed position, the other configurations the robot
    could be standing in there (collision-free IK solutions, degrees), nearest first —
    R-KIN-010 runs the plan from each. `problem`: the start is not one the robot can be in
    (R-KIN-009)."""

    joints_deg: tuple[float, ...]
    source: str
    assumed: bool = False
    position: str | None = None
    alternatives: tuple[tuple[float, ...], ...] = ()
    problem: StartProblem | None = None


@dataclass(frozen=True, slots=True)
class TargetCheck:
    """Inverse kinematics of one Cartesian target (`reading` > 0: an alternative reading of an ambiguous pose)."""

    motion: MotionRef
    reading: int
    pose: tuple[float, ...]
    span: Span | None
    solutions: int  # IK solutions (all branches)
    within_limits: int  # ... of which some 2 pi variant lies within every joint's limits
    miss_mm: float = 0.0  # no solution: how far the closest configuration misses the position
    miss_deg: float = 0.0  # ... and the orientation


class Proximity(NamedTuple):
    """How far one configuration is from the arm's singular configurations, as measured
    (`kinematics.arm.SingularityMeasures`); which of them count as close is R-KIN-004's to say.

    `sigma_min`: the smallest singular value of the Jacobian (linear rows divided by the reach;
    dimensionless), NaN where it was not measured. The structure's geometric measures, None for
    an arm without a closed form: `shoulder_mm`, the wrist point's distance from the plane of
    axes 1 and 2; `elbow_sin`, the sine of the elbow angle; `wrist_sin`, the sine of the angle
    between axes 4 and 6. A named tuple, like `JointDemand`: a run makes several per motion,
    and tuples are the cheapest immutable values Python has.
    """

    tcp: XYZ
    sigma_min: float
    shoulder_mm: float | None = None
    elbow_sin: float | None = None
    wrist_sin: float | None = None

    @classmethod
    def measured(cls, measures: SingularityMeasures, i: int, tcp: XYZ) -> "Proximity":
        """Configuration `i` of `measures`, whose TCP is at `tcp`."""
        def value(v: np.ndarray | None) -> float | None:
            return None if v is None else float(v[i])

        return cls(tcp, float(measures.sigma_min[i]), value(measures.shoulder_mm), value(measures.elbow_sin),
                   value(measures.wrist_sin))


@dataclass(frozen=True, slots=True)
class PathBreak:
    """A Cartesian path that cannot continue on the IK branch it started on, at fraction `s`.

    `flip`: another branch reaches that point (the controller would have to change
    configuration mid-motion); otherwise no branch does (the path leaves the workspace).
    `last`: how near a singularity the last reachable configuration is.
    """

    motion: MotionRef
    s: float
    tcp: XYZ
    flip: bool
    last: Proximity


class JointDemand(NamedTuple):
    """The fastest one joint has to turn for a Cartesian path at its commanded speed and acceleration.

    One per joint and linear or circular motion: `needed_deg_s` is the joint's peak rate between
    two samples (the first such pair within `motion.simulate.PLATEAU_DEG_S` of the peak), `s` the
    fraction midway between those samples, `ends` the two samples (TCP and singularity proximity;
    `sigma_min` measured where the joint needs more than `limit_deg_s`, or always for an arm
    without a closed form). Whether that is too fast, and why, the R-KIN rules judge.
    """

    motion: MotionRef
    joint: int  # 1-based
    name: str
    needed_deg_s: float
    limit_deg_s: float
    s: float
    ends: tuple[Proximity, Proximity]
    velocity_mm_s: float

    @property
    def share(self) -> float:
        """The peak rate as a share of the joint's limit."""
        return self.needed_deg_s / self.limit_deg_s


@dataclass(frozen=True, slots=True)
class ToolProblem:
    """The motion names a tool the robot spec does not define (or an unreadable tool argument); the flange is used."""

    motion: MotionRef
    given: str
    defined: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Approach:
    """The closest a body came to something during one motion, when closer than the clearance
    (self pairs: when in contact).

    `kind`: floor | object | self. `distance_mm` is signed (negative: penetration depth), the
    least over the motion. `s`, `tcp` and `point` are where: the first sample within
    `motion.simulate.PLATEAU_MM` of that least distance (a tool passing through a fixture is as
    deep over a whole stretch; the instant must not depend on the last bits of equal depths).
    `other` is `floor`, the obstacle's name, or the other robot body. `start_mm`: the same
    distance (to the same thing) at the motion's first instant when that instant is where the
    previous motion ended, so already reported there; None otherwise.
    """

    motion: MotionRef
    body: str
    other: str
    kind: str
    distance_mm: float
    s: float
    tcp: XYZ
    point: XYZ | None  # the witness point on the body, when the distance is exact
    clearance_mm: float
    start_mm: float | None = None



#: Why a motion was not simulated: its target or path cannot be evaluated before run time ...
UNEVALUABLE = "unevaluable"
#: ... or an earlier motion failed (no IK solution, a path that breaks off), where the controller stops the program:
#: a consequence of that motion's own finding, not a second mistake.
AFTER_FAILURE = "after_failure"


@dataclass(frozen=True, slots=True)
class NotSimulated:
    """A motion the simulation could not follow: `cause` is `UNEVALUABLE` (its target is only known at run time, or
    beyond any arm: the parameter and the expression as written) or `AFTER_FAILURE` (the motion of step `after_step`
    failed and the robot stops there)."""

    step: int
    span: Span | None
    command: str
    reason: str
    param: str = "target_pose"
    expression: str = ""
    cause: str = UNEVALUABLE
    after_step: int | None = None


@dataclass(frozen=True, eq=False)
class SimulatedMotion:
    """One motion as the robot would run it: the joint path the checks covered, timed.

    `q_deg` (N, 6) at fractions `s` (N,) and times `t_s` (N,); `proven` is False when the
    sweep could not decide every segment (see `motion.sweep`).
    """

    motion: MotionRef
    s: np.ndarray
    q_deg: np.ndarray
    t_s: np.ndarray
    tcp_mm: np.ndarray  # (N, 3)
    complete: bool  # False when the path broke off (PathBreak) before its target
    proven: bool
    tool_shape: ToolShape | None = None  # the shape on the flange during the motion (None: the bare flange)

    @property
    def duration_s(self) -> float:
        return float(self.t_s[-1]) if len(self.t_s) else 0.0

    @property
    def end_deg(self) -> tuple[float, ...]:
        return tuple(float(v) for v in self.q_deg[-1])


@dataclass(frozen=True, eq=False)
class Execution:
    """The whole simulated run. `unavailable` says why nothing could be simulated (no kinematics)."""

    unavailable: str | None = None
    start: Start | None = None
    motions: tuple[SimulatedMotion, ...] = ()
    targets: tuple[TargetCheck, ...] = ()
    breaks: tuple[PathBreak, ...] = ()
    demands: tuple[JointDemand, ...] = ()
    tools: tuple[ToolProblem, ...] = ()
    approaches: tuple[Approach, ...] = ()
    not_simulated: tuple[NotSimulated, ...] = ()
    floor_z_mm: float = 0.0
    clearance_mm: float = 0.0
    #: The closest any body came to the floor or an obstacle over the whole run (mm, at least this), and what.
    closest_mm: float | None = None
    closest: tuple[int, str, str] | None = None  # (step, body, floor or obstacle)
    #: `exact`: the links' own geometry (a URDF's meshes and primitives) decided every contact; `conservative`:
    #: capsules enclosing the links did, so a reported contact may be one the real links do not have.
    body_model: str = "conservative"
    #: The arm's configuration (radians) as each item of the motion program began; NaN where not known.
    passed: np.ndarray | None = None
    #: A run following another (`simulate_execution(follow=...)`) that reached that run's configuration at the
    #: start of this step: from there on it is that run, so it stopped; its facts cover the steps before.
    joined_at: int | None = None

    def motion_at(self, step: int) -> tuple[SimulatedMotion, ...]:
        return tuple(m for m in self.motions if m.motion.step == step)

    def summary(self) -> dict:
        """The report's `execution` field."""
        if self.unavailable is not None:
            return {"ran": False, "reason": self.unavailable}
        out = {
            "ran": True,
            "start": {"joints_deg": [round(v, 3) for v in self.start.joints_deg], "source": self.start.source,
                      "assumed": self.start.assumed} if self.start else None,
            "motions": len(self.motions) + len(self.not_simulated),
            "simulated": len(self.motions),
            "not_simulated": [n.step for n in self.not_simulated],
            "cycle_time_s": round(sum(m.duration_s for m in self.motions), 3),
            "floor_z_mm": self.floor_z_mm,
            "clearance_mm": self.clearance_mm,
            "closest_mm": round(self.closest_mm, 1) if self.closest_mm is not None else None,
            "closest": {"step": self.closest[0], "body": self.closest[1], "to": self.closest[2]} if self.closest else None,
            "proven": all(m.proven for m in self.motions),
            "body_model": self.body_model,
        }
        return out
