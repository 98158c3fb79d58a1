"""TDL text into tokens, with the grammar's own terminal definitions.

Tokens are kept as parallel lists (kind id, text, offset, line, column) rather
than one object per token: the parser only needs a token's kind on the hot
path, and positions are read when a syntax value is built.

Well-formed text takes the fast path: one `findall` of the grammar's terminal
alternation returns (ignored text, token) pairs; offsets and line numbers are
running sums, and each distinct token text is typed once per process (a
token's terminal depends only on its text). Text with characters no terminal
accepts, or a HEADER block without END_HEADER, is scanned again carefully to
locate and report them (BAD_CHARACTERS, HEADER_UNCLOSED); the result is the
same token stream the fast path would give for the rest.
"""

from __future__ import annotations

import bisect
import re

from plan_verifier.findings import Span
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.tdl.grammar import grammar

#: Problems stop being recorded after this many (the plan is rejected anyway).
MAX_PROBLEMS = 100

_ITEM_LINE = re.compile(r"^[ \t]*(GOAL|DEFINE|COMMAND)\b", re.MULTILINE)
#: At most this many token texts are remembered with their terminal (the texts are untrusted).
_KINDS_LIMIT = 100_000


class Tokens:
    """Scanned tokens; index i is the i-th token. Recovery may append zero-width synthetic tokens."""

    __slots__ = ("text", "kinds", "texts", "starts", "lines", "cols", "ends", "count", "_line_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        self.kinds: list[int] = []
        self.texts: list[str] = []
        self.starts: list[int] = []
        self.lines: list[int] = []
        self.cols: list[int] = []
        #: End positions of tokens whose end is not (line, col + len(text)): multi-line and synthetic tokens.
        self.ends: dict[int, tuple[int, int]] = {}
        self.count = 0  # scanned tokens (synthetic ones come after)
        self._line_starts: list[int] | None = None

    # -- positions -------------------------------------------------------------------
    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        starts = self._line_starts
        if starts is None:
            starts = self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def end_offset(self, i: int) -> int:
        return self.starts[i] + (0 if i >= self.count else len(self.texts[i]))

    def span(self, first: int, last: int) -> Span:
        """From the start of token `first` to the end of token `last`."""
        end = self.ends.get(last)
        if end is None:
            end = (self.lines[last], self.cols[last] + len(self.texts[last]))
        return Span(self.lines[first], self.cols[first], end[0], end[1])

    def offsets_span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(max(start, end))
        return Span(line, column, end_line, end_column)

    def line_text(self, line: int) -> str:
        self.position(0)
        starts = self._line_starts
        if line < 1 or line > len(starts):
            return ""
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end].rstrip("\r\n")

    def slice(self, span: Span | None) -> str:
        """The source text under a span (lines joined with \\n)."""
        if span is None:
            return "?"
        if span.line == span.end_line:
            return self.line_text(span.line)[span.column - 1 : span.end_column - 1]
        parts = [self.line_text(span.line)[span.column - 1 :]]
        parts.extend(self.line_text(n) for n in range(span.line + 1, span.end_line))
        parts.append(self.line_text(span.end_line)[: span.end_column - 1])
        return "\n".join(parts)

    # -- building ----------------------------------------------------------------------
    def add(self, kind: int, value: str, start: int, end: int) -> int:
        """Append a token by offsets (careful scanner, synthetic tokens); returns its index."""
        i = len(self.kinds)
        line, column = self.position(start)
        self.kinds.append(kind)
        self.texts.append(value)
        self.starts.append(start)
        self.lines.append(line)
        self.cols.append(column)
        if end != start + len(value) or "\n" in value:
            self.ends[i] = self.position(end)
        return i


def scan(text: str, problems: list[Problem]) -> Tokens:
    """Split text into tokens; characters no terminal accepts become BAD_CHARACTERS problems."""
    tokens = _scan_fast(text)
    if tokens is None:
        tokens = _scan_careful(text, problems)
    tokens.count = len(tokens.kinds)
    return tokens


