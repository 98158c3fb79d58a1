"""The audit log: one JSON line per answered request, durable before the answer leaves.

Files are `<dir>/verify_YYYYMMDD.jsonl` (UTC date, seed 003's naming). Each
record is written with a single `write` of the complete line and then
fsync'ed, under a lock, before the service answers; so every answered request
has its line, and a crash can at most leave one incomplete line at the end of
the file (a request that was never answered). When a file is opened again,
such an incomplete tail is cut off so that the next record starts on a line
of its own and every line stays parseable.

Lines are ASCII JSON (non-ASCII escaped), so no Unicode line separator can
split a record for readers that split on more than "\\n". Records carry the
report and request metadata, never the plan text (only its sha256 and size)
and never credentials.

`recent_decisions` reads the newest records back (newest first, a bounded
number of bytes from the end of the newest files), parsing only the head of
each line where the decision is: a restarted node learns from it which
tasks were approved or handed to the fallback, and how many attempts the
others have used.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

FILE_PREFIX = "verify_"


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class AuditLog:
    def __init__(self, directory: str | Path, *, clock: Callable[[], dt.datetime] = utc_now) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        if not os.access(self.directory, os.W_OK):
            raise PermissionError(f"audit log directory {self.directory} is not writable")
        self._clock = clock
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._day: str | None = None
        #: Bytes of incomplete records cut off when files were opened (a crash left them).
        self.repaired_bytes = 0
        with self._lock:
            self._file_for(self._clock().date())

    def path_for(self, day: dt.date) -> Path:
        return self.directory / f"{FILE_PREFIX}{day:%Y%m%d}.jsonl"

    def append(self, record: Mapping[str, Any]) -> None:
        """Write one record durably; raises OSError when it could not be written."""
        line = (json.dumps(record, ensure_ascii=True, separators=(",", ":"), default=str) + "\n").encode("ascii")
        with self._lock:
            fd = self._file_for(self._clock().date())
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
                self._day = None

    def _file_for(self, day: dt.date) -> int:
        key = f"{day:%Y%m%d}"
        if self._fd is not None and self._day == key:
            return self._fd
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        path = self.path_for(day)
        self.repaired_bytes += cut_incomplete_tail(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        self._day = key
        return self._fd


def cut_incomplete_tail(path: Path) -> int:
    """Drop bytes after the last newline (a record cut short by a crash); returns how many."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with open(path, "r+b") as handle:
        position = size
        chunk = 64 * 1024
        while position > 0:
            start = max(0, position - chunk)
            handle.seek(start)
            data = handle.read(position - start)
            newline = data.rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        else:
            keep = 0
        if keep == size:
            return 0
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
        return size - keep


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every complete record of one audit file (an incomplete last line is skipped)."""
    records = []
    with open(path, "rb") as handle:
        for raw in handle:
            if raw.endswith(b"\n"):
                records.append(json.loads(raw))
    return records


@dataclass(frozen=True)
class Decision:
    """What one record says about its task (see `recent_decisions`)."""

    correlation_id: str
    attempt: int | None  # counted by the node; None when the request was not verified
    approved: bool  # approved now, or refused because it had been (its approval's attempt and sha256)
    fallback: bool  # this rejection handed the task to the fallback, or the task was found handed over
    sha256: str


_CHUNK = 1 << 20
_SHA256 = re.compile(rb',"actions_sha256":"([0-9a-f]{64})"')


def recent_decisions(directory: Path, max_bytes: int) -> Iterator[Decision]:
    """Decisions of the newest records first, reading at most `max_bytes` from the ends of the newest files.

    Only the head of a line is parsed (every key before `error_msg`, which the
    service writes first), so a record's report costs nothing but reading.
    Records of older versions (without `decision`) are read from
    `validation_result`, `fallback` and `error_code`. Unreadable lines are
    skipped.
    """
    budget = max_bytes
    for path in sorted(Path(directory).glob(f"{FILE_PREFIX}*.jsonl"), reverse=True):
        with open(path, "rb") as handle:
            position = handle.seek(0, os.SEEK_END)
            tail = b""
            while position > 0 and budget > 0:
                size = min(_CHUNK, position, budget)
                position -= size
                budget -= size
                handle.seek(position)
                lines = (handle.read(size) + tail).split(b"\n")
                tail = lines[0] if position > 0 else b""
                for line in reversed(lines if position == 0 else lines[1:]):
                    decision = _decision(line)
                    if decision is not None:
                        yield decision
        if budget <= 0:
            return


def _decision(line: bytes) -> Decision | None:
    end = line.find(b',"error_msg":')
    if end < 0:
        return None
    try:
        head = json.loads(line[:end] + b"}")
        cid = head["correlation_id"]
    except (ValueError, KeyError, TypeError):
        return None
    decision = head.get("decision")
    if decision is None:  # a record written before decisions were
        verified = head.get("error_code") == "NONE"
        decision = ("approved" if head.get("validation_result") == "pass" else "rejected") if verified else str(head.get("error_code", "")).lower()
    sha = _SHA256.search(line, end)
    approved = decision in ("approved", "already_approved")
    return Decision(cid, head.get("attempt"), approved, bool(head.get("fallback")) or decision == "attempts_exhausted",
                    sha.group(1).decode("ascii") if approved and sha else "")
