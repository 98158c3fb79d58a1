"""Verification in worker processes: beside the executor, within a time budget, stoppable at any instant.

Why processes. A verification is CPU-bound Python (the execution level's
motion simulation: about 5 ms per motion, 40 s for a 1 MB program). In a
thread of the node's process it holds the interpreter lock against the ROS
executor and every other request, and nothing can stop it half-way: the core
has no cancellation points, and a check inside numpy or coal cannot be
interrupted at all. A worker process verifies on a core of its own and is
stopped by ending it (SIGKILL), whatever it is doing; the node's process only
checks requests, keeps the books (attempts, audit log) and talks ROS. That
gives the per-request time budget (`verify_timeout_s` -> TimedOut, and the
worker is replaced) and the cancellation on deactivate (`cancel_running`)
without touching the core. The cost is one pipe round trip per request (the
plan out, the report's dict back: well under a millisecond for 100-step
plans) and one warmed verifier per worker.

A worker is a fresh Python process (`python -c ...serve_stdio()`, the
node's interpreter and module path; never a fork of the node, whose DDS
threads make forking unsafe) that talks over its stdin and stdout with
pickled messages (`multiprocessing.connection`); its stderr is the node's.
It receives the settings, the robot spec the node resolved (whatever its
source; it must pickle) and the cell to serve (the embedded cell's content as
configure read it, so every worker serves exactly that cell, replacements
included), builds its Verifier, verifies the warm-up plans (`serving.warmup`)
and then one job at a time: `verify_job`, which turns a Report into the plain
`Verified` value that crosses the pipe. Starting one costs about a second of
imports plus the warm-up; a replacement starts in the background while the
other workers serve. A worker ends with the node: at EOF on its stdin, and
within a second of being orphaned even in the middle of a job.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from typing import Any, Mapping

from plan_verifier.actions import approved_yaml
from plan_verifier.findings import Category
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.graph.model import parse_cell
from plan_verifier.graph.open import open_graph
from plan_verifier.graph.port import GraphPort
from plan_verifier.pipeline import Verifier
from plan_verifier.report import Report
from plan_verifier.resources import ConfigError
from plan_verifier.robots.spec import RobotSpec
from plan_verifier.serving.cell_graph import CellGraph
from plan_verifier.serving.feedback import feedback_text
from plan_verifier.serving.settings import Settings
from plan_verifier.serving.warmup import warm_up_plans

log = logging.getLogger("plan_verifier.serving")

#: How long a new worker may take to build its verifier and warm up (the Korean model alone takes seconds).
START_TIMEOUT_S = 180.0
#: After a failed start, the next try of a replacement waits this long.
RESTART_DELAY_S = 2.0
#: A rejected plan is repaired within one answer only up to this many steps, and its candidates are verified for at most
#: this long (those after that are not verified; what is left is reported as not repaired).
REPAIR_MAX_STEPS = 400
REPAIR_SECONDS = 10.0
#: Less time than this left of the budget: no repair is tried.
REPAIR_MIN_SECONDS = 0.05
#: The budget of each warm-up plan's repair (the rejected ones are repaired, so the repair's code has run once).
WARM_UP_REPAIR_S = 4.0


# ----------------------------------------------------------------------------- values that cross the pipe


@dataclass(frozen=True)
class GraphSource:
    """Which cell graph a worker opens: the embedded cell's content as configure read it, or the settings' Neo4j graph."""

    cell: Mapping[str, Any] | None = None  # contract §4 cell-file dict (embedded backend)
    origin: str = ""  # its description (the cell file)
    neo4j: bool = False  # open settings.graph_uri
    fingerprint: str | None = None  # graph_fingerprint

    def open(self, settings: Settings) -> GraphPort | None:
        if self.cell is not None:
            port: GraphPort = EmbeddedGraph(parse_cell(dict(self.cell), self.origin), self.origin)
        elif self.neo4j:
            port = open_graph(uri=settings.graph_uri, user=settings.graph_user, database=settings.graph_database,
                              timeout_s=settings.graph_timeout_s)
        else:
            return None
        return CellGraph(port, self.fingerprint)


@dataclass(frozen=True)
class Job:
    """One verification, as the service resolved it."""

    correlation_id: str
    plan: str
    plan_format: str
    level: str
    instruction: str | None
    start_position: str | None
    start_tool: str | None
    start_joints: tuple[float, ...] | None
    start_joints_source: str
    timestamp: str | None  # the approved YAML's (node clock)
    #: Repair the plan if it is rejected (contract §8), finishing within this many seconds of the job's start (its time
    #: budget); 0 = do not repair.
    repair_within_s: float = 0.0


@dataclass(frozen=True)
class Verified:
    """What a verification produced, as plain data: the report's dict and what the node derives from the report."""

    report: Mapping[str, Any]  # Report.to_dict()
    feedback: str
    actions_yaml: str = ""
    sha256: str = ""
    step_count: int = 0
    graph_read: bool = False  # a cell snapshot was read (the graph is up)
    graph_down: str | None = None  # why the graph could not be read, if it could not
    repair: Mapping[str, Any] | None = None  # a rejected plan's repair (RepairResult.to_dict()), when the job asked for one
    #: Which worker verified it: pid, verifications it had done before (warm-up included), modules it imported meanwhile.
    worker: Mapping[str, Any] = field(default_factory=dict)


