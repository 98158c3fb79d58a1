"""TDL parsing: lark's LALR tables driven by a loop that recovers from errors.

The grammar (`tdl.lark`) is compiled by lark once per process. Its terminal
definitions also build the scanner, so the grammar file stays the single
source of truth. Tokens are fed to lark's `ParserState` one by one; when a
token is rejected the loop first tries a small repair (insert the missing `;`,
`WITH`, `)`, `}` ...) that lets parsing continue, and otherwise discards the
rest of the statement (panic mode) and resumes at the next statement. Every
problem is recorded as a `Diagnostic` tagged with the syntax rule that owns it,
so one missing `;` never hides the next error.

Syntax nodes are plain `Node` objects whose `start`/`end` are character
offsets; `SourceMap` turns them into 1-based line/column spans on demand, which
is how positions are propagated without paying for them on every reduction.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Callable, Iterable

import lark
from lark.exceptions import UnexpectedToken
from lark.parsers.lalr_parser_state import ParseConf, ParserState

from plan_verifier.findings import Span
from plan_verifier.ir import Diagnostic

#: Diagnostics stop being collected after this many (the plan is rejected anyway).
MAX_DIAGNOSTICS = 100
#: Brackets nested deeper than this are rejected before parsing (no real program comes close;
#: it keeps every later tree walk far from Python's recursion limit).
MAX_NESTING = 64

_BOUNDARY = frozenset({"SEMICOLON", "LBRACE", "RBRACE", "HEADER_BLOCK"})
_ITEM_START = frozenset({"GOAL", "DEFINE", "COMMAND", "HEADER_BLOCK"})
_TRACKED = _BOUNDARY | {"LBRACE", "RBRACE"}


class Token:
    """A scanned token; `start`/`end` are character offsets (end exclusive)."""

    __slots__ = ("type", "value", "start", "end")

    def __init__(self, type_: str, value: str, start: int, end: int) -> None:
        self.type = type_
        self.value = value
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Token({self.type}, {self.value!r}, {self.start})"


class Node:
    """A syntax-tree node built by the parser callbacks."""

    __slots__ = ("name", "children", "start", "end")

    def __init__(self, name: str, children: list, start: int, end: int) -> None:
        self.name = name
        self.children = children
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Node({self.name}, {self.children!r})"


class _Chain:
    """Children of an inlined (underscore) rule, spliced into the parent node.

    Repetitions (`statement*`) reduce once per element; a chain link per
    reduction keeps that O(1) instead of copying the list so far (which made a
    GOAL of n statements cost O(n²)). Links are never mutated, so the parser
    checkpoints taken for error recovery stay valid.
    """

    __slots__ = ("prev", "items")

    def __init__(self, prev: "_Chain | None", items: list) -> None:
        self.prev = prev
        self.items = items


def _splice(children: list, out: list) -> list:
    for child in children:
        if type(child) is _Chain:
            links = []
            while child is not None:
                links.append(child)
                child = child.prev
            for link in reversed(links):
                _splice(link.items, out)
        else:
            out.append(child)
    return out


class SourceMap:
    """Character offsets to 1-based line/column positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def span(self, start: int, end: int) -> Span:
        starts = self._starts
        line = bisect.bisect_right(starts, start)
        line_start = starts[line - 1]
        if end <= start or line == len(starts) or end < starts[line]:
            return Span(line, start - line_start + 1, line, max(end, start) - line_start + 1)
        end_line, end_column = self.position(end)
        return Span(line, start - line_start + 1, end_line, end_column)

    def line_text(self, line: int) -> str:
        if line < 1 or line > len(self._starts):
            return ""
        start = self._starts[line - 1]
        end = self._starts[line] if line < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")


@dataclass(frozen=True)
class _CompiledGrammar:
    conf: ParseConf
    scanner: re.Pattern  # ignorable text, then one token (named group = terminal)
    skipper: re.Pattern  # ignorable text only
    keywords: dict[str, str]


def _terminal_sort_key(term) -> tuple:
    # The order lark's own basic lexer uses, so both agree on every input.
    return (-term.priority, -term.pattern.max_width, -len(term.pattern.value), term.name)


