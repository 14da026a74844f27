"""Typed experiment configs from YAML files.

A config file is a mapping whose keys are the fields of a dataclass; an unknown key, a
missing required key or a value of the wrong type is a :class:`ConfigError` that names
the file, the key, what was found and what is allowed. Nothing is silently dropped.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class ConfigError(ValueError):
    """A config file that cannot be read into its typed object."""


def _type_ok(value: Any, annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, a) for a in typing.get_args(annotation))
    if annotation is type(None):
        return value is None
    if annotation is Any:
        return True
    if origin in (list, tuple):
        (item,) = typing.get_args(annotation)[:1] or (Any,)
        return isinstance(value, list) and all(_type_ok(v, item) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, annotation)


def from_mapping(cls: type[T], data: Any, source: str) -> T:
    """Build dataclass ``cls`` from a mapping, checking keys and types."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a config must be a mapping of keys to values, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {unknown}; allowed keys: {list(fields)}")
    hints = typing.get_type_hints(cls)
    for name, value in data.items():
        if not _type_ok(value, hints[name]):
            want = getattr(hints[name], "__name__", str(hints[name]))
            raise ConfigError(f"{source}: key {name!r} must be {want}, got {type(value).__name__} {value!r}")
    missing = [n for n, f in fields.items() if n not in data
               and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if missing:
        raise ConfigError(f"{source}: missing required key(s) {missing}")
    return cls(**data)


def load_config(cls: type[T], path: str | Path) -> T:
    """Read a YAML file into dataclass ``cls``."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the config ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (a config is UTF-8 YAML)") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML ({e})") from None
    return from_mapping(cls, data if data is not None else {}, str(path))
