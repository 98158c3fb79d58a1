"""Where shipped configuration lives, whatever the working directory.

The repository's `config/` is installed to `share/plan_verifier/config` by
setup.py (the ROS layout). A source checkout or editable install uses the
repository's own directory. `PLAN_VERIFIER_CONFIG_DIR` overrides both.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Callable


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


def cache_file(name: str) -> Path | None:
    """Where derived data may be kept (`name` says what and of which input): a private per-user directory, never a
    shared temporary one; None when there is none the user owns and can write."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "plan_verifier")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if os.stat(directory).st_uid != os.getuid() or not os.access(directory, os.W_OK):
            return None
    except OSError:
        return None
    return Path(directory) / name


def load_cached(path: Path | None) -> object | None:
    """A JSON document kept by `store_cached`, or None (no cache, unreadable, damaged)."""
    if path is None:
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def store_cached(path: Path | None, document: object) -> None:
    """Write a JSON document atomically (a reader never sees half of it); a failure only costs the next start."""
    if path is None:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(document), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def derived(name: str, source: str, deriver: str, derive: Callable[[str], object]) -> object:
    """`derive(source)` as a JSON document, kept in the per-user cache under `name` and a key of the source and of the
    deriving module's file `deriver` (a change to either derives it again), so a process start reads it instead."""
    key = hashlib.sha256(source.encode("utf-8") + Path(deriver).read_bytes()).hexdigest()[:24]
    path = cache_file(f"{name}-{key}.json")
    document = load_cached(path)
    if document is None:
        document = derive(source)
        store_cached(path, document)
    return document
