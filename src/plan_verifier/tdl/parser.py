"""TDL parsing: lark's LALR tables driven by our own loop, building IR values as it reduces.

The tables come from `tdl.lark` (see `grammar.py`). The loop keeps two plain
lists, states and values; a token is pushed as its index, and each reduction
calls the builder of its rule, which makes the IR value (`Number`, `Ref`,
`Call`, `Arg`, ...) or a statement/GOAL/DEFINE record directly, so there is no
syntax tree and no second walk over one. Rules that only pass their single
child through (`expr: operand`, `statement: spawn`) have no builder and cost
one goto.

When the table rejects a token, the error-recovering machinery takes over:
it rebuilds the parser at the last statement boundary, first tries a small
repair (insert the missing `;`, `WITH`, `)`, `}` ...) that lets parsing
continue, and otherwise discards the rest of the statement (panic mode) and
resumes at the next one. Every problem becomes a typed `Problem` (the syntax
rules own and word them), so one missing `;` never hides the next error.
Speculative parses ("would this repair be accepted?") replay states only.
"""

from __future__ import annotations

import ast
import functools
import itertools
from typing import Callable, Iterable, NamedTuple

from plan_verifier.findings import Span
from plan_verifier.ir import Arg, BinOp, Call, Constant, Elided, ListValue, Number, Ref, Text, TupleValue, Value, maker
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.tdl.grammar import END, Grammar, RuleShape, grammar
from plan_verifier.tdl.scanner import MAX_PROBLEMS, Tokens, record, scan

#: Brackets nested deeper than this are rejected before parsing (no real program comes close;
#: it keeps every later walk far from Python's recursion limit).
MAX_NESTING = 64

_PRECEDENCE = {"*": 3, "/": 3, "+": 2, "-": 2, "==": 1, "!=": 1, "<": 1, ">": 1, "<=": 1, ">=": 1}


# --------------------------------------------------------------------------- what a parse produces


class Statement(NamedTuple):
    """`SPAWN call WITH mode;` or a plain `call;` (mode None)."""

    call: Call
    mode: str | None
    span: Span


class GoalDecl(NamedTuple):
    name: str
    name_span: Span
    span: Span
    statements: tuple[Statement, ...]


class DefineDecl(NamedTuple):
    name: str
    name_span: Span
    value: Value
    span: Span


class HeaderDecl(NamedTuple):
    token: int  # index of the HEADER_BLOCK token


class CommandDecl(NamedTuple):
    name: str
    params: tuple[str, ...]
    span: Span


Item = GoalDecl | DefineDecl | HeaderDecl | CommandDecl


class ParseResult(NamedTuple):
    items: tuple[Item, ...] | None  # None: the text could not be read into items at all
    tokens: Tokens
    problems: list[Problem]


def parse(text: str) -> ParseResult:
    """Parse TDL text; never raises on bad input, always records problems."""
    problems: list[Problem] = []
    tokens = scan(text, problems)
    too_deep = _too_deep(tokens)
    if too_deep is not None:
        return ParseResult(None, tokens, [*problems, too_deep])
    return ParseResult(_Parser(tokens, problems).run(), tokens, problems)


def _too_deep(tokens: Tokens) -> Problem | None:
    g = grammar()
    opening = {g.symbols[t] for t in ("LPAR", "LSQB", "LBRACE")}
    closing = {g.symbols[t] for t in ("RPAR", "RSQB", "RBRACE")}
    kinds = tokens.kinds
    if sum(map(kinds.count, opening)) <= MAX_NESTING:
        return None
    # The running sum of +1/-1 is the nesting depth as long as it never goes below 0 (C-level, no loop).
    delta = [0] * len(g.symbols)
    for kind in opening:
        delta[kind] = 1
    for kind in closing:
        delta[kind] = -1
    depths = list(itertools.accumulate(map(delta.__getitem__, kinds)))
    if min(depths) >= 0 and max(depths) <= MAX_NESTING:
        return None
    depth = 0
    for i, kind in enumerate(kinds):
        if kind in opening:
            depth += 1
            if depth > MAX_NESTING:
                return Problem(K.NESTING_TOO_DEEP, tokens.span(i, i), values={"limit": MAX_NESTING})
        elif kind in closing:
            depth = max(depth - 1, 0)
    return None


# --------------------------------------------------------------------------- building values


class _Wide:
    """An expression whose written extent ends after its value's span (`(x)`, `a * (b)`).

    A parent whose span runs to the end of such an expression (a named
    argument, a signed operand) needs where the text ends; every other
    consumer takes `value`.
    """

    __slots__ = ("value", "end")

    def __init__(self, value: Value, end: tuple[int, int]) -> None:
        self.value = value
        self.end = end


