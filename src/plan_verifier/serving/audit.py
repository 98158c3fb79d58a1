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
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable, Mapping

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
