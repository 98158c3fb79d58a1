"""The TDL command catalogue, loaded once from `data/commands.yaml`.

Keeping signatures as data means a new vendor command is a YAML edit, and the
same table drives argument binding (R-SYN-006/007/011), the analyses (which
commands move the robot) and `plan-verify rules`. The file is validated
(pydantic) when it changes; the validated table is kept as JSON in the
per-user cache (`resources.derived`, keyed by the file and this module, as
the TDL grammar's tables are), so a `plan-verify` start reads that instead
of parsing the YAML again.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from plan_verifier import yaml_text
from plan_verifier.resources import derived

ParamType = Literal["pose", "pose_list", "number", "value", "symbol", "condition", "any"]
_REQUIRED = object()


class _ParamModel(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # validators built only when the file changed
    name: str
    type: ParamType
    default: Any = _REQUIRED


class _CommandModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)
    kind: Literal["flow", "pose", "config", "motion", "io", "application"]
    motion: Literal["joint", "linear", "circular", "blend"] | None = None
    is_async: bool = Field(False, alias="async")
    returns: bool = False
    params: list[_ParamModel]


class _CatalogueModel(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    commands: dict[str, _CommandModel]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str
    required: bool
    default: Any = None


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    kind: str
    params: tuple[Param, ...]
    motion: str | None = None
    is_async: bool = False
    returns: bool = False

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def signature(self) -> str:
        parts = [p.name if p.required else f"{p.name}={p.default!r}" for p in self.params]
        return f"{self.name}({', '.join(parts)})"


@functools.cache
def catalogue() -> dict[str, CommandSpec]:
    text = resources.files("plan_verifier.data").joinpath("commands.yaml").read_text(encoding="utf-8")
    table = derived("commands", text, __file__, _validated)
    return {name: CommandSpec(name, kind, tuple(Param(*p) for p in params), motion, is_async, returns)
            for name, (kind, params, motion, is_async, returns) in table.items()}


def _validated(text: str) -> dict[str, list]:
    """commands.yaml checked against the catalogue's schema, as plain JSON values: {name: [kind, [[param name, type,
    required, default]], motion, async, returns]}."""
    model = _CatalogueModel.model_validate(yaml_text.load(text))
    return {name: [cmd.kind, [[p.name, p.type, p.default is _REQUIRED, None if p.default is _REQUIRED else p.default]
                              for p in cmd.params], cmd.motion, cmd.is_async, cmd.returns]
            for name, cmd in model.commands.items()}


def lookup(name: str) -> CommandSpec | None:
    return catalogue().get(name)


def closest(name: str) -> str | None:
    """The catalogue command a misspelt name most likely meant (for suggestions)."""
    lowered = {n.lower(): n for n in catalogue()}
    if name.lower() in lowered:
        return lowered[name.lower()]
    match = difflib.get_close_matches(name, list(catalogue()), n=1, cutoff=0.75)
    return match[0] if match else None
