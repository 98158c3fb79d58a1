"""Running a job: one step after the other, waiting out each step's duration on a given clock.

The waiting is the caller's (`sleep` returns False when it was interrupted,
e.g. by a shutdown), so the same walk runs against wall time, ROS time or
simulated time (/clock). `report` hears about every step start and end; the
robot state changes only when a step has finished.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from plan_verifier.executor.job import Job, RobotPose, Segment

STARTED, FINISHED, SUCCEEDED, ABORTED = "started", "finished", "succeeded", "aborted"


@dataclass(frozen=True)
class Progress:
    event: str  # started | finished | succeeded | aborted
    job: Job
    segment: Segment | None  # the step concerned (None for succeeded with no steps)
    state: RobotPose  # the robot state at this moment
    planned_elapsed_s: float  # sum of the durations of the steps finished so far


def run_job(job: Job, start: RobotPose, *, sleep: Callable[[float], bool], report: Callable[[Progress], None]) -> RobotPose:
    """Walk the job; returns the robot state it ends in (the last finished step's when aborted)."""
    state, elapsed = start, 0.0
    for segment in job.segments:
        report(Progress(STARTED, job, segment, state, elapsed))
        if not sleep(segment.duration_s):
            report(Progress(ABORTED, job, segment, state, elapsed))
            return state
        state, elapsed = segment.after, elapsed + segment.duration_s
        report(Progress(FINISHED, job, segment, state, elapsed))
    report(Progress(SUCCEEDED, job, job.segments[-1] if job.segments else None, state, elapsed))
    return state