def _end_of(item) -> tuple[Value, tuple[int, int]]:
    """(value, end position of its written extent)."""
    if type(item) is _Wide:
        return item.value, item.end
    span = item.span
    return item, (span.end_line, span.end_column)


def _value(item) -> Value:
    return item.value if type(item) is _Wide else item


_new_tuple = tuple.__new__
_number = maker(Number)
_text = maker(Text)
_constant = maker(Constant)
_ref = maker(Ref)
_arg = maker(Arg)
_call = maker(Call)
_binop = maker(BinOp)


def _builders(tokens: Tokens) -> dict[str, Callable]:
    """The semantic actions of one parse, by name: each gets its rule's children (token indices for
    terminals, built values for the rest) and returns the rule's value. Those named in `_UNARY` serve
    only one-child rules and get the child itself, saving a list per reduction."""
    texts, lines, cols = tokens.texts, tokens.lines, tokens.cols
    span_of = tokens.span

    def token_span(i: int) -> Span:
        # NAME, NUMBER, STRING, ... never span lines and are never synthetic.
        column = cols[i]
        return _new_tuple(Span, (lines[i], column, lines[i], column + len(texts[i])))

    # -- operands
    def number(i: int) -> Value:
        text = texts[i]
        line, column = lines[i], cols[i]
        return _number(float(text), text, _new_tuple(Span, (line, column, line, column + len(text))))

    def string(i: int) -> Value:
        return _text(unquote(texts[i]), token_span(i))

    def none(i: int) -> Value:
        return _constant(None, token_span(i))

    def true(i: int) -> Value:
        return _constant(True, token_span(i))

    def false(i: int) -> Value:
        return _constant(False, token_span(i))

    def name(i: int) -> Value:
        text = texts[i]
        line, column = lines[i], cols[i]
        return _ref(text, _new_tuple(Span, (line, column, line, column + len(text))))

    def group(c: list) -> _Wide:
        end = span_of(c[2], c[2])
        return _Wide(_value(c[1]), (end.end_line, end.end_column))

    def signed(c: list):
        sign = c[0]
        inner, end = _end_of(c[1])
        if texts[sign] == "+":
            return c[1]
        span = _new_tuple(Span, (lines[sign], cols[sign], end[0], end[1]))
        if type(inner) is Number:
            return _number(-inner.value, "-" + inner.text, span)
        return _binop("-", Number(0.0, "0"), inner, span)

    def binop(c: list):
        sequence = [c[0], *c[1]]
        operands = [_value(v) for v in sequence[0::2]]
        ops = sequence[1::2]
        last = sequence[-1]

        def climb(pos: int, min_prec: int) -> tuple[Value, int]:
            left = operands[pos]
            while pos < len(ops) and _PRECEDENCE[ops[pos]] >= min_prec:
                op = ops[pos]
                right, nxt = climb(pos + 1, _PRECEDENCE[op] + 1)
                left = _binop(op, left, right, _join(left.span, right.span))
                pos = nxt
            return left, pos

        result, _ = climb(0, 0)
        return _Wide(result, last.end) if type(last) is _Wide else result

    def operator_first(c: list) -> list:
        return [texts[c[0]], c[1]]

    def operator_more(c: list) -> list:
        c[0].append(texts[c[1]])
        c[0].append(c[2])
        return c[0]

    # -- arguments and calls
    def positional_arg(value) -> Arg:
        if type(value) is _Wide:
            value = value.value
        return _arg(None, value, value.span)

    def named_arg(c: list) -> Arg:
        name = c[0]
        value, end = _end_of(c[2])
        return _arg(texts[name], value, _new_tuple(Span, (lines[name], cols[name], end[0], end[1])))

    def elided_args(i: int) -> Arg:
        span = token_span(i)
        return _arg(None, Elided(span), span)

    def first(c: list) -> list:
        return [c[-1]]

    def arg_list(c: list) -> tuple:
        return (c[0],) if len(c) == 1 or type(c[1]) is not list else (c[0], *c[1])

    def call(c: list) -> Call:
        name = c[0]
        span = span_of(name, c[-1])
        text = texts[name]
        return _call(text, c[2] if len(c) == 4 else (), span,
                     _new_tuple(Span, (span.line, span.column, span.line, span.column + len(text))))

    def list_value(c: list) -> ListValue:
        items: list = []
        if len(c) > 2:
            items.append(_value(c[1]))
            if type(c[2]) is list:
                items.extend(_value(v) for v in c[2])
        return ListValue(tuple(items), span_of(c[0], c[-1]))

    def tuple_value(c: list) -> TupleValue:
        return TupleValue((_value(c[1]), *(_value(v) for v in c[2])), span_of(c[0], c[-1]))

    # -- statements and items
    def spawn(c: list) -> Statement:
        return Statement(c[1], texts[c[3]], span_of(c[0], c[4]))

    def call_statement(c: list) -> Statement:
        call = c[0]
        end = span_of(c[1], c[1])
        return Statement(call, None, _new_tuple(Span, (call.span.line, call.span.column, end.end_line, end.end_column)))

    def chain_first(item) -> tuple:
        # Repetitions that span statement boundaries are immutable chains: the parser's
        # checkpoints share them, so a rollback must not see later additions.
        return (None, item)

    def chain_more(c: list) -> tuple:
        return (c[0], c[1])

    def goal(c: list) -> GoalDecl:
        chain = c[-2] if type(c[-2]) is tuple else None
        return GoalDecl(texts[c[1]], token_span(c[1]), span_of(c[0], c[-1]), _unchain(chain))

    def param(c: list) -> str:
        return texts[c[0]]

    def param_list(c: list) -> tuple[str, ...]:
        return (c[0],) if len(c) == 1 else (c[0], *c[1])

    def command_def(c: list) -> CommandDecl:
        return CommandDecl(texts[c[1]], c[3] if type(c[3]) is tuple else (), span_of(c[0], c[-1]))

    def ignored(c: list) -> None:
        return None  # COMMAND implementation bodies: their contents are not used

    def define(c: list) -> DefineDecl:
        return DefineDecl(texts[c[1]], token_span(c[1]), _value(c[3]), span_of(c[0], c[4]))

    def header(i: int) -> HeaderDecl:
        return HeaderDecl(i)

    def start(c: list) -> tuple[Item, ...]:
        return _unchain(c[0]) if c else ()

    return locals()


