"""Benchmark the semantic stage: what level FULL with rule_check adds to a ~100-command verification.

Not a test: it prints figures for the docs. Two programs, each with a
matching instruction that names every object and place:

* `positional`: the corpus's positional dialect, poses in Assign'ed variables
  named after object and place, no comments (10 commands per pick-and-place
  cycle, 10 cycles);
* `commented`: the NLTDL dialect, named arguments, inline PosX targets and a
  comment on every step, so every object and place must be read from the
  comments (the most text the semantic stage ever reads per step).

Each round verifies the program once at STANDARD and once at FULL, in
alternating order; the figure is the median of the per-round differences.
"cold" clears every semantic cache before each FULL run (a new plan and a new
instruction every time); "warm" keeps them (the same plan and instruction
verified again, as in a retry).

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
from plan_verifier.semantic import lexicon as lexicon_module, plan_view  # noqa: E402
from plan_verifier.semantic.instruction import read_instruction, text_mentions  # noqa: E402
from plan_verifier.semantic.lexicon import identifier_words  # noqa: E402

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


def positional() -> tuple[str, str]:
    cycles, parts = [], []
    for i in range(10):
        noun, a, b = (NOUNS + ("bottle", "battery"))[i], LETTERS[2 * i], LETTERS[2 * i + 1]
        cycles.append(CYCLE.format(noun=noun, a=a, b=b, x=400 + 10 * i, y=-300 + 30 * i, x2=560 - 10 * i, y2=300 - 30 * i))
        parts.append(f"move the {noun} from {a} to {b}")
    text = "GOAL Execute_Process() {\n" + "".join(cycles) + "    SPAWN End() WITH WAIT;\n}\n"
    return text, "First, " + ". Then ".join(parts)


def commented() -> tuple[str, str]:
    transfers = []
    for i, noun in enumerate(NOUNS):
        source = Spot(LETTERS[2 * i], (400.0 + 25 * i, -300.0 + 40 * i, 20.0))
        destination = Spot(LETTERS[2 * i + 1], (560.0 - 10 * i, 300.0 - 40 * i, 20.0))
        transfers.append(Transfer(Item(noun), source, destination))
    task = TdlTask("multi_pick_place", transfers=tuple(transfers), return_home=True)
    text = render(build_program(task), Style("named_inline"))
    instruction = "First, " + ". Then ".join(
        f"move the {t.item.noun} from {t.source.label} to {t.destination.label}" for t in transfers) + ", and return home"
    return text, instruction


def clear_caches() -> None:
    for cached in (read_instruction, text_mentions, identifier_words, lexicon_module._latin_words,
                   plan_view._identifier_nouns, plan_view._identifier_labels):
        cached.cache_clear()


def one(verifier: Verifier, text: str, level: str, instruction: str | None) -> tuple[float, float]:
    gc.collect()
    t0 = time.perf_counter()
    report = verifier.verify(text, level=level, instruction=instruction)
    elapsed = (time.perf_counter() - t0) * 1000
    assert report.verdict != "FAIL", [f.message for f in report.findings]
    return elapsed, report.timings_ms.get("semantic", 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    verifier = Verifier("ur10e")
    for name, (text, instruction) in (("positional", positional()), ("commented", commented())):
        commands = len(verifier.verify(text).plan.steps)
        for _ in range(20):
            one(verifier, text, "FULL", instruction)
        for mode in ("cold", "warm"):
            deltas, standard, full, stage = [], [], [], []
            for n in range(args.rounds):
                if mode == "cold":
                    clear_caches()
                order = ("STANDARD", "FULL") if n % 2 else ("FULL", "STANDARD")
                got = {level: one(verifier, text, level, instruction if level == "FULL" else None) for level in order}
                standard.append(got["STANDARD"][0])
                full.append(got["FULL"][0])
                stage.append(got["FULL"][1])
                deltas.append(got["FULL"][0] - got["STANDARD"][0])
            print(f"{name:10} {commands} commands, {mode}: STANDARD median {statistics.median(standard):.3f} ms, "
                  f"FULL median {statistics.median(full):.3f} ms, added median {statistics.median(deltas):.3f} ms "
                  f"(semantic stage median {statistics.median(stage):.3f} ms, p95 {sorted(stage)[int(0.95 * len(stage)) - 1]:.3f} ms)")


if __name__ == "__main__":
    main()
