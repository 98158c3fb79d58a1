"""Benchmark the semantic stage: what level FULL adds to a ~100-command verification.

Not a test: it prints figures for the docs. Two programs, each with a
matching instruction (English, and the same in Korean) that names every object and place:

* `positional`: the corpus's positional dialect, poses in Assign'ed variables
  named after object and place, no comments (10 commands per pick-and-place
  cycle, 10 cycles);
* `commented`: the NLTDL dialect, named arguments, inline PosX targets and a
  comment on every step, so every object and place must be read from the
  comments (the most text the semantic stage ever reads per step).

Each round verifies the program once at STANDARD (the floor, measured in the
same run) and once at FULL, in alternating order; the figure is the median of
the per-round differences. "cold" clears every semantic cache before each FULL
run (a new plan and a new instruction every time, language tools loaded);
"warm" keeps them (the same plan and instruction verified again, as in a
retry). Last, "first use" starts fresh processes and times the first English
and the first Korean verification at FULL, which load lemminflect and the Kiwi
model (the one-off cost a server pays at its first request, or at configure
with `plan_verifier.semantic.language.warm_korean()`).

Usage: .venv/bin/python benchmarks/bench_semantic.py [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from plan_verifier.evaluation.programs import Item, Spot, Style, TdlTask, Transfer, build_program, render  # noqa: E402
from plan_verifier.pipeline import Verifier  # noqa: E402
from plan_verifier.semantic import instruction as instruction_module, language, matching, names, places, program  # noqa: E402

NOUNS = ("box", "cube", "apple", "banana", "glass", "cup", "gear", "bolt")
LETTERS = "ABCDEFGHIJKLMNOPQRST"
CYCLE = """    SPAWN Assign({noun}_pick_{a}, PosX({x}, {y}, 60, 0, 180, 0)) WITH WAIT;
    SPAWN Assign({noun}_place_{b}, PosX({x2}, {y2}, 60, 0, 180, 0)) WITH WAIT;
    SPAWN MoveLinear({noun}_pick_{a}, 100, 100, 0, 0.0, None) WITH WAIT;
    SPAWN SetDigitalOutput(1, 1) WITH WAIT;
    SPAWN Delay(0.5) WITH WAIT;
    SPAWN MoveLinear({noun}_place_{b}, 100, 100, 0, 0.0, None) WITH WAIT;
    SPAWN SetDigitalOutput(1, 0) WITH WAIT;
    SPAWN Delay(0.5) WITH WAIT;
    SPAWN SetDigitalOutput(1, 0) WITH WAIT;
    SPAWN Delay(0.5) WITH WAIT;
