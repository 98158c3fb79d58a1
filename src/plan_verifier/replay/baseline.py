"""Accepted replay results: a JSON baseline next to the bag.

After an intended change (a tighter limit, a new rule, an edited cell) the
recorded answers are no longer what the verifier should say; `replay
--accept` stores the new answers as `<bag>.baseline.json`, and later replays
compare with it instead of the recording. The file names the requests it
belongs to (a hash over every request's fields), so a baseline is never
applied to another bag; it records which verifier, robot and graph produced
it. Written atomically.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Sequence

from plan_verifier.actions import write_atomic
from plan_verifier.replay.answer import Answer
from plan_verifier.replay.traffic import RecordedRequest
from plan_verifier.report import VERIFIER_ID

FORMAT = "plan_verifier/replay-baseline"
VERSION = 1


class BaselineError(Exception):
    """The baseline file cannot be used for this bag; one line for the user."""


def default_path(bag: str | os.PathLike[str]) -> Path:
    """`runs/bag1` -> `runs/bag1.baseline.json` (a sibling, so the bag directory stays what rosbag2 wrote)."""
    return Path(str(bag).rstrip("/") + ".baseline.json")


def requests_fingerprint(requests: Sequence[RecordedRequest]) -> str:
    """sha256 over every request's fields in bag order (the plan by its own sha256)."""
    digest = hashlib.sha256()
    for r in requests:
        q = r.request
        fields = [r.source, q.correlation_id, hashlib.sha256(q.plan.encode("utf-8", "surrogatepass")).hexdigest(), q.plan_format,
                  q.instruction, q.level, q.attempt, q.start_position, q.start_tool]
        digest.update(json.dumps(fields, ensure_ascii=True).encode("ascii") + b"\n")
    return digest.hexdigest()


def write(path: Path, *, bag: str, requests: Sequence[RecordedRequest], answers: Sequence[Answer | None], robot: str,
          graph_fingerprint: str | None) -> None:
    document = {
        "format": FORMAT,
        "version": VERSION,
        "bag": bag,
        "requests": len(requests),
        "requests_sha256": requests_fingerprint(requests),
        "accepted": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "verifier_id": VERIFIER_ID,
        "robot": robot,
        "graph_fingerprint": graph_fingerprint,
        "answers": [a.to_dict() if a is not None else None for a in answers],
    }
    write_atomic(path, json.dumps(document, ensure_ascii=False, indent=1) + "\n")


def load(path: Path, requests: Sequence[RecordedRequest]) -> tuple[list[Answer | None], dict[str, Any]]:
    """The accepted answers, one per request, and the file's metadata."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"{path}: not a replay baseline (invalid JSON: {exc})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT or document.get("version") != VERSION:
        raise BaselineError(f"{path}: not a replay baseline (format {FORMAT} version {VERSION})")
    if document.get("requests_sha256") != requests_fingerprint(requests):
        raise BaselineError(f"{path}: the baseline belongs to other requests ({document.get('requests')} requests, "
                            f"the bag has {len(requests)}); replay without it or accept again")
    try:
        answers = [Answer.from_dict(a) if a is not None else None for a in document["answers"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise BaselineError(f"{path}: damaged baseline ({exc.__class__.__name__}: {exc})") from None
    if len(answers) != len(requests):
        raise BaselineError(f"{path}: damaged baseline ({len(answers)} answers for {len(requests)} requests)")
    meta = {k: document.get(k) for k in ("accepted", "verifier_id", "robot", "graph_fingerprint")}
    return answers, meta
