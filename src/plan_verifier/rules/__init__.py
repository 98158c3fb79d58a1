"""The rule registry: every module `r_<cat>_<nnn>.py` in this package holds one rule.

Rules register themselves with `@register`; importing this package imports
every rule module, so the registry is complete as soon as it is used. The
catalogue printed by `plan-verify rules`, the pipeline and the fixture runner
all read this one registry.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from plan_verifier.rules.base import Rule

_REGISTRY: dict[str, type[Rule]] = {}
_MODULE_NAME = re.compile(r"^r_([a-z]{3})_(\d{3})$")


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator: add a rule to the registry (ids are unique)."""
    if cls.id in _REGISTRY and _REGISTRY[cls.id] is not cls:
        raise RuntimeError(f"duplicate rule id {cls.id}")
    expected = "r_" + cls.id[2:].lower().replace("-", "_")
    if cls.__module__.rsplit(".", 1)[-1] != expected:
        raise RuntimeError(f"rule {cls.id} must live in module {expected}.py")
    _REGISTRY[cls.id] = cls
    return cls


def _load_all() -> None:
    for info in pkgutil.iter_modules(__path__):
        if _MODULE_NAME.match(info.name):
            importlib.import_module(f"{__name__}.{info.name}")


def all_rules() -> list[type[Rule]]:
    """Every registered rule class, ordered by id."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get(rule_id: str) -> type[Rule]:
    return _REGISTRY[rule_id]


_load_all()