def _unchain(chain: tuple | None) -> tuple:
    items = []
    while chain is not None:
        chain, item = chain
        items.append(item)
    items.reverse()
    return tuple(items)


#: A repetition's next element: appended to the list its first element started (the parse loop does it inline).
_MORE = "more"

#: Builder per rule: (origin, alias) or (origin, alias, expansion) -> builder name; None passes the one child through.
_ACTIONS: dict[tuple, str | None] = {
    ("operand", None, ("NUMBER",)): "number",
    ("operand", None, ("STRING",)): "string",
    ("operand", None, ("NONE",)): "none",
    ("operand", None, ("TRUE",)): "true",
    ("operand", None, ("FALSE",)): "false",
    ("operand", None, ("NAME",)): "name",
    ("operand", None, ("call",)): None,
    ("operand", None, ("list",)): None,
    ("operand", None, ("tuple",)): None,
    ("operand", "group"): "group",
    ("operand", "signed"): "signed",
    ("expr", None, ("operand",)): None,
    ("expr", "binop"): "binop",
    ("__expr_plus_6", None, ("BINOP", "operand")): "operator_first",
    ("__expr_plus_6", None, ("SIGN", "operand")): "operator_first",
    ("__expr_plus_6", None, ("__expr_plus_6", "BINOP", "operand")): "operator_more",
    ("__expr_plus_6", None, ("__expr_plus_6", "SIGN", "operand")): "operator_more",
    ("arg", "positional_arg"): "positional_arg",
    ("arg", "named_arg"): "named_arg",
    ("arg", "elided_args"): "elided_args",
    ("__arg_list_star_5", None, ("COMMA", "arg")): "first",
    ("__arg_list_star_5", None, ("__arg_list_star_5", "COMMA", "arg")): _MORE,
    ("arg_list", None): "arg_list",
    ("call", None): "call",
    ("list", None): "list_value",
    ("__list_star_7", None, ("COMMA", "expr")): "first",
    ("__list_star_7", None, ("__list_star_7", "COMMA", "expr")): _MORE,
    ("tuple", None): "tuple_value",
    ("mode", None, ("WAIT",)): None,
    ("mode", None, ("NOWAIT",)): None,
    ("spawn", None): "spawn",
    ("call_statement", None): "call_statement",
    ("statement", None, ("spawn",)): None,
    ("statement", None, ("call_statement",)): None,
    ("__goal_star_1", None, ("statement",)): "chain_first",
    ("__goal_star_1", None, ("__goal_star_1", "statement")): "chain_more",
    ("goal", None): "goal",
    ("param", None): "param",
    ("__param_list_star_3", None, ("COMMA", "param")): "first",
    ("__param_list_star_3", None, ("__param_list_star_3", "COMMA", "param")): _MORE,
    ("param_list", None): "param_list",
    ("command_def", None): "command_def",
    ("__command_def_star_2", None): "ignored",
    ("impl_statement", None): "ignored",
    ("dotted_name", None): "ignored",
    ("__dotted_name_star_4", None): "ignored",
    ("define", None): "define",
    ("header", None): "header",
    ("_item", None): None,
    ("__start_star_0", None, ("_item",)): "chain_first",
    ("__start_star_0", None, ("__start_star_0", "_item")): "chain_more",
    ("start", None): "start",
}


