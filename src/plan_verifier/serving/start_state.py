"""Where the robot starts: request fields, else ~/robot_state, else robot_state.db, else the cell.

Its joints (the execution level's start configuration) come from the latest
/joint_states reading (`serving.joint_states`) when it is fresh enough, else the
execution level starts at the start position (else the spec's home joints).

Each field (position, tool) is taken from the first source that has it, in
this order: the request, the latest robot-state message, seed 003's
`robot_state.db` (SQLite, one row with `current_position`/`current_tool`,
read per verification because the executor updates it), and finally the
cell's initial state, which the pipeline fills in. A configured state
database that cannot be read is an error, never a silent fall-through: the
start state decides which moves are legal.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from plan_verifier.graph.model import NO_TOOL
from plan_verifier.serving.joint_states import JointReading, fresh

_COLUMNS = ("current_position", "current_tool")


class StateDbError(Exception):
    """The configured robot_state.db could not be read."""


@dataclass(frozen=True)
class StartChoice:
    position: str | None
    tool: str | None
    position_source: str  # request | robot_state | robot_state_db | cell
    tool_source: str
    joints_deg: tuple[float, ...] | None = None  # the robot's joints from /joint_states, when fresh
    joints_source: str | None = None  # joint_states

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"position": self.position, "position_source": self.position_source, "tool": self.tool,
                                  "tool_source": self.tool_source}
        if self.joints_deg is not None:
            out.update(joints_deg=[round(v, 3) for v in self.joints_deg], joints_source=self.joints_source)
        return out


class StartStateSource:
    """Thread-safe holder of the latest robot state; resolves the start state per request."""

    def __init__(self, db_path: str | Path | None = None, *, joints_max_age_s: float = 1.0) -> None:
        self._db_path = Path(db_path) if db_path else None
        self._lock = threading.Lock()
        self._latest: tuple[str | None, str | None] = (None, None)
        self._joints: JointReading | None = None
        self._joints_max_age_s = joints_max_age_s

    def observe_joints(self, reading: JointReading) -> None:
        """Record a /joint_states reading (the newest by stamp wins: a late, older message does not replace it)."""
        with self._lock:
            if self._joints is None or reading.stamp_ns >= self._joints.stamp_ns:
                self._joints = reading

    def observe(self, position: str, tool: str) -> None:
        """Record a ~/robot_state message; empty fields mean "unknown"."""
        with self._lock:
            self._latest = (position.strip() or None, tool.strip() or None)

    def resolve(self, position: str | None, tool: str | None, *, now_ns: int | None = None) -> StartChoice:
        """The start for one request; `now_ns` (the node's clock) decides whether the joint reading is fresh."""
        fields = {"position": (position, "request"), "tool": (tool, "request")}
        with self._lock:
            latest = self._latest
            joints = fresh(self._joints, now_ns, self._joints_max_age_s) if now_ns is not None else None
        for name, value in zip(("position", "tool"), latest):
            if fields[name][0] is None and value is not None:
                fields[name] = (value, "robot_state")
        if self._db_path is not None and (fields["position"][0] is None or fields["tool"][0] is None):
            db_position, db_tool = read_state_db(self._db_path)
            for name, value in (("position", db_position), ("tool", db_tool)):
                if fields[name][0] is None and value:
                    fields[name] = (value, "robot_state_db")
        for name in fields:
            if fields[name][0] is None:
                fields[name] = (None, "cell")
        return StartChoice(fields["position"][0], fields["tool"][0], fields["position"][1], fields["tool"][1],
                           joints.joints_deg if joints is not None else None, "joint_states" if joints is not None else None)


def read_state_db(path: Path) -> tuple[str | None, str | None]:
    """(current_position, current_tool) from the single row of the state table."""
    if not path.is_file():
        raise StateDbError(f"robot state database {path} does not exist")
    try:
        with closing(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=1.0)) as db:
            table = _state_table(db)
            if table is None:
                raise StateDbError(f"robot state database {path} has no table with columns current_position and current_tool")
            quoted = table.replace('"', '""')
            row = db.execute(f'SELECT current_position, current_tool FROM "{quoted}" ORDER BY rowid DESC LIMIT 1').fetchone()
    except sqlite3.Error as exc:
        raise StateDbError(f"robot state database {path}: {exc}") from None
    if row is None:
        raise StateDbError(f"robot state database {path}: the state table is empty")
    position, tool = (str(v).strip() if v is not None else None for v in row)
    return position or None, tool or NO_TOOL


def _state_table(db: sqlite3.Connection) -> str | None:
    """The first table holding both state columns (the seed does not name the table)."""
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in tables:
        columns = {r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (table,))}
        if set(_COLUMNS) <= columns:
            return table
    return None
