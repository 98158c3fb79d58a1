"""The audit log: one durable JSON line per record, daily files, crash-safe tail."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import threading

import pytest

from plan_verifier.serving.audit import AuditLog, cut_incomplete_tail, read_records, recent_decisions

DAY = dt.datetime(2026, 3, 14, 23, 59, 59, tzinfo=dt.timezone.utc)


def test_records_are_single_ascii_json_lines_named_by_utc_date(tmp_path):
    log = AuditLog(tmp_path / "logs" / "verification", clock=lambda: DAY)
    log.append({"correlation_id": "a", "text": "용접기\u2028line\nbreak"})
    log.close()
    path = tmp_path / "logs" / "verification" / "verify_20260314.jsonl"
    raw = path.read_bytes()
    assert raw.count(b"\n") == 1 and raw.isascii()
    assert read_records(path) == [{"correlation_id": "a", "text": "용접기\u2028line\nbreak"}]


def test_a_new_day_starts_a_new_file(tmp_path):
    now = [DAY]
    log = AuditLog(tmp_path, clock=lambda: now[0])
    log.append({"n": 1})
    now[0] = DAY + dt.timedelta(seconds=2)
    log.append({"n": 2})
    log.close()
    assert [r["n"] for r in read_records(tmp_path / "verify_20260314.jsonl")] == [1]
    assert [r["n"] for r in read_records(tmp_path / "verify_20260315.jsonl")] == [2]


def test_concurrent_appends_never_interleave(tmp_path):
    log = AuditLog(tmp_path, clock=lambda: DAY)
    payload = "x" * 5000

    def worker(w):
        for i in range(50):
            log.append({"worker": w, "i": i, "payload": payload})

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    records = read_records(tmp_path / "verify_20260314.jsonl")
    assert len(records) == 400
    assert sorted((r["worker"], r["i"]) for r in records) == [(w, i) for w in range(8) for i in range(50)]


def test_an_incomplete_tail_left_by_a_crash_is_cut_when_the_file_is_reopened(tmp_path):
    path = tmp_path / "verify_20260314.jsonl"
    path.write_bytes(b'{"n":1}\n{"n":2}\n{"n":3, "cut sh')
    log = AuditLog(tmp_path, clock=lambda: DAY)
    log.append({"n": 4})
    log.close()
    assert log.repaired_bytes == len(b'{"n":3, "cut sh')
    assert [r["n"] for r in read_records(path)] == [1, 2, 4]
    assert all(json.loads(line) for line in path.read_text().splitlines())


@pytest.mark.parametrize("content, kept", [(b"", b""), (b"partial", b""), (b'{"a":1}\n', b'{"a":1}\n'), (b"x" * 100_000 + b"\n" + b"y" * 70_000, b"x" * 100_000 + b"\n")])
def test_cut_incomplete_tail(tmp_path, content, kept):
    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    assert cut_incomplete_tail(path) == len(content) - len(kept)
    assert path.read_bytes() == kept


def test_a_directory_that_cannot_be_created_is_refused(tmp_path):
    blocker = tmp_path / "logs"
    blocker.write_text("a file where the directory should be")
    with pytest.raises(OSError):
        AuditLog(blocker / "verification")


def test_kill_during_heavy_logging_leaves_every_complete_line_parseable(tmp_path):
    """A writer process killed with SIGKILL mid-stream; then a new writer appends cleanly."""
    script = (
        "import sys; from plan_verifier.serving.audit import AuditLog\n"
        "log = AuditLog(sys.argv[1])\n"
        "i = 0\n"
        "while True:\n"
        "    log.append({'i': i, 'payload': 'z' * 20000}); i += 1\n"
        "    if i == 20: print('ready', flush=True)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"ready"
    finally:
        proc.kill()
        proc.wait()
    (path,) = tmp_path.glob("verify_*.jsonl")
    lines = path.read_bytes().split(b"\n")
    complete, tail = lines[:-1], lines[-1]
    assert len(complete) >= 20
    assert [json.loads(line)["i"] for line in complete] == list(range(len(complete)))
    log = AuditLog(tmp_path)
    log.append({"i": "after restart"})
    log.close()
    records = read_records(path)
    assert records[-1] == {"i": "after restart"} and len(records) == len(complete) + 1
    assert path.read_bytes().endswith(b"\n") and (tail == b"" or log.repaired_bytes == len(tail))


def test_recent_decisions_read_the_newest_records_first_within_a_byte_budget(tmp_path):
    now = [DAY]
    log = AuditLog(tmp_path, clock=lambda: now[0])
    report = {"findings": [{"message": '"error_msg":' + "x" * 5000}]}  # the report is never parsed, whatever it holds
    rows = [("a", "rejected", 1, False, None), ("a", "approved", 2, False, "ab" * 32), ("b", "fallback", 3, True, None)]
    for cid, decision, attempt, fallback, sha in rows:
        log.append({"time": "t", "correlation_id": cid, "decision": decision, "attempt": attempt, "fallback": fallback, "error_code": "NONE",
                    "error_msg": "", "actions_sha256": sha, "report": report})
    now[0] = DAY + dt.timedelta(days=1)  # the next day's file is read first
    log.append({"correlation_id": "a", "decision": "already_approved", "attempt": 2, "fallback": False, "error_code": "ALREADY_APPROVED",
                "error_msg": "task 'a' was already approved", "actions_sha256": "ab" * 32, "report": None})
    # A record of a version before decisions were written: read from validation_result and error_code.
    log.append({"correlation_id": "old", "attempt": 1, "fallback": False, "validation_result": "pass", "error_code": "NONE",
                "error_msg": "", "actions_sha256": "cd" * 32})
    log.close()
    newest_first = list(recent_decisions(tmp_path, 1 << 20))
    assert [(d.correlation_id, d.attempt, d.approved, d.fallback, d.sha256) for d in newest_first] == [
        ("old", 1, True, False, "cd" * 32), ("a", 2, True, False, "ab" * 32), ("b", 3, False, True, ""), ("a", 2, True, False, "ab" * 32),
        ("a", 1, False, False, "")]
    newest = (tmp_path / "verify_20260315.jsonl").stat().st_size
    assert [d.correlation_id for d in recent_decisions(tmp_path, newest)] == ["old", "a"]  # the budget: only the newest file
    assert [d.correlation_id for d in recent_decisions(tmp_path, newest - 1)] == ["old"]  # a line cut by the budget is not read