def _action_name(shape: RuleShape) -> str | None:
    for key in ((shape.origin, shape.alias, shape.expansion), (shape.origin, shape.alias)):
        if key in _ACTIONS:
            return _ACTIONS[key]
    raise LookupError(f"tdl.lark rule {shape.origin} -> {' '.join(shape.expansion)} has no builder in tdl/parser.py")


@functools.cache
def _rule_actions(g: Grammar) -> list[tuple[int, int, str | None]]:
    out = []
    for lhs, size, shape in g.rules:
        action = _action_name(shape)
        if (action is None and size != 1) or (action is _MORE and size != 3) or (action in _UNARY and size != 1):
            raise LookupError(f"tdl.lark rule {shape.origin} -> {' '.join(shape.expansion)} does not fit its builder")
        out.append((lhs, size, action))
    return out


#: Builders that take their rule's one child itself (every other builder takes the list of children).
_UNARY = frozenset({"number", "string", "none", "true", "false", "name", "positional_arg", "elided_args", "chain_first", "header"})


def _bound_rules(tokens: Tokens) -> list[tuple[int, int, Callable | str | None]]:
    """(left-hand symbol, length, builder) per rule; a one-child rule's builder gets the child, not a list."""
    builders = _builders(tokens)
    return [(lhs, size, action if action is None or action is _MORE else
             functools.partial(_listed, builders[action]) if listed else builders[action])
            for lhs, size, action, listed in _rule_binding(grammar())]


@functools.cache
def _rule_binding(g: Grammar) -> tuple[tuple[int, int, str | None, bool], ...]:
    """Per rule: (left-hand symbol, length, builder name, whether its one child must be wrapped in a list)."""
    return tuple((lhs, size, action, size == 1 and action not in (None, _MORE) and action not in _UNARY)
                 for lhs, size, action in _rule_actions(g))


def _listed(build: Callable[[list], object], child) -> object:
    return build([child])


#: Statements longer than this many tokens are always fed token by token.
_SEGMENT_MAX = 96
#: At most this many statement shapes are kept per process (shapes come from untrusted text).
_SEGMENTS_LIMIT = 2048


def _segment(g: Grammar, key: tuple):
    """Straight-line code that feeds a statement of this shape, once the shape has been seen twice.

    `key` is (the parser's state stack, the statement's token kinds); together they fix every
    action the table takes, so the actions can be replayed without looking them up: the code
    calls the same builders in the same order on the same children and leaves the stacks as the
    token loop would. None: feed this statement token by token (first sighting, too long); False
    (remembered): the table rejects it, the token loop will report and recover.
    """
    if key in g.sightings:
        code = _compile_segment(g, *key) if len(key[1]) <= _SEGMENT_MAX else False
        if len(g.segments) >= _SEGMENTS_LIMIT:
            g.segments.clear()
        g.segments[key] = code
        return code
    if len(g.sightings) >= _SEGMENTS_LIMIT:
        g.sightings.clear()
    g.sightings.add(key)
    return None


def _compile_segment(g: Grammar, start: tuple[int, ...], kinds: tuple[int, ...]):
    table = g.table
    rules = _rule_actions(g)
    states = list(start)
    pushed: list[str] = []  # expressions of the values this statement left on the stack, bottom first
    below = 0  # values it took from under its first token
    lines: list[str] = []

    def children(size: int) -> list[str]:
        nonlocal below, pushed
        under = max(0, size - len(pushed))
        taken = [f"values[-{below + under - k}]" for k in range(under)] + pushed[len(pushed) - (size - under):]
        below += under
        del pushed[len(pushed) - (size - under):]
        return taken

    for offset, kind in enumerate(kinds):
        while True:
            action = table[states[-1]].get(kind)
            if action is None:
                return False
            if action >= 0:
                states.append(action)
                pushed.append(f"i + {offset}")
                break
            lhs, size, name = rules[~action]
            taken = children(size)
            del states[-size:]
            states.append(table[states[-1]][lhs])
            if name is None:
                pushed.append(taken[0])
            elif name is _MORE:
                lines.append(f"{taken[0]}.append({taken[2]})")
                pushed.append(taken[0])
            else:
                value = f"v{len(lines)}"
                argument = taken[0] if size == 1 else f"[{', '.join(taken)}]"
                lines.append(f"{value} = builders[{~action}]({argument})")
                pushed.append(value)
    keep = len(start) - below  # states (and, one fewer, values) under the statement that it left alone
    lines.append(f"values[{keep - 1}:] = ({''.join(e + ', ' for e in pushed)})")
    lines.append(f"states[{keep}:] = {tuple(states[keep:])!r}")
    source = "def feed(values, states, i, builders):\n" + "".join(f"    {line}\n" for line in lines)
    namespace: dict = {}
    exec(compile(source, "<tdl statement>", "exec"), namespace)  # noqa: S102 - generated from the parse table
    return namespace["feed"]


