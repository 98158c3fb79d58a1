"""The rule registry: every module `<fam>/r_<fam>_<nnn>.py` below this package holds one rule.

Rules are grouped by family (`syn/`, `saf/`, `con/`, `dom/`, `grf/`, `sem/`,
...), so R-SAF-004 lives in `rules/saf/r_saf_004.py` and nowhere else. Rules
register themselves with `@register` when their module is imported. Every
rule of a family has the family's category (its package's `CATEGORY`,
checked at registration), so the registry imports a family's rule modules
only when a rule of it is asked for: `in_categories` for the stages a
verification runs (a check at STANDARD never imports the semantic rules and
their readers), `get` for one rule, `all_rules` for the whole catalogue
(`plan-verify rules`, SARIF, the fixture runner). They all read this one
registry.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from typing import Iterable

from plan_verifier.findings import Category
from plan_verifier.rules.base import Rule

_REGISTRY: dict[str, type[Rule]] = {}
_MODULE_NAME = re.compile(r"^r_([a-z]{3})_(\d{3})$")
#: Family packages whose rule modules are imported (all of them, or none).
_LOADED: set[str] = set()
_LOCK = threading.RLock()
#: The only categories that may hold `every_level` rules: a level that skips a stage still loads these families
#: (to run those rules), and only these, so BASIC imports no execution or semantic code.
EVERY_LEVEL_CATEGORIES = frozenset({Category.CONSISTENCY})


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator: add a rule to the registry (ids are unique, each in its family's category)."""
    if cls.id in _REGISTRY and _REGISTRY[cls.id] is not cls:
        raise RuntimeError(f"duplicate rule id {cls.id}")
    family, module = _home(cls.id)
    if cls.__module__ != f"{__name__}.{family}.{module}":
        raise RuntimeError(f"rule {cls.id} must live in module rules/{family}/{module}.py")
    if cls.category is not _families().get(family):
        raise RuntimeError(f"rule {cls.id} has category {cls.category.value}, its family rules/{family}/ {_families().get(family)}")
    if cls.every_level and cls.category not in EVERY_LEVEL_CATEGORIES:
        raise RuntimeError(f"rule {cls.id} runs at every level, so its category must be in EVERY_LEVEL_CATEGORIES")
    _REGISTRY[cls.id] = cls
    return cls


def _home(rule_id: str) -> tuple[str, str]:
    """(family package, module name) of a rule id: R-SAF-004 -> ("saf", "r_saf_004")."""
    module = "r_" + rule_id[2:].lower().replace("-", "_")
    return module.split("_")[1], module


_FAMILIES: dict[str, Category] = {}


def _families() -> dict[str, Category]:
    """Each family package and its category (importing a family's `__init__` only)."""
    with _LOCK:
        if not _FAMILIES:
            for info in pkgutil.iter_modules(__path__):
                if info.ispkg:
                    _FAMILIES[info.name] = importlib.import_module(f"{__name__}.{info.name}").CATEGORY
        return _FAMILIES


def _load(families: Iterable[str]) -> None:
    """Import every rule module of these families (once)."""
    with _LOCK:
        for family in families:
            if family in _LOADED:
                continue
            package = importlib.import_module(f"{__name__}.{family}")
            for info in pkgutil.iter_modules(package.__path__):
                if _MODULE_NAME.match(info.name):
                    importlib.import_module(f"{package.__name__}.{info.name}")
            _LOADED.add(family)


def in_categories(categories: Iterable[Category]) -> list[type[Rule]]:
    """Every rule of these categories, ordered by id (their families imported on first use)."""
    wanted = set(categories)
    families = [family for family, category in _families().items() if category in wanted]
    _load(families)
    return [cls for key, cls in sorted(_REGISTRY.items()) if cls.category in wanted]


def all_rules() -> list[type[Rule]]:
    """Every rule class, ordered by id."""
    _load(_families())
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get(rule_id: str) -> type[Rule]:
    """The rule with this id (KeyError: no such rule)."""
    family, module = _home(rule_id)
    if rule_id not in _REGISTRY and family in _families():
        _load([family])
    return _REGISTRY[rule_id]


def owner(kind: str) -> type[Rule]:
    """The rule that owns (words) a reader problem kind."""
    for rule in all_rules():
        if kind in rule.owns:
            return rule
    raise KeyError(f"no rule owns problem kind {kind!r}")
