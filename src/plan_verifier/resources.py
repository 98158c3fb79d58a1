"""Where shipped configuration lives, whatever the working directory.

The repository's `config/` is installed to `share/plan_verifier/config` by
setup.py (the ROS layout). A source checkout or editable install uses the
repository's own directory. `PLAN_VERIFIER_CONFIG_DIR` overrides both.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


class ConfigError(Exception):
    """A configuration file (robot spec, cell, parameters) is missing or invalid."""


def config_dir() -> Path:
    override = os.environ.get("PLAN_VERIFIER_CONFIG_DIR")
    if override:
        return Path(override)
    here = Path(__file__).resolve()
    candidates = [here.parents[2] / "config", Path(sys.prefix) / "share" / "plan_verifier" / "config"]
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        if prefix:
            candidates.append(Path(prefix) / "share" / "plan_verifier" / "config")
    for candidate in candidates:
        if (candidate / "robots").is_dir():
            return candidate
    return candidates[0]


def interfaces_dir() -> Path:
    """The .msg/.srv texts of plan_verifier_interfaces (bags are read and written without ROS).

    The repository's `msg/` in a checkout or editable install, else the copy
    setup.py installs to `share/plan_verifier/interfaces`, else the built
    `share/plan_verifier_interfaces` of this environment or of an ament prefix.
    """
    here = Path(__file__).resolve()
    candidates = [here.parents[2] / "msg", Path(sys.prefix) / "share" / "plan_verifier" / "interfaces",
                  Path(sys.prefix) / "share" / "plan_verifier_interfaces"]
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        if prefix:
            candidates.append(Path(prefix) / "share" / "plan_verifier_interfaces")
    for candidate in candidates:
        if (candidate / "srv" / "VerifyPlan.srv").is_file():
            return candidate
    raise ConfigError("the plan_verifier_interfaces definitions (msg/*.msg, srv/VerifyPlan.srv) were not found")


def resolve(kind: str, name_or_path: str, suffixes: tuple[str, ...] = (".yaml", ".yml")) -> Path:
    """A NAME resolves to `config/<kind>/NAME.yaml`; anything path-like is a file."""
    looks_like_path = os.sep in name_or_path or "/" in name_or_path or name_or_path.endswith(suffixes)
    if looks_like_path:
        path = Path(name_or_path)
        if not path.is_file():
            raise ConfigError(f"{kind[:-1]} file not found: {name_or_path}")
        return path
    for suffix in suffixes:
        path = config_dir() / kind / f"{name_or_path}{suffix}"
        if path.is_file():
            return path
    if Path(name_or_path).is_file():
        return Path(name_or_path)
    known = sorted(p.stem for p in (config_dir() / kind).glob("*.yaml"))
    raise ConfigError(f"unknown {kind[:-1]} '{name_or_path}' (known: {', '.join(known) or 'none'})")
