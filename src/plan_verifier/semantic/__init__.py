"""The semantic stage's readers (level FULL): what the instruction asks and what the program does.

* `instruction.py` (with `english.py` and `korean.py`): the instruction as an
  ordered list of tasks — action, object and its attributes, source,
  destination, manner — plus the objects it excludes and whether it fixes the
  order. English is lemmatised (lemminflect), Korean analysed into morphemes
  (Kiwi); `vocabulary.py` holds the meanings (`data/semantic_lexicon.yaml`).
* `program.py`: the plan as transfers (grasp here, release there), visits,
  routines and speeds, with the names, comments and coordinates that say so.
* `grounding.py`: which transfer carries out which task, and per aspect
  whether the two agree, disagree or cannot be compared.
* `llm.py` / `prompts.py`: the optional model review (seed 000 §2.2's two stages).

They produce facts; the R-SEM rules (`rules/sem/`) judge them. Nothing here
imports the rule context: `RuleContext` calls these readers, never the reverse.
"""