class _Rule:
    """A grammar rule as the LALR loop needs it, hashed by identity.

    lark's `Rule` hashes and compares by content in Python code, and the parse
    loop looks a rule up on every reduction; identity-hashed stand-ins make that
    lookup a C-level dict hit.
    """

    __slots__ = ("origin", "expansion", "alias", "options")

    def __init__(self, rule) -> None:
        self.origin = _Name(str(rule.origin.name))
        self.expansion = rule.expansion
        self.alias = str(rule.alias) if rule.alias else None
        self.options = rule.options


class _Name:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _IdentityRules:
    """lark's parse table with plain-str symbols and identity-hashed `_Rule` reduce actions.

    lark keys the table by its `Token` (a str subclass with a Python-level `__eq__`),
    so every lookup with a plain string would run Python code; plain keys keep it in C.
    """

    def __init__(self, table) -> None:
        stand_in: dict[object, _Rule] = {}
        self.states = {
            state: {
                str(token): (action, arg if isinstance(arg, int) else stand_in.setdefault(arg, _Rule(arg)))
                for token, (action, arg) in actions.items()
            }
            for state, actions in table.states.items()
        }
        self.start_states = table.start_states
        self.end_states = table.end_states
        self.rules = list(stand_in.values())


def _make_callback(rule) -> Callable[[list], object]:
    name = rule.alias or rule.origin.name
    inline = name.startswith("_")
    expand1 = bool(rule.options.expand1)
    may_splice = any(sym.name.startswith("_") for sym in rule.expansion)

    def callback(children: list):
        if inline:
            if children and type(children[0]) is _Chain:
                return _Chain(children[0], children[1:])
            return _Chain(None, children)
        if may_splice:
            children = _splice(children, [])
        if expand1 and len(children) == 1:
            return children[0]
        if children:
            return Node(name, children, children[0].start, children[-1].end)
        return Node(name, children, 0, 0)

    return callback


