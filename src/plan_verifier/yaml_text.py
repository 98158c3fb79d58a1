"""YAML text in and out: libyaml's loader, and a small emitter in seed 003's style.

Every YAML the verifier reads (plans, robot specs, cells, the command
catalogue, actions files) goes through `load`, which uses libyaml when PyYAML
has it: the pure-Python loader costs tens of milliseconds per file, which is
most of `plan-verify check`'s start-up.

Approved actions files are written on every approval, so their emitter sits on
the service's hot path; PyYAML's pure-Python emitter spends tens of
milliseconds on a 100-step plan. The data is always JSON-like (mappings with
scalar keys, lists, strings, numbers, booleans, null), and the format is fixed
by seed 003: block style, key order kept, 2-space indentation with sequences
indented under their key, strings double-quoted, unicode kept. That is a
small, fully specified subset, emitted here directly. `safe_load` of the output
gives back the input (tests check this on random data).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Characters YAML does not allow raw in a stream, or that PyYAML folds as line breaks.
_NOT_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def load(text: str) -> Any:
    """`yaml.safe_load`, with libyaml when available (same results, same exceptions)."""
    return yaml.load(text, Loader=_LOADER)


def dump(data: Any) -> str:
    """`data` as a YAML document (ending with a newline)."""
    lines: list[str] = []
    _node(data, 0, lines)
    return "\n".join(lines) + "\n"


def _node(value: Any, indent: int, lines: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict) and value:
        for key, item in value.items():
            head = f"{pad}{_key(key)}:"
            if _is_block(item):
                lines.append(head)
                _node(item, indent + 2, lines)
            else:
                lines.append(f"{head} {_scalar(item)}")
    elif isinstance(value, list) and value:
        for item in value:
            if _is_block(item):
                start = len(lines)
                _node(item, indent + 2, lines)
                lines[start] = f"{pad}- {lines[start][indent + 2:]}"
            else:
                lines.append(f"{pad}- {_scalar(item)}")
    else:
        lines.append(pad + _scalar(value))


def _is_block(value: Any) -> bool:
    return isinstance(value, (dict, list)) and bool(value)


def _key(key: Any) -> str:
    if isinstance(key, str) and _PLAIN_KEY.fullmatch(key) and key.lower() not in _RESERVED:
        return key
    return _scalar(key)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, (list, tuple)):
        return "[]"
    raise TypeError(f"cannot emit {type(value).__name__} as YAML")


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "e" in text and "." not in text:  # YAML 1.1 floats need a dot: 1e+20 -> 1.0e+20
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _string(value: str) -> str:
    quoted = json.dumps(value, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)