def _scan_fast(text: str) -> Tokens | None:
    """The tokens of well-formed text, or None when the careful scanner must run."""
    g = grammar()
    known = g.token_kinds
    header = g.symbols["HEADER_BLOCK"]
    tokens = Tokens(text)
    kinds, texts, starts, lines, cols = tokens.kinds, tokens.texts, tokens.starts, tokens.lines, tokens.cols
    pos = line_start = 0
    line = 1
    for skip, token in g.fast.findall(text):
        if not token:
            break  # the end of the text (after its trailing whitespace and comments)
        if skip:
            if "\n" in skip:
                line += skip.count("\n")
                line_start = pos + skip.rindex("\n") + 1
            pos += len(skip)
        kind = known.get(token, -1)
        if kind is None:
            return None
        if kind == -1:
            kind = _kind_of(token, g)
            if kind is None:
                return None
        kinds.append(kind)
        texts.append(token)
        starts.append(pos)
        lines.append(line)
        cols.append(pos - line_start + 1)
        if kind == header and "\n" in token:
            index = len(kinds) - 1
            line += token.count("\n")
            line_start = pos + token.rindex("\n") + 1
            tokens.ends[index] = (line, pos + len(token) - line_start + 1)
        pos += len(token)
    return tokens


def _kind_of(token: str, g) -> int | None:
    """The terminal of a token text (keywords retyped), or None for text the fast path must not type:
    a character no terminal accepts, or HEADER without its END_HEADER."""
    match = g.classify.match(token)
    kind: int | None = None
    if match is not None and match.end() == len(token):
        name = match.lastgroup
        if name == "NAME":
            name = g.keywords.get(token, "NAME")
        if token != "HEADER":
            kind = g.symbols[name]
    if len(g.token_kinds) >= _KINDS_LIMIT:
        g.token_kinds.clear()
    g.token_kinds[token] = kind
    return kind


def _scan_careful(text: str, problems: list[Problem]) -> Tokens:
    """Token by token at exact positions: ignorable text, then a token or a run of bad characters."""
    g = grammar()
    keywords = g.keywords
    symbols = g.symbols
    tokens = Tokens(text)
    pos, end = 0, len(text)
    while True:
        pos = g.skipper.match(text, pos).end()
        if pos >= end:
            return tokens
        match = g.classify.match(text, pos)
        if match is None:
            bad = pos + 1
            while bad < end and g.skipper.match(text, bad).end() == bad and g.classify.match(text, bad) is None:
                bad += 1
            _bad_characters(tokens, pos, bad, problems)
            pos = bad
            continue
        kind = match.lastgroup
        start, pos = match.span(kind)
        value = match.group(kind)
        if kind == "NAME":
            kind = keywords.get(value, "NAME")
            if value == "HEADER":
                pos = _unclosed_header(tokens, start, problems)
                continue
        tokens.add(symbols[kind], value, start, pos)


def _unclosed_header(tokens: Tokens, start: int, problems: list[Problem]) -> int:
    text = tokens.text
    nxt = _ITEM_LINE.search(text, start)
    end = nxt.start() if nxt else len(text)
    tokens.add(grammar().symbols["HEADER_BLOCK"], text[start:end], start, end)
    record(problems, Problem(K.HEADER_UNCLOSED, tokens.offsets_span(start, start + len("HEADER"))))
    return end


def _bad_characters(tokens: Tokens, start: int, end: int, problems: list[Problem]) -> None:
    chunk = tokens.text[start:end].rstrip()
    record(problems, Problem(K.BAD_CHARACTERS, tokens.offsets_span(start, start + len(chunk)), values={"text": chunk}))


def record(problems: list[Problem], problem: Problem) -> None:
    if len(problems) < MAX_PROBLEMS:
        problems.append(problem)