def _cache_file(grammar: str) -> str | bool:
    """Where lark may keep the compiled tables (a private per-user directory), or False.

    Compiling the grammar costs ~40 ms per process; the cache makes `plan-verify
    check` start faster. lark checks the grammar's hash before using the file.
    Never a shared temporary directory: the cache is a pickle.
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "plan_verifier")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if os.stat(directory).st_uid != os.getuid() or not os.access(directory, os.W_OK):
            return False
    except OSError:
        return False
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    return os.path.join(directory, f"tdl-{digest}-lark-{lark.__version__}.cache")


@functools.cache
def compiled_grammar() -> _CompiledGrammar:
    """Compile `tdl.lark` (once per process) into parse tables and a scanner."""
    text = resources.files("plan_verifier.tdl").joinpath("tdl.lark").read_text(encoding="utf-8")
    parser = lark.Lark(text, parser="lalr", lexer="basic", maybe_placeholders=False, cache=_cache_file(text))
    table = _IdentityRules(parser.parser.parser._parse_table)
    conf = ParseConf(table, {rule: _make_callback(rule) for rule in table.rules}, "start")

    name_pattern = next(t for t in parser.terminals if t.name == "NAME").pattern.to_regexp()
    name_re = re.compile(name_pattern)
    keywords: dict[str, str] = {}
    skip: list[str] = []
    alternatives: list[str] = []
    for term in sorted(parser.terminals, key=_terminal_sort_key):
        pattern = term.pattern
        if pattern.type == "str" and name_re.fullmatch(pattern.value):
            keywords[pattern.value] = term.name  # keywords are scanned as NAME, then retyped
        elif term.name in parser.lexer_conf.ignore:
            skip.append(pattern.to_regexp())
        else:
            alternatives.append(f"(?P<{term.name}>{pattern.to_regexp()})")
    # Whitespace and comments are consumed in front of each token, so the scan loop
    # runs once per token rather than once per token and once per gap.
    skipper = f"(?:{'|'.join(skip)})*"
    scanner = re.compile(skipper + "(?:" + "|".join(alternatives) + ")")
    return _CompiledGrammar(conf, scanner, re.compile(skipper), keywords)


@dataclass
class ParseResult:
    tree: Node | None
    tokens: list[Token]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source_map: SourceMap | None = None


# --------------------------------------------------------------------------- scanning


def scan(text: str, smap: SourceMap, diagnostics: list[Diagnostic]) -> list[Token]:
    """Split text into tokens; characters no terminal accepts become R-SYN-009."""
    grammar = compiled_grammar()
    keywords = grammar.keywords
    tokens: list[Token] = []
    append = tokens.append
    pos = 0
    restart = True
    while restart:
        restart = False
        for match in grammar.scanner.finditer(text, pos):
            if match.start() != pos:
                _bad_characters(text, grammar.skipper.match(text, pos).end(), match.start(), smap, diagnostics)
            kind = match.lastgroup
            start, pos = match.span(kind)
            value = match.group(kind)
            if kind == "NAME":
                kind = keywords.get(value, "NAME")
                if value == "HEADER":
                    pos = _unclosed_header(text, start, smap, tokens, diagnostics)
                    restart = True
                    break
            append(Token(kind, value, start, pos))
    rest = grammar.skipper.match(text, pos).end()
    if rest != len(text):
        _bad_characters(text, rest, len(text), smap, diagnostics)
    return tokens


_ITEM_LINE = re.compile(r"^[ \t]*(GOAL|DEFINE|COMMAND)\b", re.MULTILINE)


def _unclosed_header(text: str, start: int, smap: SourceMap, tokens: list[Token], diagnostics: list[Diagnostic]) -> int:
    nxt = _ITEM_LINE.search(text, start)
    end = nxt.start() if nxt else len(text)
    tokens.append(Token("HEADER_BLOCK", text[start:end], start, end))
    _add(
        diagnostics,
        Diagnostic(
            "R-SYN-001",
            "TDL document structure: HEADER block is not closed by END_HEADER",
            smap.span(start, start + len("HEADER")),
            suggestion="End the header with a line containing END_HEADER",
        ),
    )
    return end


def _bad_characters(text: str, start: int, end: int, smap: SourceMap, diagnostics: list[Diagnostic]) -> None:
    chunk = text[start:end].rstrip()
    end = start + len(chunk)
    if chunk[:1] in "\"'":
        message = f"unterminated string literal starting with {chunk[:20]!r}"
        suggestion = "Close the string on the same line"
    else:
        message = f"unexpected character {chunk[:1]!r}" + (f" (and {len(chunk) - 1} more)" if len(chunk) > 1 else "")
        suggestion = "Remove the character or put the text in a // comment"
    _add(diagnostics, Diagnostic("R-SYN-009", message, smap.span(start, end), suggestion=suggestion))


def _add(diagnostics: list[Diagnostic], diagnostic: Diagnostic) -> None:
    if len(diagnostics) < MAX_DIAGNOSTICS:
        diagnostics.append(diagnostic)


# --------------------------------------------------------------------------- parsing


def parse(text: str) -> ParseResult:
    """Parse TDL text; never raises on bad input, always returns diagnostics."""
    smap = SourceMap(text)
    diagnostics: list[Diagnostic] = []
    tokens = scan(text, smap, diagnostics)
    too_deep = _too_deep(tokens, smap)
    if too_deep is not None:
        return ParseResult(None, tokens, [*diagnostics, too_deep], smap)
    tree = _Recovery(tokens, smap, diagnostics).run()
    return ParseResult(tree, tokens, diagnostics, smap)


def _too_deep(tokens: list[Token], smap: SourceMap) -> Diagnostic | None:
    depth = 0
    for tok in tokens:
        if tok.type in ("LPAR", "LSQB", "LBRACE"):
            depth += 1
            if depth > MAX_NESTING:
                return Diagnostic("R-SYN-010", f"Brackets are nested more than {MAX_NESTING} levels deep", smap.span(tok.start, tok.end),
                                  evidence={"limit": MAX_NESTING}, suggestion="Flatten the expression")
        elif tok.type in ("RPAR", "RSQB", "RBRACE"):
            depth = max(depth - 1, 0)
    return None


class _Recovery:
    """The token loop: feed, repair, or skip to the next statement."""

    def __init__(self, tokens: list[Token], smap: SourceMap, diagnostics: list[Diagnostic]) -> None:
        self.tokens = tokens
        self.smap = smap
        self.diagnostics = diagnostics
        self.conf = compiled_grammar().conf
        self.state = ParserState(self.conf, None)
        self.checkpoint = self.state.copy(deepcopy_values=False)
        self.pending: list[Token] = []  # tokens fed since the checkpoint
        self.recovering = False  # suppress cascades until the next statement boundary
        self.braces: list[tuple[Token, str]] = []  # open braces and what opened them
        self.silent_rbrace = 0  # braces we inserted ourselves close silently
        self.last: Token | None = None

    # -- helpers -----------------------------------------------------------------
    def _eof(self) -> Token:
        end = self.tokens[-1].end if self.tokens else 0
        return Token("$END", "", end, end)

    def _feed(self, state: ParserState, tok: Token):
        return state.feed_token(tok, tok.type == "$END")

    def _rebuild(self) -> ParserState:
        state = self.checkpoint.copy(deepcopy_values=False)
        for tok in self.pending:
            state.feed_token(tok)
        return state

    def _accepts(self, state: ParserState, seq: Iterable[Token]) -> bool:
        trial = state.copy(deepcopy_values=False)
        try:
            for tok in seq:
                self._feed(trial, tok)
                if tok.type == "$END":
                    break
        except UnexpectedToken:
            return False
        return True

    def _synthetic(self, type_: str, at: int) -> Token:
        value = {"SEMICOLON": ";", "WITH": "WITH", "WAIT": "WAIT", "RPAR": ")", "RBRACE": "}", "LBRACE": "{", "EQUAL": "=", "SPAWN": "SPAWN"}[type_]
        return Token(type_, value, at, at)

    def _statement_kind(self, tok: Token) -> str:
        first = self.pending[0] if self.pending else tok
        return first.type

    def _report(self, rule_id: str, message: str, start: int, end: int, suggestion: str | None = None, **evidence) -> None:
        if self.recovering:
            return
        _add(self.diagnostics, Diagnostic(rule_id, message, self.smap.span(start, end), evidence=evidence, suggestion=suggestion))

    def _after_feed(self, tok: Token) -> None:
        self.last = tok
        if tok.type == "LBRACE":
            self.braces.append((tok, self._opener()))
        elif tok.type == "RBRACE" and self.braces:
            self.braces.pop()
        if tok.type in _BOUNDARY:
            self.checkpoint = self.state.copy(deepcopy_values=False)
            self.pending = []
            self.recovering = False
        else:
            self.pending.append(tok)

    def _opener(self) -> str:
        names = [t for t in self.pending if t.type == "NAME"]
        kinds = [t.type for t in self.pending]
        if "GOAL" in kinds and names:
            return f"GOAL '{names[0].value}'"
        if "COMMAND" in kinds and names:
            return f"COMMAND '{names[0].value}'"
        return "block"

    # -- main loop ---------------------------------------------------------------
    def run(self) -> Node | None:
        tokens = self.tokens
        i = 0
        n = len(tokens)
        while True:
            if len(self.diagnostics) >= MAX_DIAGNOSTICS:
                return None
            if i < n:
                # The hot path: feed the token; only braces and statement ends need bookkeeping.
                tok = tokens[i]
                try:
                    self.state.feed_token(tok)
                except UnexpectedToken as err:
                    i = self._recover(i, tok, err)
                    if i < 0:
                        return None
                    continue
                if tok.type in _TRACKED:
                    self._after_feed(tok)
                else:
                    self.pending.append(tok)
                    self.last = tok
                i += 1
                continue
            eof = self._eof()
            try:
                return self._feed(self.state, eof)
            except UnexpectedToken as err:
                i = self._recover(i, eof, err)
                if i < 0:
                    return None

    def _recover(self, i: int, tok: Token, err: UnexpectedToken) -> int:
        """Handle a rejected token; return the index to continue from (-1: give up)."""
        self.state = self._rebuild()
        expected = set(err.expected)
        following = self.tokens[i + 1 : i + 3]
        for repair in (self._insert_semicolon, self._fix_spawn_option, self._insert_rpar, self._close_block,
                       self._open_block, self._insert_equal, self._insert_spawn):
            outcome = repair(tok, expected, following)
            if outcome is not None:
                inserted, mode = outcome
                for extra in inserted:
                    self._feed(self.state, extra)
                    self._after_feed(extra)
                if mode == "drop":
                    return i + 1
                if mode == "feed" and tok.type != "$END":
                    self._feed(self.state, tok)
                    self._after_feed(tok)
                    return i + 1
                return i  # EOF goes back through the main loop
        return self._panic(i, tok, expected)

    # -- repairs: each returns (tokens to insert, mode) or None; mode says what happens
    #    to the rejected token afterwards: "feed" it, or "drop" it (it was replaced).
    def _prev_end(self, tok: Token) -> int:
        return self.last.end if self.last is not None else tok.start

    def _insert_semicolon(self, tok, expected, following):
        if "SEMICOLON" not in expected:
            return None
        semi = self._synthetic("SEMICOLON", self._prev_end(tok))
        if not self._accepts(self.state, [semi, tok, *following]):
            return None
        kind = self._statement_kind(tok)
        at = self._prev_end(tok)
        if kind == "DEFINE":
            self._report("R-SYN-002", f"Invalid position definition at line {self.smap.position(at)[0]}: missing ';' after the DEFINE statement", at, at, "End the DEFINE statement with ';'")
        else:
            self._report("R-SYN-005", f"Invalid SPAWN command format at line {self.smap.position(at)[0]}: missing ';' at the end of the statement", at, at, "End the statement with ';'")
        return [semi], "feed"

    def _fix_spawn_option(self, tok, expected, following):
        line = self.smap.position(tok.start)[0]
        if "WITH" in expected and tok.type in ("WAIT", "NOWAIT"):
            with_tok = self._synthetic("WITH", tok.start)
            if self._accepts(self.state, [with_tok, tok, *following]):
                self._report("R-SYN-005", f"Invalid SPAWN command format at line {line}: missing WITH before {tok.value}", tok.start, tok.end, f"Write 'WITH {tok.value};'")
                return [with_tok], "feed"
        if "WITH" in expected and tok.type == "SEMICOLON":
            with_tok, wait = self._synthetic("WITH", tok.start), self._synthetic("WAIT", tok.start)
            if self._accepts(self.state, [with_tok, wait, tok, *following]):
                self._report("R-SYN-005", f"Invalid SPAWN command format at line {line}: missing 'WITH WAIT' or 'WITH NOWAIT'", tok.start, tok.end, "Write 'SPAWN Cmd(...) WITH WAIT;'")
                return [with_tok, wait], "feed"
        if {"WAIT", "NOWAIT"} & expected:
            wait = self._synthetic("WAIT", tok.start)
            if tok.type == "SEMICOLON" and self._accepts(self.state, [wait, tok, *following]):
                self._report("R-SYN-005", f"Invalid SPAWN command format at line {line}: WITH must be followed by WAIT or NOWAIT", tok.start, tok.end, "Write 'WITH WAIT;' or 'WITH NOWAIT;'")
                return [wait], "feed"
            if tok.type == "NAME" and self._accepts(self.state, [wait, *following]):
                self._report("R-SYN-005", f"Invalid SPAWN command format at line {line}: unknown option '{tok.value}' (expected WAIT or NOWAIT)", tok.start, tok.end, "Use WITH WAIT or WITH NOWAIT")
                return [wait], "drop"
        return None

    def _insert_rpar(self, tok, expected, following):
        if "RPAR" not in expected or tok.type not in ("SEMICOLON", "WITH", "LBRACE", "RBRACE", "$END", "SPAWN"):
            return None
        rpar = self._synthetic("RPAR", self._prev_end(tok))
        if not self._accepts(self.state, [rpar, tok, *following]):
            return None
        at = self._prev_end(tok)
        rule = "R-SYN-002" if self._statement_kind(tok) == "DEFINE" else ("R-SYN-001" if tok.type == "LBRACE" else "R-SYN-005")
        self._report(rule, f"missing ')' at line {self.smap.position(at)[0]}", at, at, "Close the argument list with ')'")
        return [rpar], "feed"

    def _close_block(self, tok, expected, following):
        if "RBRACE" not in expected or tok.type not in (_ITEM_START | {"$END"}):
            return None
        rbrace = self._synthetic("RBRACE", tok.start)
        if not self._accepts(self.state, [rbrace, tok, *following]):
            return None
        if self.silent_rbrace:
            self.silent_rbrace -= 1
        elif self.braces:
            opener, what = self.braces[-1]
            line = self.smap.position(opener.start)[0]
            self._report("R-SYN-001", f"TDL document structure: unbalanced braces, {what} opened at line {line} is never closed", opener.start, opener.end, "Add the missing '}'", opened_line=line)
        return [rbrace], "feed"

    def _open_block(self, tok, expected, following):
        if "LBRACE" not in expected:
            return None
        lbrace = self._synthetic("LBRACE", self._prev_end(tok))
        if not self._accepts(self.state, [lbrace, tok, *following]):
            return None
        what = self._opener()
        self._report("R-SYN-001", f"TDL document structure: the body of {what} is not enclosed in braces", tok.start, tok.end, "Write the body as '{ ... }'")
        self.silent_rbrace += 1
        return [lbrace], "feed"

    def _insert_equal(self, tok, expected, following):
        if "EQUAL" not in expected or self._statement_kind(tok) != "DEFINE":
            return None
        eq = self._synthetic("EQUAL", tok.start)
        if not self._accepts(self.state, [eq, tok, *following]):
            return None
        self._report("R-SYN-002", f"Invalid position definition at line {self.smap.position(tok.start)[0]}: missing '=' after the name", tok.start, tok.end, "Write 'DEFINE Name = PosX(...);'")
        return [eq], "feed"

    def _insert_spawn(self, tok, expected, following):
        # "MoveLinear(...) WITH WAIT;" : the SPAWN keyword is missing.
        if tok.type != "WITH" or not self.pending or self.pending[0].type != "NAME":
            return None
        state = self.checkpoint.copy(deepcopy_values=False)
        spawn = self._synthetic("SPAWN", self.pending[0].start)
        if not self._accepts(state, [spawn, *self.pending, tok, *following]):
            return None
        first = self.pending[0]
        self._report("R-SYN-005", f"Invalid SPAWN command format at line {self.smap.position(first.start)[0]}: 'WITH {following[0].value if following else ''}' without SPAWN", first.start, tok.end, "Write 'SPAWN Cmd(...) WITH WAIT;' or drop the WITH clause")
        replay = [spawn, *self.pending]
        self.state = state
        self.pending = []
        for t in replay:
            self._feed(self.state, t)
            self.pending.append(t)
        return [], "feed"

    # -- panic mode --------------------------------------------------------------
    def _panic(self, i: int, tok: Token, expected: set[str]) -> int:
        kind = self._statement_kind(tok)
        self._report_unexpected(tok, expected, kind)
        self.recovering = True
        self.state = self.checkpoint.copy(deepcopy_values=False)
        self.pending = []
        if tok.type == "$END":
            return self._finish_at_eof()
        tokens = self.tokens
        j = i
        if tok.type in ("RBRACE",) and not self.braces:
            return i + 1  # a stray '}' at top level
        while j < len(tokens) and tokens[j].type not in ("SEMICOLON", "RBRACE") and not (
            j > i and tokens[j].type in _ITEM_START
        ):
            j += 1
        if j < len(tokens) and tokens[j].type == "SEMICOLON":
            j += 1
        if j == i and not self._accepts(self.state, [tokens[i]]):
            j = i + 1  # the current context cannot take this token at all: drop it
        return j

    def _finish_at_eof(self) -> int:
        eof = self._eof()
        state = self.state
        closers = []
        while not self._accepts(state, [*closers, eof]) and len(closers) < 64:
            closers.append(self._synthetic("RBRACE", eof.start))
        if len(closers) >= 64:
            return -1
        for closer in closers:
            self._feed(self.state, closer)
        return len(self.tokens)

    def _report_unexpected(self, tok: Token, expected: set[str], kind: str) -> None:
        what = "end of input" if tok.type == "$END" else f"'{tok.value}'"
        line = self.smap.position(tok.start)[0]
        if tok.type == "RBRACE" and not self.braces:
            self._report("R-SYN-001", "TDL document structure: unbalanced braces, '}' without a matching '{'", tok.start, tok.end, "Remove the extra '}'")
            return
        if tok.type == "NAME" and tok.value == "HEADER":
            return  # reported by the scanner
        readable = ", ".join(sorted(_readable(e) for e in expected if e != "$END")[:8])
        detail = f"unexpected {what} (expected {readable})" if readable else f"unexpected {what}"
        if kind == "DEFINE":
            rule, message = "R-SYN-002", f"Invalid position definition at line {line}: {detail}"
        elif kind in ("SPAWN", "NAME"):
            rule, message = "R-SYN-005", f"Invalid SPAWN command format at line {line}: {detail}"
        else:
            rule, message = "R-SYN-001", f"TDL document structure: {detail} at line {line}"
        self._report(rule, message, tok.start, tok.end, None, token=tok.value, expected=sorted(expected))


_READABLE = {
    "SEMICOLON": "';'", "COMMA": "','", "EQUAL": "'='", "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'",
    "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'", "DOT": "'.'", "ELLIPSIS": "'...'", "SIGN": "'-'",
    "BINOP": "an operator", "NAME": "a name", "NUMBER": "a number", "STRING": "a string",
    "HEADER_BLOCK": "HEADER", "NONE": "None", "TRUE": "True", "FALSE": "False",
}


def _readable(terminal: str) -> str:
    return _READABLE.get(terminal, terminal)