def _join(a: Span | None, b: Span | None) -> Span | None:
    if a is None:
        return b
    return a.cover(b)


_UNQUOTED: dict[str, str] = {}


def unquote(token: str) -> str:
    """The value of a string literal (as Python reads it; the bare text between the quotes if it cannot)."""
    text = _UNQUOTED.get(token)
    if text is None:
        try:
            text = ast.literal_eval(token)
        except (ValueError, SyntaxError):
            text = token[1:-1]
        if len(_UNQUOTED) >= 10_000:
            _UNQUOTED.clear()
        _UNQUOTED[token] = text
    return text


# --------------------------------------------------------------------------- the parse loop


class _Rejected(Exception):
    """The table has no action for a token; `expected` are the terminals it would have taken."""

    def __init__(self, expected: frozenset[str]) -> None:
        super().__init__()
        self.expected = expected


@functools.cache
def _terminals(g: Grammar) -> tuple:
    """The terminal ids the loop compares with, symbol names by id, and the statement-boundary and item-start sets."""
    symbols = g.symbols
    return (symbols["SEMICOLON"], symbols["LBRACE"], symbols["RBRACE"], symbols[END], {v: k for k, v in symbols.items()},
            frozenset(symbols[t] for t in ("SEMICOLON", "LBRACE", "RBRACE", "HEADER_BLOCK")),
            frozenset(symbols[t] for t in ("GOAL", "DEFINE", "COMMAND", "HEADER_BLOCK")))


