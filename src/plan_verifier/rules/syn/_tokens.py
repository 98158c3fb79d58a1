"""Shared by R-SYN-001/002/005: how a token the parser rejected is described."""

from __future__ import annotations

from typing import Any, Mapping

_READABLE = {
    "SEMICOLON": "';'", "COMMA": "','", "EQUAL": "'='", "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'",
    "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'", "DOT": "'.'", "ELLIPSIS": "'...'", "SIGN": "'-'",
    "BINOP": "an operator", "NAME": "a name", "NUMBER": "a number", "STRING": "a string",
    "HEADER_BLOCK": "HEADER", "NONE": "None", "TRUE": "True", "FALSE": "False",
}


def unexpected(values: Mapping[str, Any]) -> str:
    """"unexpected ';' (expected ')', ',')": the rejected token and up to 8 terminals the grammar allowed there."""
    what = "end of input" if values["end_of_input"] else f"'{values['token']}'"
    readable = ", ".join(sorted(_READABLE.get(e, e) for e in values["expected"] if e != "$END")[:8])
    return f"unexpected {what} (expected {readable})" if readable else f"unexpected {what}"


def evidence(values: Mapping[str, Any]) -> dict[str, Any]:
    return {"token": values["token"], "expected": list(values["expected"])}
