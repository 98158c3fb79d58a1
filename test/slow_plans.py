"""Plans whose verification is really slow: for the time budget, the drain and cancellation tests (no test hook in the node)."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def large_plan(max_bytes: int = 400_000) -> str:
    """A correct pick-and-place program, its motions repeated up to `max_bytes` (under the 1 MiB plan limit).

    Every line is a real motion the execution level simulates, so verifying it
    takes seconds (about 5 ms per motion here; 400 KB: some 15 s): a slow verification without any
    test hook in the node.
    """
    text = (EXAMPLES / "pick_and_place.tdl").read_text(encoding="utf-8")
    head = text[: text.index("GOAL Execute_Process() {")]
    body = text[text.index("GOAL Execute_Process() {"):].split("\n", 1)[1]
    motions = [line for line in body[: body.index("}")].splitlines() if "SPAWN" in line]
    tail = "    SPAWN End() WITH WAIT;\n}\n"
    lines = [head, "GOAL Execute_Process() {\n"]
    size = sum(len(part) for part in lines) + len(tail)
    index = 0
    while size + len(motions[index % len(motions)]) + 1 < max_bytes:
        line = motions[index % len(motions)] + "\n"
        lines.append(line)
        size += len(line)
        index += 1
    return "".join(lines) + tail
