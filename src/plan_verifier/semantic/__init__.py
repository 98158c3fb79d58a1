"""The semantic stage's readers (level FULL): what the instruction asks and what the program does.

* `instruction.py` (with `english.py`, `english_phrases.py`, `english_constructions.py` and
  `korean.py`): the instruction as an ordered list of tasks — action, object and its
  attributes, source, destination, manner — plus the objects and places it excludes and
  whether it fixes the order. English is lemmatised (lemminflect), Korean analysed into
  morphemes (Kiwi); `vocabulary.py` holds the meanings and the constructions
  (`data/semantic_lexicon.yaml`); `manner.py` reads a manner adverb no verb took
  ("A → B, quickly please").
* `places.py`: place identity — a place is kind + designators + free words, and two
  mentions relate as the same place, another kind, another designator, other words, or
  not comparably; `matching.py` says which words correspond (lemma, abbreviation,
  compound, Hangul loanword).
* `program.py` (facts in `activity.py`, evidence from names and texts in `names.py`): the
  plan as transfers (grasp here, release there), visits, routines and speeds, with the
  names, comments and coordinates that say so.
* `grounding.py`: which transfer carries out which task, and per aspect a neutral
  relation between what the instruction says and what the program says.
* `llm.py` / `prompts.py`: the optional model review (seed 000 §2.2's two stages).

They produce facts; the R-SEM rules (`rules/sem/`, with `_evidence.py` for how sure a
relation makes them) judge them. Nothing here imports the rule context: `RuleContext`
calls these readers, never the reverse.
"""
