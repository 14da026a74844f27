"""What every command-line tool checks the same way: numbers, output paths, ``--version``, help text.

A bad value must be refused while the arguments are parsed, before any work starts: an
evaluation that runs for an hour and then cannot write its report, or a game lost at the
end because its record cannot be saved, is the failure this module exists to prevent.
:class:`Parser` reports a bad argument in one line (``prog: error: ...``) with exit status
2, and shows module docstrings without their reStructuredText markup. The converters
accept a string (the command line) or a value already read (a config file), so a tool
checks config values with :func:`recheck` through the same functions; the numbers are
checked by :func:`bm_env.config.number`, as config keys and agent specs are.
:func:`distinct_outputs` refuses an output file that is an input or another output.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Callable, Iterable, NoReturn

from .. import __version__
from ..config import MAX_WORKERS, NumberError, number
from ..engine.files import unwritable_file, unwritable_folder

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
        """Exit with status 2 after one line, ``message`` and where the help is, in place of argparse's usage block."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_version(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` a ``--version`` flag that prints the command's name and the package version."""
    parser.add_argument("--version", action="version", version=f"%(prog)s (black-maria) {__version__}")


def _checked(value: object, kind: type, low: float | None, high: float | None = None, above: bool = False):
    """:func:`bm_env.config.number` with argparse's error type (the wording is that function's)."""
    try:
        return number(value, kind, low, high, above)
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def positive_int(value: object) -> int:
    """A whole number of at least 1 (boards, deals)."""
    return _checked(value, int, 1)


def non_negative_int(value: object) -> int:
    """A whole number of at least 0 (seeds, counts where 0 means none)."""
    return _checked(value, int, 0)


def int_range(low: int, high: int) -> Callable[[object], int]:
    """A converter for a whole number from ``low`` to ``high``."""
    return lambda value: _checked(value, int, low, high)


def float_range(low: float, high: float) -> Callable[[object], float]:
    """A converter for a number from ``low`` to ``high``."""
    return lambda value: _checked(value, float, low, high)


#: Worker processes (evaluation): 1 to :data:`~bm_env.config.MAX_WORKERS`.
workers = int_range(1, MAX_WORKERS)


def comma_list(allowed: Iterable[str]) -> Callable[[str], list[str]]:
    """A converter for ``a,b,c``, each one of ``allowed``."""
    allowed = list(allowed)

    def convert(value: str) -> list[str]:
        names = [v.strip() for v in value.split(",")]
        if "" in names:
            raise argparse.ArgumentTypeError(f"{value!r} has an empty name; give names separated by commas, "
                                             f"each one of: {', '.join(allowed)}")
        bad = [v for v in names if v not in allowed]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown name(s) {bad}; allowed: {', '.join(allowed)}")
        return names

    return convert


def output_file(value: str) -> str:
    """A file path the tool will be able to write at the end: not a directory, in a writable place."""
    problem = unwritable_file(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def output_dir(value: str) -> str:
    """A folder the tool will be able to write its files into (created at the end if missing)."""
    problem = unwritable_folder(value)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same resolved path, or two links to one existing file."""
    if os.path.realpath(os.path.expanduser(a)) == os.path.realpath(os.path.expanduser(b)):
        return True
    try:
        return os.path.samefile(os.path.expanduser(a), os.path.expanduser(b))
    except OSError:  # one of them does not exist yet
        return False


def distinct_outputs(parser: argparse.ArgumentParser, inputs: dict[str, str | None],
                     outputs: dict[str, str | None]) -> None:
    """Refuse (one line, exit 2) an output file that is one of the inputs or another output.

    ``inputs`` and ``outputs`` map how the command line names each file (``CHECKPOINT``,
    ``--onnx``) to its path (None: not given). Writing over the file a tool reads would
    destroy it, and two outputs in one file would leave only the last written.
    """
    outs = [(name, path) for name, path in outputs.items() if path]
    for i, (name, path) in enumerate(outs):
        for in_name, in_path in inputs.items():
            if in_path and _same_file(path, in_path):
                parser.error(f"{name} {path} is the input {in_name} {in_path}: writing it would destroy the input; "
                             f"give another file name")
        for other, other_path in outs[:i]:
            if _same_file(path, other_path):
                parser.error(f"{other} and {name} are the same file {path}: give each its own file name")


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