def verify_job(verifier: Verifier, job: Job) -> Verified:
    """Verify one job and derive what the node needs from the report (runs in the worker)."""
    started = time.monotonic()
    report = verifier.verify(job.plan, plan_format=job.plan_format, level=job.level, instruction=job.instruction,
                             start_position=job.start_position, start_tool=job.start_tool, start_joints=job.start_joints,
                             start_joints_source=job.start_joints_source)
    actions, sha = "", ""
    if report.approved:
        actions, sha = approved_yaml(report, correlation_id=job.correlation_id, robot=verifier.robot.name,
                                     graph_fingerprint=report.cell.fingerprint if report.cell is not None else None,
                                     timestamp=job.timestamp)
    down = report.could_not_run(Category.GRAPH)
    repair = None
    if job.repair_within_s > 0 and not report.approved:
        repair = _repair(verifier, job, report, deadline=started + job.repair_within_s)
    return Verified(report=report.to_dict(), feedback=feedback_text(report), actions_yaml=actions, sha256=sha,
                    step_count=len(report.plan.steps) if report.plan is not None else 0, graph_read=report.cell is not None,
                    graph_down=down.message if down is not None else None, repair=repair)


def _repair(verifier: Verifier, job: Job, report: Report, deadline: float) -> dict | None:
    """The repair of a rejected plan, verified with the job's inputs; None when the plan is too long to repair here, when
    too little of the time budget is left, or when the repair fails (logged: it never changes the verdict).

    Its candidates are verified for at most REPAIR_SECONDS and at most half of what is left of the job's time budget
    (the other half covers the candidate being verified when that runs out): a repair never turns a verdict into
    TOO_LARGE."""
    if report.plan is None or len(report.plan.steps) > REPAIR_MAX_STEPS:
        return None  # a program that long is rewritten by its planner, not repaired within one answer
    now = time.monotonic()
    seconds = min(REPAIR_SECONDS, (deadline - now) / 2.0)
    if seconds < REPAIR_MIN_SECONDS:
        log.warning("%s: not repaired: only %.2f s of verify_timeout_s left", job.correlation_id, max(0.0, deadline - now))
        return None
    from plan_verifier.repair import Verification, repair_plan

    try:
        verification = Verification(verifier, level=job.level, instruction=job.instruction, start_position=job.start_position,
                                    start_tool=job.start_tool, start_joints=job.start_joints,
                                    start_joints_source=job.start_joints_source, deadline=now + seconds)
        return repair_plan(job.plan, verification, job.plan_format).to_dict()
    except Exception:  # noqa: BLE001 - the rejection stands without its repair
        log.exception("repair of %s failed", job.correlation_id)
        return None


@dataclass(frozen=True)
class WarmUp:
    """What a worker verified before it took requests."""

    labels: tuple[str, ...]
    milliseconds: float
    sample: Verified | None  # one warm-up result, for the node to warm its own message conversion


# ----------------------------------------------------------------------------- the worker process


def _end_with_parent() -> None:
    """End this process within a second of its parent's end (a node killed with SIGKILL), even in the middle of a job.

    Not PR_SET_PDEATHSIG: that fires when the parent *thread* that started
    the worker ends, and replacements are started by short-lived threads.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent watch", daemon=True).start()


def serve_stdio() -> None:
    """The worker process's main: jobs in on stdin, results out on stdout (anything printed goes to stderr)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the node, which drains and then ends the workers
    _end_with_parent()
    inbox, outbox = Connection(os.dup(0), writable=False), Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # stray prints must not corrupt the protocol
    sys.stdout = sys.stderr
    try:
        settings, robot, graph = inbox.recv()
    except (EOFError, OSError):
        return
    _serve(inbox, outbox, settings, robot, graph)


