"""JSON and YAML plan documents, decoded once, with the positions of their steps.

A JSON document is decoded by the C decoder exactly once: the containers on
the way to the step list are walked member by member (`raw_decode` of each
value), so each step is decoded once and its start and end are known without
a second pass. Any deviation from the JSON grammar falls back to `json.loads`
for the exact error message. Positions inside a step (a field, an argument)
are looked up only when a message needs one.

A YAML document is composed into nodes once by libyaml (`CSafeLoader`) and
the data is constructed from those nodes, so positions come from the same
parse; the pure-Python loader is never used.

Positions follow YAML's conventions for both formats: 1-based lines, counting
`\\r\\n`, `\\n`, `\\r`, NEL and the Unicode line and paragraph separators as
line breaks, and a byte order mark is not a column.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from plan_verifier.findings import Span
from plan_verifier.problems import Problem, ProblemKind as K

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_VALUE = json.JSONDecoder()
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")  # what YAML counts as a line break
_BREAK_CHARS = "\n\r\x85\u2028\u2029"
#: The containers the JSON walk opens (objects) and the lists whose elements are steps, by path from the root.
_WALKED_OBJECTS = frozenset({(), ("RobotSequence",)})
_STEP_LISTS = frozenset({(), ("steps",), ("RobotSequence", "steps")})

Path = tuple  # mapping keys and 0-based sequence indices, from the root


class _NotPlain(Exception):
    """The JSON walk met something it does not handle itself; `json.loads` decides."""


@dataclass(frozen=True, eq=False)
class Document:
    """A decoded JSON or YAML document (`problem` says why there is no `data`), and where its parts are."""

    text: str
    syntax: str  # json | yaml
    data: Any = None
    problem: Problem | None = None
    _spans: dict[Path, Span] = field(default_factory=dict, repr=False)  # JSON: steps found by the walk
    _root: yaml.Node | None = field(default=None, repr=False)  # YAML: the composed nodes

    def span(self, path: Path) -> Span | None:
        """Where the value at `path` is written (None when the document does not say)."""
        if self.syntax == "yaml":
            node = _yaml_node(self._root, path)
            return _yaml_span(node, self.text) if node is not None else None
        found = self._spans.get(path)
        if found is None and path:
            found = _json_span(self.text, path)
        return found


def non_finite_numbers(data: Any, prefix: Path = ()) -> list[Path]:
    """The paths of the numbers in decoded data that are not finite: JSON's `NaN`/`Infinity` and YAML's
    `.nan`/`.inf` (both decoders accept them), and literals beyond the range of a double (`1e999`).
    A plan never needs one, and no check can compare one with a limit."""
    out: list[Path] = []
    stack: list[tuple[Path, Any]] = [(prefix, data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float):
            if value - value != 0.0:
                out.append(path)
        elif isinstance(value, dict):
            stack.extend((path + (key,), item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((path + (k,), item) for k, item in enumerate(value))
    return sorted(out, key=lambda p: [str(part) for part in p])


def decode_document(text: str) -> Document:
    """JSON when the text starts with `[` or `{` (after whitespace and byte order marks), else YAML."""
    if text.lstrip("\ufeff \t\r\n")[:1] in ("[", "{"):
        return _decode_json(text)
    return _decode_yaml(text)


# ----------------------------------------------------------------------------- JSON


def _decode_json(text: str) -> Document:
    body = text[1:] if text.startswith("\ufeff") else text  # YAML does not count a byte order mark as a column
    try:
        data, offsets = _walk_json(body)
    except (_NotPlain, ValueError, IndexError):
        pass  # the C decoder gives the error (or, for something the walk does not take, the data without positions)
    except RecursionError:
        return Document(text, "json", problem=Problem(K.DOCUMENT_TOO_DEEP, Span.point(1, 1)))
    else:
        lines = _Lines(body)
        return Document(text, "json", data, _spans={path: lines.span(begin, end) for path, (begin, end) in offsets.items()})
    try:
        return Document(text, "json", json.loads(text.lstrip("\ufeff")))
    except json.JSONDecodeError as exc:
        return Document(text, "json", problem=Problem(K.JSON_INVALID, Span.point(exc.lineno, exc.colno), values={"reason": exc.msg}))
    except RecursionError:
        return Document(text, "json", problem=Problem(K.DOCUMENT_TOO_DEEP, Span.point(1, 1)))


def _walk_json(text: str) -> tuple[Any, dict[Path, tuple[int, int]]]:
    """Decode `text` as `json.loads` would, recording where each step starts and ends."""
    offsets: dict[Path, tuple[int, int]] = {}
    space = _JSON_SPACE.match
    decode = _JSON_VALUE.raw_decode

    def value(i: int, path: Path) -> tuple[Any, int]:
        """(value, end) of the JSON value that starts at i."""
        opener = text[i]
        if opener == "{" and path in _WALKED_OBJECTS:
            members: dict[str, Any] = {}
            i = space(text, i + 1).end()
            if text[i] == "}":
                return members, i + 1
            while True:
                if text[i] != '"':
                    raise _NotPlain
                key, i = decode(text, i)
                i = space(text, i).end()
                if text[i] != ":":
                    raise _NotPlain
                members[key], i = value(space(text, i + 1).end(), path + (key,))
                i = space(text, i).end()
                if text[i] == "}":
                    return members, i + 1
                if text[i] != ",":
                    raise _NotPlain
                i = space(text, i + 1).end()
        if opener == "[" and path in _STEP_LISTS:
            items: list[Any] = []
            i = space(text, i + 1).end()
            if text[i] == "]":
                return items, i + 1
            while True:
                item, end = decode(text, i)
                offsets[path + (len(items),)] = (i, end)
                items.append(item)
                i = space(text, end).end()
                if text[i] == "]":
                    return items, i + 1
                if text[i] != ",":
                    raise _NotPlain
                i = space(text, i + 1).end()
        return decode(text, i)

    start = space(text).end()
    data, end = value(start, ())
    if space(text, end).end() != len(text):
        raise _NotPlain
    return data, offsets


def _json_span(text: str, path: Path) -> Span | None:
    """Where the value at `path` is (a second scan, for positions below the step level)."""
    body = text[1:] if text.startswith("\ufeff") else text
    space = _JSON_SPACE.match
    decode = _JSON_VALUE.raw_decode
    try:
        begin = space(body).end()
        end = decode(body, begin)[1]
        for part in path:
            found = None
            opener = body[begin]
            if opener not in "{[" or isinstance(part, str) != (opener == "{"):
                return None
            i = space(body, begin + 1).end()
            index = 0
            while body[i] != ("}" if opener == "{" else "]"):
                key = None
                if opener == "{":
                    key, i = decode(body, i)
                    i = space(body, space(body, i).end() + 1).end()  # past the ':'
                value_end = decode(body, i)[1]
                if (opener == "{" and key == part) or (opener == "[" and index == part):
                    found = (i, value_end)  # the last member of that name, as the decoded data has it
                index += 1
                i = space(body, value_end).end()
                if body[i] == ",":
                    i = space(body, i + 1).end()
            if found is None:
                return None
            begin, end = found
        return _Lines(body).span(begin, end)
    except (ValueError, IndexError, RecursionError):
        return None


class _Lines:
    """Character offsets to YAML-style line/column positions."""

    def __init__(self, text: str) -> None:
        self.breaks = [m.end() for m in _LINE_BREAK.finditer(text)]

    def point(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.breaks, offset)
        return line + 1, offset - (self.breaks[line - 1] if line else 0) + 1

    def span(self, begin: int, end: int) -> Span:
        return Span(*self.point(begin), *self.point(end))


# ----------------------------------------------------------------------------- YAML


def _decode_yaml(text: str) -> Document:
    loader = _LOADER(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        span = Span.point(mark.line + 1, mark.column + 1) if mark else Span.point(1, 1)
        return Document(text, "yaml", problem=Problem(K.YAML_INVALID, span, values={"reason": str(getattr(exc, "problem", None) or exc)}))
    except RecursionError:
        return Document(text, "yaml", problem=Problem(K.DOCUMENT_TOO_DEEP, Span.point(1, 1)))
    except (ValueError, TypeError, OverflowError) as exc:  # a scalar the constructor cannot build (a 13th month, ...)
        return Document(text, "yaml", problem=Problem(K.YAML_INVALID, Span.point(1, 1), values={"reason": str(exc)}))
    finally:
        loader.dispose()
    return Document(text, "yaml", data, _root=root)


def _yaml_node(node: yaml.Node | None, path: Path) -> yaml.Node | None:
    for part in path:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            found = None
            for key, value in node.value:
                if getattr(key, "value", None) == part:
                    found = value  # the last one, as the constructed mapping has it
            node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
        else:
            return None
    return node


def _yaml_span(node: yaml.Node, text: str) -> Span:
    start, end = node.start_mark, node.end_mark
    end_line, end_column = end.line, end.column
    if end.index == len(text) and end_column == 0 and end_line > 0 and text and text[-1] not in _BREAK_CHARS:
        # libyaml puts the end of a document without a final line break on a line of its own;
        # the position is the end of the last line.
        end_line -= 1
        end_column = len(text) - max(text.rfind(c) for c in _BREAK_CHARS) - 1
    return Span(start.line + 1, start.column + 1, end_line + 1, end_column + 1)
