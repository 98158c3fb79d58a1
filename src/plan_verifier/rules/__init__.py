"""The rule registry: every module `<fam>/r_<fam>_<nnn>.py` below this package holds one rule.

Rules are grouped by family (`syn/`, `saf/`, `con/`, `dom/`, `grf/`, `sem/`,
...), so R-SAF-004 lives in `rules/saf/r_saf_004.py` and nowhere else. Rules
register themselves with `@register`; importing this package imports every
rule module, so the registry is complete as soon as it is used. The catalogue
printed by `plan-verify rules`, the pipeline and the fixture runner all read
this one registry.
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
    family, module = _home(cls.id)
    if cls.__module__ != f"{__name__}.{family}.{module}":
        raise RuntimeError(f"rule {cls.id} must live in module rules/{family}/{module}.py")
    _REGISTRY[cls.id] = cls
    return cls


def _home(rule_id: str) -> tuple[str, str]:
    """(family package, module name) of a rule id: R-SAF-004 -> ("saf", "r_saf_004")."""
    module = "r_" + rule_id[2:].lower().replace("-", "_")
    return module.split("_")[1], module


def _load_all() -> None:
    for family in pkgutil.iter_modules(__path__):
        if not family.ispkg:
            continue
        package = importlib.import_module(f"{__name__}.{family.name}")
        for info in pkgutil.iter_modules(package.__path__):
            if _MODULE_NAME.match(info.name):
                importlib.import_module(f"{package.__name__}.{info.name}")


def all_rules() -> list[type[Rule]]:
    """Every registered rule class, ordered by id."""
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get(rule_id: str) -> type[Rule]:
    return _REGISTRY[rule_id]


def owner(kind: str) -> type[Rule]:
    """The rule that owns (words) a reader problem kind."""
    for rule in _REGISTRY.values():
        if kind in rule.owns:
            return rule
    raise KeyError(f"no rule owns problem kind {kind!r}")


_load_all()