def _serve(inbox: Connection, outbox: Connection, settings: Settings, robot: RobotSpec, graph: GraphSource) -> None:
    try:
        t0 = time.perf_counter()
        verifier = Verifier(robot, graph=graph.open(settings), profile=settings.profile, level=settings.level,
                            options=settings.verifier_options())
        cell = None
        if verifier.graph is not None:
            try:
                cell = verifier.graph.snapshot()
            except Exception:  # noqa: BLE001 - a graph that is down now still lets the TDL warm-up run
                cell = None
        labels, sample, done = [], None, 0
        for plan in warm_up_plans(robot, cell, settings.level):
            try:
                sample = verify_job(verifier, Job("warm-up", plan.plan, "auto", plan.level or settings.level, plan.instruction,
                                                  None, None, None, "request", None,
                                                  repair_within_s=WARM_UP_REPAIR_S if settings.repair_rejected else 0.0))
            except Exception as exc:
                raise RuntimeError(f"warm-up plan {plan.label!r} failed: {exc.__class__.__name__}: {exc}") from exc
            labels.append(plan.label)
            done += 1
        if settings.level == "FULL":
            from plan_verifier.semantic.language import warm_korean

            warm_korean()
        outbox.send(("ready", WarmUp(tuple(labels), (time.perf_counter() - t0) * 1000.0, sample)))
    except BaseException as exc:  # noqa: BLE001 - the node reports why the worker could not start
        outbox.send(("failed", f"{exc.__class__.__name__}: {exc}"))
        return
    while True:
        try:
            job = inbox.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        modules = set(sys.modules)
        try:
            result = verify_job(verifier, job)
        except Exception as exc:  # noqa: BLE001 - fail closed: the node answers ERROR_INTERNAL
            outbox.send(("error", f"{exc.__class__.__name__}: {exc}", traceback.format_exc()))
        else:
            outbox.send(("done", replace(result, worker={"pid": os.getpid(), "verifications_before": done,
                                                        "modules_loaded": sorted(set(sys.modules) - modules)[:20]})))
        done += 1


# ----------------------------------------------------------------------------- the pool, in the node's process


class NotAccepting(Exception):
    """The pool is held (the node is being deactivated) or closed: the job was not started."""


class TimedOut(Exception):
    """The job was not done within its time budget; its worker was ended."""


class Cancelled(Exception):
    """The job was stopped by `cancel_running`; the message says why."""


class WorkerFailed(Exception):
    """The worker raised (the message names the exception) or died (a crash, out of memory)."""


class _Worker:
    def __init__(self, process: subprocess.Popen, outbox: Connection, inbox: Connection) -> None:
        self.process = process
        self.outbox = outbox  # to the worker
        self.conn = inbox  # from the worker
        self.cancel_reason: str | None = None

    def send(self, message: Any) -> None:
        self.outbox.send(message)

    def kill(self) -> None:
        try:
            self.process.kill()
        except OSError:
            pass

    def end(self) -> None:
        """SIGKILL and reap (a worker is never asked twice)."""
        self.kill()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            log.error("verification worker %d did not end after SIGKILL", self.process.pid)
        self.outbox.close()
        self.conn.close()


