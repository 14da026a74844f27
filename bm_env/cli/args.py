"""What every command-line tool checks the same way: numbers, output paths, ``--version``, help text.

A bad value must be refused while the arguments are parsed, before any work starts: an
evaluation that runs for an hour and then cannot write its report, or a game lost at the
end because its record cannot be saved, is the failure this module exists to prevent.
:class:`Parser` reports a bad argument in one line (``prog: error: ...``) with exit status
2, and shows module docstrings without their reStructuredText markup. The converters
accept a string (the command line) or a value already read (a config file), so a tool
checks config values with :func:`recheck` through the same functions.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from pathlib import Path
from typing import Callable, Iterable, NoReturn

from .. import __version__

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")  # :func:`bm_env.x.y`, :mod:`~bm_env.x`
_LITERAL = re.compile(r"``([^`]+)``")


def plain(text: str | None) -> str | None:
    """``text`` without reStructuredText markup: ````x```` and ``:role:`x``` become x."""
    if text is None:
        return None
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if m.group(0).count("~") else m.group(1), text)
    return _LITERAL.sub(r"\1", text).replace("::\n", ":\n")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and whose help has no reST markup."""

    def __init__(self, *args, **kwargs) -> None:
        for key in ("description", "epilog"):
            kwargs[key] = plain(kwargs.get(key))
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"%(prog)s (black-maria) {__version__}")


def _whole(value: object) -> int:
    if isinstance(value, bool):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None


def positive_int(value: object) -> int:
    """A whole number of at least 1 (boards, workers, deals)."""
    n = _whole(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {value!r}")
    return n


def non_negative_int(value: object) -> int:
    """A whole number of at least 0 (seeds, counts where 0 means none)."""
    n = _whole(value)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 0, got {value!r}")
    return n


def non_negative_float(value: object) -> float:
    """A number of at least 0 (delays in seconds)."""
    try:
        x = float(str(value).strip()) if not isinstance(value, bool) else None
    except ValueError:
        x = None
    if x is None or not x >= 0 or x == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of at least 0, got {value!r}")
    return x


def comma_list(allowed: Iterable[str]) -> Callable[[str], list[str]]:
    """A converter for ``a,b,c``, each one of ``allowed``."""
    allowed = list(allowed)

    def convert(value: str) -> list[str]:
        names = [v.strip() for v in value.split(",") if v.strip()]
        bad = [v for v in names if v not in allowed]
        if bad or not names:
            raise argparse.ArgumentTypeError(f"unknown name(s) {bad or [value]}; allowed: {', '.join(allowed)}")
        return names

    return convert


def _probe(folder: Path, wanted: str) -> None:
    """Raise ArgumentTypeError unless a file can be created in ``folder`` (or its nearest existing parent)."""
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {wanted}: {existing} is not a directory")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write {wanted}: {existing} is not writable ({e.strerror})") from None


def output_file(value: str) -> str:
    """A file path the tool will be able to write at the end: not a directory, in a writable place."""
    path = Path(value).expanduser()
    if not value:
        raise argparse.ArgumentTypeError("give a file name such as game.json")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is a directory; give a file name such as game.json")
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write {value}: the file is not writable")
    _probe(path.parent if str(path.parent) else Path("."), value)
    return value


def output_dir(value: str) -> str:
    """A folder the tool will be able to write its files into (created at the end if missing)."""
    path = Path(value).expanduser()
    if not value:
        raise argparse.ArgumentTypeError("give a folder name")
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value} exists and is not a folder")
    _probe(path, value)
    return value


def recheck(parser: argparse.ArgumentParser, args: argparse.Namespace, checks: dict[str, Callable]) -> None:
    """Apply ``checks`` (option -> converter) to values that came from elsewhere (a config file)."""
    for name, check in checks.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        try:
            setattr(args, name, check(value))
        except argparse.ArgumentTypeError as e:
            parser.error(f"{name}: {e}")

