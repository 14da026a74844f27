"""Typed experiment configs from YAML files, and the one check of a number every face uses.

A config file is a mapping whose keys are the fields of a dataclass; an unknown key, a
missing required key or a value of the wrong type is a :class:`ConfigError` that names
the file, the key, what was found and what is allowed. Nothing is silently dropped.
A shipped config is given by its name (``train_quick``: :func:`config_file`), any other by its path.

Every YAML file the project reads goes through :func:`read_yaml`: a key given twice is
refused (PyYAML keeps the last one silently), and only ``true`` and ``false`` are booleans
(YAML 1.2), so ``moon: off`` is the string ``"off"``, not ``False``.

:func:`number` is the check of every number taken from a person (a config key, a
command-line flag, an agent spec argument): its type, its range, and NaN and infinities
refused, in the same words wherever it enters.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import yaml

from .engine.checks import is_whole
from .package_data import is_bare_name, shipped_files

T = TypeVar("T")

#: The most worker processes a tool starts (``bm-eval --workers``, ``eval_workers`` of a training config): more
#: than this is a typo, not a machine (each worker holds its agents).
MAX_WORKERS = 256


class ConfigError(ValueError):
    """A config file that cannot be read into its typed object."""


class NumberError(ValueError):
    """A number out of its type or range; the message says what is allowed ("must be ..., got ...")."""


def number(value: Any, kind: type = float, low: float | None = None, high: float | None = None,
           above: bool = False) -> int | float:
    """``value`` (text from a command line or a spec, or a number read from a file) as ``kind``, checked.

    ``kind`` is ``int`` (a whole number: ``"1.5"``, ``7.7`` and ``True`` are refused; a numpy
    integer is one, as :func:`bm_env.engine.checks.is_whole` says for every face) or ``float``
    (NaN and infinities are refused). The range is ``low`` to ``high``, either open when None;
    ``above`` makes ``low`` itself excluded (a learning rate above 0).
    """
    whole = kind is int
    x: int | float | None = None
    if not isinstance(value, (bool, np.bool_)):
        if is_whole(value) or (not whole and isinstance(value, (float, np.floating))):
            x = value
        elif isinstance(value, str):
            try:
                x = int(value.strip()) if whole else float(value.strip())
            except ValueError:
                x = None
    if whole and x is None:
        raise NumberError(f"expected a whole number, got {value!r}")
    what = "a whole number" if whole else "a number"
    if low is not None and high is not None:
        allowed = f"{what} from {low:g} to {high:g}" if not above else f"{what} above {low:g} and at most {high:g}"
    elif low is not None:
        allowed = f"{what} {'above' if above else 'of at least'} {low:g}"
    elif high is not None:
        allowed = f"{what} of at most {high:g}"
    else:
        allowed = f"a finite {what[2:]}"
    ok = x is not None and math.isfinite(x) and (low is None or (x > low if above else x >= low)) and (
        high is None or x <= high)
    if not ok:
        raise NumberError(f"must be {allowed}, got {value!r}")
    return int(x) if whole else float(x)


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's booleans and no key given twice (see the module docstring)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise ConfigError(f"line {key_node.start_mark.line + 1}: key {key!r} is given twice "
                                  f"(first on line {seen[key] + 1}); give each key once")
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


_Loader.yaml_implicit_resolvers = {k: [r for r in v if r[0] != "tag:yaml.org,2002:bool"]
                                   for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))


def read_yaml(text: str, source: str) -> Any:
    """The YAML document ``text`` (from ``source``, for messages); :class:`ConfigError` if it is not one."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{source}: not valid YAML ({e})") from None


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
            want = "true or false" if hints[name] is bool else getattr(hints[name], "__name__", str(hints[name]))
            raise ConfigError(f"{source}: key {name!r} must be {want}, got {type(value).__name__} {value!r}")
    missing = [n for n, f in fields.items() if n not in data
               and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if missing:
        raise ConfigError(f"{source}: missing required key(s) {missing}")
    return cls(**data)


def shipped_configs() -> dict[str, Path]:
    """Every shipped config file (``configs/`` of the repository, ``bm_env/configs`` installed), by name."""
    return shipped_files("configs", ".yaml")


def config_file(text: str | Path) -> Path:
    """The config file ``text`` names: a shipped config's file for a bare name (``train_quick``), else the
    path itself; a bare name that no shipped config has is refused with the names there are."""
    if isinstance(text, Path) or not is_bare_name(text):
        return Path(text)
    configs = shipped_configs()
    if text not in configs:
        raise ConfigError(f"no shipped config named {text!r} (shipped: {', '.join(configs) or 'none are installed'}); "
                          f"give a config file by its path, e.g. ./{text}.yaml")
    return configs[text]


def load_config(cls: type[T], path: str | Path) -> T:
    """Read a YAML file, or a shipped config by name (:func:`config_file`), into dataclass ``cls``."""
    path = config_file(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the config ({e.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (a config is UTF-8 YAML)") from None
    data = read_yaml(text, str(path))
    return from_mapping(cls, data if data is not None else {}, str(path))