class WorkerPool:
    """`size` warmed workers; `run` verifies one job on an idle one. Thread-safe."""

    def __init__(self, settings: Settings, robot: RobotSpec, graph: GraphSource, size: int) -> None:
        """Start the workers and wait until each has warmed up; ConfigError with the reason if one cannot start."""
        self._settings, self._robot, self._graph, self.size = settings, robot, graph, size
        self._cv = threading.Condition()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._accepting = True
        self._closed = False
        started = [self._spawn() for _ in range(size)]
        warm_ups: list[WarmUp] = []
        try:
            for worker in started:
                warm_ups.append(self._await_ready(worker))
        except BaseException:
            for worker in started:
                worker.end()
            raise
        self._idle.extend(started)
        #: The first worker's warm-up (what was verified, how long it took).
        self.warm_up = warm_ups[0]

    # ---------------------------------------------------------------- jobs
    def run(self, job: Job, timeout_s: float) -> Verified:
        """Verify `job` within `timeout_s` seconds; NotAccepting, TimedOut, Cancelled or WorkerFailed otherwise.

        The budget starts when a worker takes the job. A job waits for an idle
        worker (one is being replaced after a timeout or a cancellation) at
        most START_TIMEOUT_S: no worker at all is a WorkerFailed, never a hang.
        """
        with self._cv:
            if not self._cv.wait_for(lambda: self._idle or not self._accepting, START_TIMEOUT_S):
                raise WorkerFailed(f"no verification worker became available within {START_TIMEOUT_S:g} s (see the log)")
            if not self._accepting:
                raise NotAccepting()
            worker = self._idle.pop()
            self._busy.add(worker)
        try:
            worker.send(job)
            if not worker.conn.poll(timeout_s):
                raise TimedOut()
            message = worker.conn.recv()
        except TimedOut:
            self._lose(worker)
            raise
        except (EOFError, OSError) as exc:
            reason = worker.cancel_reason
            self._lose(worker)
            if reason is not None:
                raise Cancelled(reason) from None
            raise WorkerFailed(f"the verification worker ended unexpectedly ({_exit_text(worker.process)})") from exc
        self._release(worker)  # a job that finished as it was cancelled is still answered: its work is done
        if message[0] == "done":
            return message[1]
        log.error("verification worker %d raised while verifying %s:\n%s", worker.process.pid, job.correlation_id, message[2])
        raise WorkerFailed(message[1])

    def hold(self) -> None:
        """Start no more jobs: jobs waiting for a worker raise NotAccepting; running ones go on."""
        with self._cv:
            self._accepting = False
            self._cv.notify_all()

    def resume(self) -> None:
        with self._cv:
            if not self._closed:
                self._accepting = True

    def cancel_running(self, reason: str) -> int:
        """Stop every running job (its `run` raises Cancelled(reason)); returns how many."""
        with self._cv:
            running = list(self._busy)
            for worker in running:
                worker.cancel_reason = reason
        for worker in running:
            worker.kill()
        return len(running)

    @property
    def running(self) -> int:
        with self._cv:
            return len(self._busy)

    @property
    def ready(self) -> int:
        """Workers that can take a job or have one (the others are being replaced)."""
        with self._cv:
            return len(self._idle) + len(self._busy)

    def close(self) -> None:
        """End every worker (call after draining: running jobs are cancelled)."""
        with self._cv:
            self._closed = True
            self._accepting = False
            self._cv.notify_all()
            idle, self._idle = self._idle, []
        self.cancel_running("the verifier was closed")
        for worker in idle:
            worker.end()

    # ---------------------------------------------------------------- workers
    def _spawn(self) -> _Worker:
        """A new worker process, sent its configuration (it warms up and then says it is ready)."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # the node's module path, as it is now
        process = subprocess.Popen([sys.executable, "-c", "from plan_verifier.serving.workers import serve_stdio; serve_stdio()"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True)
        worker = _Worker(process, Connection(os.dup(process.stdin.fileno()), readable=False),
                         Connection(os.dup(process.stdout.fileno()), writable=False))
        process.stdin.close()
        process.stdout.close()
        try:
            worker.send((self._settings, self._robot, self._graph))
        except OSError:
            pass  # it died at once: _await_ready says so
        return worker

    def _await_ready(self, worker: _Worker) -> WarmUp:
        if not worker.conn.poll(START_TIMEOUT_S):
            raise ConfigError(f"a verification worker did not warm up within {START_TIMEOUT_S:g} s")
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            raise ConfigError(f"a verification worker ended while starting ({_exit_text(worker.process)})") from None
        if message[0] != "ready":
            raise ConfigError(f"a verification worker could not start: {message[1]}")
        return message[1]

    def _release(self, worker: _Worker) -> None:
        """Back to the idle workers, unless it was cancelled meanwhile (then it is being ended: replace it)."""
        with self._cv:
            if worker.cancel_reason is None and not self._closed:
                self._busy.discard(worker)
                self._idle.append(worker)
                self._cv.notify()
                return
        self._lose(worker)

    def _lose(self, worker: _Worker) -> None:
        """End a worker whose job did not finish, and start its replacement in the background."""
        with self._cv:
            self._busy.discard(worker)
            closed = self._closed
        worker.end()
        if not closed:
            threading.Thread(target=self._replace, name="plan_verifier worker start", daemon=True).start()

    def _replace(self) -> None:
        while True:
            with self._cv:
                if self._closed:
                    return
            worker = None
            try:
                worker = self._spawn()
                self._await_ready(worker)
            except Exception as exc:  # noqa: BLE001 - keep trying while the pool is open; the node serves with fewer workers
                log.error("a replacement verification worker could not start: %s", exc)
                if worker is not None:
                    worker.end()
                time.sleep(RESTART_DELAY_S)
                continue
            with self._cv:
                if self._closed:
                    worker.end()
                    return
                self._idle.append(worker)
                self._cv.notify()
            return


def _exit_text(process: subprocess.Popen) -> str:
    try:
        code = process.wait(1)
    except subprocess.TimeoutExpired:
        return "still running"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"