class _Parser:
    """Feed tokens through the table; on a rejected token repair, or skip to the next statement."""

    def __init__(self, tokens: Tokens, problems: list[Problem]) -> None:
        g = grammar()
        self.g = g
        self.tokens = tokens
        self.problems = problems
        self.table = g.table
        self.rules = _bound_rules(tokens)
        self.SEMICOLON, self.LBRACE, self.RBRACE, self.END, self.names, self.boundary, self.item_start = _terminals(g)
        self.states = [g.start_state]
        self.values: list = []
        self.checkpoint = (list(self.states), [])
        self.pending: list[int] = []  # tokens fed since the checkpoint, before `mark`
        self.mark = 0  # ... and every token from `mark` up to the current one
        self.recovering = False  # suppress cascades until the next statement boundary
        self.braces: list[tuple[int, dict]] = []  # open braces (token index) and what opened them
        self.silent_rbrace = 0  # braces we inserted ourselves close silently
        self.last: int | None = None
        self._eof: int | None = None

    # -- the loop ------------------------------------------------------------------
    def run(self) -> tuple[Item, ...] | None:
        tokens = self.tokens
        kinds = tokens.kinds
        count = tokens.count
        table = self.table
        rules = self.rules
        builders = [build for _, _, build in rules]
        segments = self.g.segments
        boundary = self.boundary
        SEMICOLON = self.SEMICOLON
        others = tuple(boundary - {SEMICOLON})
        problems = self.problems
        i = 0
        resumed = 0  # the loop has fed every token from here to i - 1
        while True:
            if len(problems) >= MAX_PROBLEMS:
                return None
            states, values = self.states, self.values
            push_state, push_value = states.append, values.append
            state = states[-1]
            action = 0
            while i < count:
                # One statement (up to and including the next boundary token) at a time.
                try:
                    j = kinds.index(SEMICOLON, i, count)
                except ValueError:
                    j = count - 1
                segment = kinds[i : j + 1]
                for other in others:
                    if other in segment:
                        j = min(j, i + segment.index(other))
                key = (tuple(states), tuple(kinds[i : j + 1]))
                feed = segments.get(key)
                if feed is None:
                    feed = _segment(self.g, key)
                if feed:  # a statement shape seen before: straight-line code, no table lookups
                    feed(values, states, i, builders)
                    state = states[-1]
                    if kinds[j] in boundary:
                        self._at_boundary(j, kinds[j])
                    i = j + 1
                    continue
                for i in range(i, j + 1):  # noqa: B020 - the token loop; i is where it stops
                    kind = kinds[i]
                    while True:
                        action = table[state].get(kind)
                        if action is None:
                            break
                        if action >= 0:
                            state = action
                            push_state(state)
                            push_value(i)
                            break
                        lhs, size, build = rules[~action]
                        if build is None:  # a rule that passes its one child through
                            state = states[-1] = table[states[-2]][lhs]
                        elif size == 1:  # a one-child rule: its value replaces the child
                            values[-1] = build(values[-1])
                            state = states[-1] = table[states[-2]][lhs]
                        elif build is _MORE:  # a repetition's next element, appended to its list
                            values[-3].append(values[-1])
                            del values[-2:]
                            del states[-2:]
                            state = states[-1] = table[states[-2]][lhs]
                        else:
                            children = values[-size:]  # size > 0: only the end of input reduces an empty rule
                            del values[-size:]
                            del states[-size:]
                            push_value(build(children))
                            state = table[states[-1]][lhs]
                            push_state(state)
                    if action is None:
                        break
                    if kind in boundary:
                        self._at_boundary(i, kind)
                if action is None:
                    break
                i = j + 1
            else:
                eof = self._end_token()
                if i > resumed:
                    self.last = i - 1
                self.pending.extend(range(self.mark, i))
                self.mark = i
                try:
                    return self._feed(self.states, self.values, eof)
                except _Rejected as rejected:
                    i = self._recover(i, eof, rejected.expected)
                    if i < 0:
                        return None
                    self.mark = resumed = i
                    continue
            # a token was rejected: hand over to the recovery
            if i > resumed:
                self.last = i - 1
            self.pending.extend(range(self.mark, i))
            self.mark = i
            i = self._recover(i, i, self.g.expected[states[-1]])
            if i < 0:
                return None
            self.mark = resumed = i

    def _at_boundary(self, i: int, kind: int) -> None:
        """A statement boundary was fed: braces are tracked and the parser is checkpointed."""
        if kind == self.LBRACE:
            self.braces.append((i, self._opener(self.pending + list(range(self.mark, i)))))
        elif kind == self.RBRACE and self.braces:
            self.braces.pop()
        self.checkpoint = (self.states[:], self.values[:])
        self.pending = []
        self.mark = i + 1
        self.recovering = False

    def _end_token(self) -> int:
        if self._eof is None:
            tokens = self.tokens
            end = tokens.end_offset(tokens.count - 1) if tokens.count else 0
            self._eof = tokens.add(self.END, "", end, end)
        return self._eof

    # -- feeding outside the loop (recovery) -------------------------------------------
    def _feed(self, states: list[int], values: list, token: int):
        """Feed one token (building values); the end token returns the program's items."""
        kind = self.tokens.kinds[token]
        table, rules = self.table, self.rules
        end = kind == self.END
        while True:
            action = table[states[-1]].get(kind)
            if action is None:
                raise _Rejected(self.g.expected[states[-1]])
            if action >= 0:
                states.append(action)
                values.append(token)
                return None
            lhs, size, build = rules[~action]
            if build is None:
                states[-1] = table[states[-2]][lhs]
            elif size == 1:
                values[-1] = build(values[-1])
                states[-1] = table[states[-2]][lhs]
            elif build is _MORE:
                values[-3].append(values[-1])
                del values[-2:]
                del states[-2:]
                states[-1] = table[states[-2]][lhs]
            else:
                if size:
                    children = values[-size:]
                    del values[-size:]
                    del states[-size:]
                else:
                    children = []
                values.append(build(children))
                states.append(table[states[-1]][lhs])
            if end and states[-1] == self.g.end_state:
                return values[-1]

    def _accepts(self, states: list[int], sequence: Iterable[int]) -> bool:
        """Would the parser in `states` take these tokens? (states only: no values are built)"""
        trial = list(states)
        table, rules, end_state = self.table, self.rules, self.g.end_state
        for token in sequence:
            kind = self.tokens.kinds[token]
            while True:
                action = table[trial[-1]].get(kind)
                if action is None:
                    return False
                if action >= 0:
                    trial.append(action)
                    break
                lhs, size, _ = rules[~action]
                if size:
                    del trial[-size:]
                trial.append(table[trial[-1]][lhs])
                if kind == self.END and trial[-1] == end_state:
                    return True
        return True

    def _rebuild(self) -> tuple[list[int], list]:
        states, values = list(self.checkpoint[0]), list(self.checkpoint[1])
        for token in self.pending:
            self._feed(states, values, token)
        return states, values

    def _synthetic(self, kind: str, at: int) -> int:
        value = {"SEMICOLON": ";", "WITH": "WITH", "WAIT": "WAIT", "RPAR": ")", "RBRACE": "}", "LBRACE": "{", "EQUAL": "=", "SPAWN": "SPAWN"}[kind]
        return self.tokens.add(self.g.symbols[kind], value, at, at)

    def _kind(self, token: int) -> str:
        return self.names[self.tokens.kinds[token]]

    def _statement_kind(self, token: int) -> str:
        return self._kind(self.pending[0] if self.pending else token)

    def _report(self, kind: K, start: int, end: int, **values) -> None:
        if self.recovering:
            return
        record(self.problems, Problem(kind, self.tokens.offsets_span(start, end), values=values))

    def _after_feed(self, token: int) -> None:
        self.last = token
        kind = self.tokens.kinds[token]
        if kind == self.LBRACE:
            self.braces.append((token, self._opener(self.pending)))
        elif kind == self.RBRACE and self.braces:
            self.braces.pop()
        if kind in self.boundary:
            self.checkpoint = (list(self.states), list(self.values))
            self.pending = []
            self.recovering = False
        else:
            self.pending.append(token)

    def _opener(self, pending: list[int]) -> dict:
        """What opened the block being read: {"opener": "GOAL"|"COMMAND"|None, "name": its name}."""
        kinds = [self._kind(t) for t in pending]
        names = [t for t, kind in zip(pending, kinds) if kind == "NAME"]
        for opener in ("GOAL", "COMMAND"):
            if opener in kinds and names:
                return {"opener": opener, "name": self.tokens.texts[names[0]]}
        return {"opener": None, "name": None}

    # -- recovery ----------------------------------------------------------------------
    def _recover(self, i: int, token: int, expected: frozenset[str]) -> int:
        """Handle a rejected token; return the index to continue from (-1: give up)."""
        self.states, self.values = self._rebuild()
        count = self.tokens.count
        following = list(range(i + 1, min(i + 3, count)))
        for repair in (self._insert_semicolon, self._fix_spawn_option, self._insert_rpar, self._close_block,
                       self._open_block, self._insert_equal, self._insert_spawn):
            outcome = repair(token, expected, following)
            if outcome is not None:
                inserted, mode = outcome
                for extra in inserted:
                    self._feed(self.states, self.values, extra)
                    self._after_feed(extra)
                if mode == "drop":
                    return i + 1
                if mode == "feed" and token != self._eof:
                    self._feed(self.states, self.values, token)
                    self._after_feed(token)
                    return i + 1
                return i  # the end of input goes back through the main loop
        return self._panic(i, token, expected)

    # -- repairs: each returns (tokens to insert, mode) or None; mode says what happens
    #    to the rejected token afterwards: "feed" it, or "drop" it (it was replaced).
    def _prev_end(self, token: int) -> int:
        return self.tokens.end_offset(self.last) if self.last is not None else self.tokens.starts[token]

    def _insert_semicolon(self, token, expected, following):
        if "SEMICOLON" not in expected:
            return None
        semi = self._synthetic("SEMICOLON", self._prev_end(token))
        if not self._accepts(self.states, [semi, token, *following]):
            return None
        at = self._prev_end(token)
        define = self._statement_kind(token) == "DEFINE"
        self._report(K.DEFINE_MISSING_SEMICOLON if define else K.STATEMENT_MISSING_SEMICOLON, at, at)
        return [semi], "feed"

    def _fix_spawn_option(self, token, expected, following):
        kind = self._kind(token)
        start, end, value = self.tokens.starts[token], self.tokens.end_offset(token), self.tokens.texts[token]
        if "WITH" in expected and kind in ("WAIT", "NOWAIT"):
            with_ = self._synthetic("WITH", start)
            if self._accepts(self.states, [with_, token, *following]):
                self._report(K.SPAWN_MISSING_WITH, start, end, option=value)
                return [with_], "feed"
        if "WITH" in expected and kind == "SEMICOLON":
            with_, wait = self._synthetic("WITH", start), self._synthetic("WAIT", start)
            if self._accepts(self.states, [with_, wait, token, *following]):
                self._report(K.SPAWN_MISSING_OPTION, start, end)
                return [with_, wait], "feed"
        if {"WAIT", "NOWAIT"} & expected:
            wait = self._synthetic("WAIT", start)
            if kind == "SEMICOLON" and self._accepts(self.states, [wait, token, *following]):
                self._report(K.SPAWN_WITH_WITHOUT_OPTION, start, end)
                return [wait], "feed"
            if kind == "NAME" and self._accepts(self.states, [wait, *following]):
                self._report(K.SPAWN_UNKNOWN_OPTION, start, end, option=value)
                return [wait], "drop"
        return None

    def _insert_rpar(self, token, expected, following):
        kind = self._kind(token)
        if "RPAR" not in expected or kind not in ("SEMICOLON", "WITH", "LBRACE", "RBRACE", END, "SPAWN"):
            return None
        rpar = self._synthetic("RPAR", self._prev_end(token))
        if not self._accepts(self.states, [rpar, token, *following]):
            return None
        at = self._prev_end(token)
        if self._statement_kind(token) == "DEFINE":
            problem = K.DEFINE_MISSING_RPAR
        else:
            problem = K.BLOCK_MISSING_RPAR if kind == "LBRACE" else K.STATEMENT_MISSING_RPAR
        self._report(problem, at, at)
        return [rpar], "feed"

    def _close_block(self, token, expected, following):
        if "RBRACE" not in expected or self._kind(token) not in ("GOAL", "DEFINE", "COMMAND", "HEADER_BLOCK", END):
            return None
        rbrace = self._synthetic("RBRACE", self.tokens.starts[token])
        if not self._accepts(self.states, [rbrace, token, *following]):
            return None
        if self.silent_rbrace:
            self.silent_rbrace -= 1
        elif self.braces:
            opener, what = self.braces[-1]
            start = self.tokens.starts[opener]
            self._report(K.UNCLOSED_BRACE, start, self.tokens.end_offset(opener), opened_line=self.tokens.position(start)[0], **what)
        return [rbrace], "feed"

    def _open_block(self, token, expected, following):
        if "LBRACE" not in expected:
            return None
        lbrace = self._synthetic("LBRACE", self._prev_end(token))
        if not self._accepts(self.states, [lbrace, token, *following]):
            return None
        self._report(K.BODY_WITHOUT_BRACES, self.tokens.starts[token], self.tokens.end_offset(token), **self._opener(self.pending))
        self.silent_rbrace += 1
        return [lbrace], "feed"

    def _insert_equal(self, token, expected, following):
        if "EQUAL" not in expected or self._statement_kind(token) != "DEFINE":
            return None
        equal = self._synthetic("EQUAL", self.tokens.starts[token])
        if not self._accepts(self.states, [equal, token, *following]):
            return None
        self._report(K.DEFINE_MISSING_EQUAL, self.tokens.starts[token], self.tokens.end_offset(token))
        return [equal], "feed"

    def _insert_spawn(self, token, expected, following):
        # "MoveLinear(...) WITH WAIT;" : the SPAWN keyword is missing.
        if self._kind(token) != "WITH" or not self.pending or self._kind(self.pending[0]) != "NAME":
            return None
        first = self.pending[0]
        spawn = self._synthetic("SPAWN", self.tokens.starts[first])
        if not self._accepts(self.checkpoint[0], [spawn, *self.pending, token, *following]):
            return None
        option = self.tokens.texts[following[0]] if following else ""
        self._report(K.WITH_WITHOUT_SPAWN, self.tokens.starts[first], self.tokens.end_offset(token), option=option)
        replay = [spawn, *self.pending]
        self.states, self.values = list(self.checkpoint[0]), list(self.checkpoint[1])
        self.pending = []
        for t in replay:
            self._feed(self.states, self.values, t)
            self.pending.append(t)
        return [], "feed"

    # -- panic mode ------------------------------------------------------------------
    def _panic(self, i: int, token: int, expected: frozenset[str]) -> int:
        self._report_unexpected(token, expected, self._statement_kind(token))
        self.recovering = True
        self.states, self.values = list(self.checkpoint[0]), list(self.checkpoint[1])
        self.pending = []
        if token == self._eof:
            return self._finish_at_eof()
        kinds = self.tokens.kinds
        count = self.tokens.count
        if kinds[i] == self.RBRACE and not self.braces:
            return i + 1  # a stray '}' at top level
        j = i
        while j < count and kinds[j] not in (self.SEMICOLON, self.RBRACE) and not (j > i and kinds[j] in self.item_start):
            j += 1
        if j < count and kinds[j] == self.SEMICOLON:
            j += 1
        if j == i and not self._accepts(self.states, [i]):
            j = i + 1  # the current context cannot take this token at all: drop it
        return j

    def _finish_at_eof(self) -> int:
        eof = self._end_token()
        closers: list[int] = []
        while not self._accepts(self.states, [*closers, eof]) and len(closers) < 64:
            closers.append(self._synthetic("RBRACE", self.tokens.starts[eof]))
        if len(closers) >= 64:
            return -1
        for closer in closers:
            self._feed(self.states, self.values, closer)
        return self.tokens.count

    def _report_unexpected(self, token: int, expected: frozenset[str], statement: str) -> None:
        kind = self._kind(token)
        start, end, value = self.tokens.starts[token], self.tokens.end_offset(token), self.tokens.texts[token]
        if kind == "RBRACE" and not self.braces:
            self._report(K.STRAY_RBRACE, start, end)
            return
        if kind == "NAME" and value == "HEADER":
            return  # reported by the scanner
        if statement == "DEFINE":
            problem = K.DEFINE_UNEXPECTED_TOKEN
        elif statement in ("SPAWN", "NAME"):
            problem = K.STATEMENT_UNEXPECTED_TOKEN
        else:
            problem = K.UNEXPECTED_TOKEN
        self._report(problem, start, end, token=value, expected=tuple(sorted(expected)), end_of_input=token == self._eof)