"""


KOREAN = {"box": "박스", "cube": "큐브", "apple": "사과", "banana": "바나나", "glass": "유리컵", "cup": "컵", "gear": "기어", "bolt": "볼트",
          "bottle": "물병", "battery": "배터리"}


def positional() -> tuple[str, str, str]:
    cycles, parts, korean = [], [], []
    for i in range(10):
        noun, a, b = (NOUNS + ("bottle", "battery"))[i], LETTERS[2 * i], LETTERS[2 * i + 1]
        cycles.append(CYCLE.format(noun=noun, a=a, b=b, x=400 + 10 * i, y=-300 + 30 * i, x2=560 - 10 * i, y2=300 - 30 * i))
        parts.append(f"move the {noun} from {a} to {b}")
        korean.append(f"{KOREAN[noun]}를 {a}에서 {b}로 옮기")
    text = "GOAL Execute_Process() {\n" + "".join(cycles) + "    SPAWN End() WITH WAIT;\n}\n"
    return text, "First, " + ". Then ".join(parts), "먼저 " + "고, 그 다음 ".join(korean) + "어 줘"


def commented() -> tuple[str, str, str]:
    transfers = []
    for i, noun in enumerate(NOUNS):
        source = Spot(LETTERS[2 * i], (400.0 + 25 * i, -300.0 + 40 * i, 20.0))
        destination = Spot(LETTERS[2 * i + 1], (560.0 - 10 * i, 300.0 - 40 * i, 20.0))
        transfers.append(Transfer(Item(noun), source, destination))
    task = TdlTask("multi_pick_place", transfers=tuple(transfers), return_home=True)
    text = render(build_program(task), Style("named_inline"))
    instruction = "First, " + ". Then ".join(
        f"move the {t.item.noun} from {t.source.label} to {t.destination.label}" for t in transfers) + ", and return home"
    korean = "먼저 " + "고, 그 다음 ".join(f"{KOREAN[t.item.noun]}를 {t.source.label}에서 {t.destination.label}로 옮기" for t in transfers) \
        + "고 마지막으로 홈으로 돌아와"
    return text, instruction, korean


def clear_caches() -> None:
    """Forget every reading (the language tools stay loaded): a new plan and a new instruction."""
    for cached in (instruction_module.read_instruction, language.english_tokens, language.korean_morphs, language.verb_lemma,
                   language.noun_lemma, language.identifier_words, names.identifier_evidence, names.text_evidence, names.name_places,
                   names.name_objects, names.word_groups, places.relate, matching.same_word, matching.transliterates):
        cached.cache_clear()
    program.forget_programs()


def one(verifier: Verifier, text: str, level: str, instruction: str | None) -> tuple[float, float]:
    gc.collect()
    t0 = time.perf_counter()
    report = verifier.verify(text, level=level, instruction=instruction)
    elapsed = (time.perf_counter() - t0) * 1000
    assert report.verdict != "FAIL", [f.message for f in report.findings]
    return elapsed, report.timings_ms.get("semantic", 0.0)


FIRST_USE = """
import sys, time
sys.path.insert(0, {src!r})
from plan_verifier.pipeline import Verifier
verifier = Verifier("ur10e")
plan = open({plan!r}, encoding="utf-8").read()
verifier.verify(plan)
t0 = time.perf_counter()
verifier.verify(plan, level="FULL", instruction={instruction!r})
print((time.perf_counter() - t0) * 1000)
"""


def first_use(text: str, instruction: str) -> float:
    """ms of the first FULL verification in a new process (the language tools load then)."""
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".tdl", delete=False, encoding="utf-8") as handle:
        handle.write(text)
    code = FIRST_USE.format(src=str(ROOT / "src"), plan=handle.name, instruction=instruction)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    Path(handle.name).unlink()
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    verifier = Verifier("ur10e")
    programs = {"positional": positional(), "commented": commented()}
    for name, (text, english, korean) in programs.items():
        commands = len(verifier.verify(text).plan.steps)
        for language_name, instruction in (("en", english), ("ko", korean)):
            measure(verifier, f"{name}/{language_name}", text, commands, instruction, args.rounds)
    text, english, korean = programs["positional"]
    for language_name, instruction in (("en", english), ("ko", korean)):
        runs = sorted(first_use(text, instruction) for _ in range(3))
        print(f"first use   positional/{language_name}: first FULL verification in a new process {runs[1]:.0f} ms (median of 3)")


def measure(verifier: Verifier, name: str, text: str, commands: int, instruction: str, rounds: int) -> None:
    for _ in range(20):
        one(verifier, text, "FULL", instruction)
    for mode in ("cold", "warm"):
        deltas, standard, full, stage = [], [], [], []
        for n in range(rounds):
            if mode == "cold":
                clear_caches()
            order = ("STANDARD", "FULL") if n % 2 else ("FULL", "STANDARD")
            got = {level: one(verifier, text, level, instruction if level == "FULL" else None) for level in order}
            standard.append(got["STANDARD"][0])
            full.append(got["FULL"][0])
            stage.append(got["FULL"][1])
            deltas.append(got["FULL"][0] - got["STANDARD"][0])
        print(f"{name:14} {commands} commands, {mode}: STANDARD median {statistics.median(standard):.3f} ms, "
              f"FULL median {statistics.median(full):.3f} ms, added median {statistics.median(deltas):.3f} ms "
              f"(semantic stage median {statistics.median(stage):.3f} ms, p95 {sorted(stage)[int(0.95 * len(stage)) - 1]:.3f} ms)")


if __name__ == "__main__":
    main()
