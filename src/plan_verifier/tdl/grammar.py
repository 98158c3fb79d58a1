"""`tdl.lark` compiled into plain tables for the reader, once per grammar.

The grammar file is the single source of truth for the syntax. lark compiles
it (LALR(1), basic lexer); this module then derives what the reader needs as
plain Python values:

* the parse table as one dict per state, `{symbol id: action}` with small
  ints (`action >= 0`: shift or goto that state; `action < 0`: reduce by
  rule `~action`), so the parse loop does one C-level dict lookup per step
  instead of hashing lark's `Token`/`Rule` objects;
* the rules as `(left-hand symbol id, length, shape)`;
* for every state, the terminal names lark would list as expected there
  (error messages quote them);
* two scanners built from the terminal definitions in lark's own order of
  precedence: `fast` (one `findall` over the whole text, used when the text
  is well-formed) and the `careful` pieces (the `skipper`, then one token
  in named groups, matched position by position to locate bad characters
  and an unclosed HEADER). Ignorable text is skipped possessively: a
  comment is never given back to make a token out of its last characters.

The derived tables are kept as JSON in a private per-user cache directory,
keyed by the grammar text and this module's source, so a process that finds
them never imports lark (compiling and deriving costs ~45 ms of every
`plan-verify` start); any change to either recompiles.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from importlib import resources

from plan_verifier.resources import derived

#: Symbol id of the end of input in `Grammar.table`.
END = "$END"


@dataclass(frozen=True, slots=True)
class RuleShape:
    """A grammar rule as lark expanded it: `origin: expansion` (with lark's alias, if any)."""

    origin: str
    alias: str | None
    expansion: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Grammar:
    symbols: dict[str, int]  # terminal and nonterminal names -> ids
    table: tuple[dict[int, int], ...]
    expected: tuple[frozenset[str], ...]
    rules: tuple[tuple[int, int, RuleShape], ...]  # (lhs id, length, shape)
    start_state: int
    end_state: int
    keywords: dict[str, str]  # keyword text -> terminal name (keywords are scanned as NAME)
    skipper: re.Pattern  # ignorable text only, possessively
    fast: re.Pattern  # (ignorable text)(one token, one character no terminal accepts, or the end), for findall
    classify: re.Pattern  # one token, named group per terminal (to type tokens, and the careful scan)
    #: Token texts typed so far: terminal id, or None for a text only the careful scanner may type.
    token_kinds: dict[str, int | None] = field(default_factory=dict)
    #: Statement shapes (parser states, token kinds) -> straight-line code that feeds them (parser.py), or False.
    segments: dict[tuple, object] = field(default_factory=dict)
    #: Statement shapes seen once (compiled when seen again).
    sightings: set[tuple] = field(default_factory=set)


def _without_captures(regex: str) -> str:
    """`regex` with its capturing groups made non-capturing (so `findall` returns only our two groups)."""
    out: list[str] = []
    i, n, in_class = 0, len(regex), False
    while i < n:
        c = regex[i]
        if c == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            for literal in ("^", "]"):  # a leading ^ negates, a ] right after it is a literal
                if regex.startswith(literal, i):
                    out.append(literal)
                    i += 1
            continue
        elif c == "(" and not regex.startswith("?", i + 1):
            out.append("(?:")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)



@functools.cache
def grammar() -> Grammar:
    """The reader's tables for `tdl.lark` (derived once per grammar, loaded once per process)."""
    text = resources.files("plan_verifier.tdl").joinpath("tdl.lark").read_text(encoding="utf-8")
    tables = derived("tdl-tables", text, __file__, _derive)
    return _load(tables)


def _load(tables: dict) -> Grammar:
    return Grammar(
        symbols=tables["symbols"],
        table=tuple({int(k): v for k, v in row} for row in tables["table"]),
        expected=tuple(frozenset(names) for names in tables["expected"]),
        rules=tuple((lhs, size, RuleShape(origin, alias, tuple(expansion))) for lhs, size, origin, alias, expansion in tables["rules"]),
        start_state=tables["start_state"],
        end_state=tables["end_state"],
        keywords=tables["keywords"],
        skipper=re.compile(tables["skipper"]),
        fast=re.compile(tables["fast"]),
        classify=re.compile(tables["classify"]),
    )


def _terminal_sort_key(term) -> tuple:
    # The order lark's own basic lexer uses, so both agree on every input.
    return (-term.priority, -term.pattern.max_width, -len(term.pattern.value), term.name)


def _derive(text: str) -> dict:
    """Compile the grammar with lark and derive the reader's tables (as JSON-able values)."""
    import lark

    parser = lark.Lark(text, parser="lalr", lexer="basic", maybe_placeholders=False)
    table = parser.parser.parser._parse_table

    symbols: dict[str, int] = {}

    def symbol(name) -> int:
        return symbols.setdefault(str(name), len(symbols))

    symbol(END)
    rule_ids: dict[object, int] = {}
    rules: list[tuple] = []
    rows: dict[int, list[tuple[int, int]]] = {}
    expected: dict[int, list[str]] = {}
    for state, actions in table.states.items():
        row: list[tuple[int, int]] = []
        for token, (action, arg) in actions.items():
            if action.name == "Shift":
                row.append((symbol(token), arg))
            else:
                if arg not in rule_ids:
                    rule_ids[arg] = len(rules)
                    rules.append((symbol(arg.origin.name), len(arg.expansion), str(arg.origin.name), str(arg.alias) if arg.alias else None,
                                  [str(s.name) for s in arg.expansion]))
                row.append((symbol(token), ~rule_ids[arg]))
        rows[state] = row
        expected[state] = sorted(str(token) for token in actions if str(token).isupper())

    name_re = re.compile(next(t for t in parser.terminals if t.name == "NAME").pattern.to_regexp())
    keywords: dict[str, str] = {}
    ignore: list[str] = []
    alternatives: list[tuple[str, str]] = []
    for term in sorted(parser.terminals, key=_terminal_sort_key):
        pattern = term.pattern
        if pattern.type == "str" and name_re.fullmatch(pattern.value):
            keywords[pattern.value] = term.name  # keywords are scanned as NAME, then retyped
        elif term.name in parser.lexer_conf.ignore:
            ignore.append(pattern.to_regexp())
        else:
            alternatives.append((term.name, pattern.to_regexp()))
        symbol(term.name)
    ignorable = "|".join(ignore)
    skipper = f"(?:{ignorable})*+"
    named = "|".join(f"(?P<{name}>{regex})" for name, regex in alternatives)
    plain = "|".join(_without_captures(regex) for _, regex in alternatives)
    states = range(max(rows) + 1)
    # Whitespace and comments are consumed in front of each token, so a scan runs once per token.
    return {
        "symbols": symbols,
        "table": [rows.get(s, []) for s in states],
        "expected": [expected.get(s, []) for s in states],
        "rules": rules,
        "start_state": table.start_states["start"],
        "end_state": table.end_states["start"],
        "keywords": keywords,
        "skipper": skipper,
        "fast": f"({_without_captures(skipper)})({plain}|(?!{_without_captures(ignorable)})[\\s\\S]|\\Z)",
        "classify": named,
    }
