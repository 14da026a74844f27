"""docs/_ext/public_docstrings.py reports every public name of the reference without a docstring,
members included (a method autodoc would leave out of its page without a word), and nothing
private, dunder, excluded or merely imported. A small Sphinx project is built here; the
reference itself is built by tests/test_docs_build.py (slow)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")

from sphinx.application import Sphinx  # noqa: E402

EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext"

MODULE = '''"""A module with members of every kind, documented and not."""
import functools

from pd_sample_other import Imported


def documented():
    """Said."""


def undocumented():
    pass


def _private():
    pass


def _factory():
    def made():
        pass
    return made


#: A callable made by a factory, documented by its comment.
commented = _factory()


class Thing:
    """Said."""

    __slots__ = {"noted": "A slot with its docstring.", "bare": None, "_hidden": None}

    def method(self):
        pass

    def said(self):
        """Said."""

    def __len__(self):
        return 0

    def _helper(self):
        pass

    @property
    def size(self):
        return 1

    @functools.cached_property
    def cached(self):
        """Said."""
        return 1

    @classmethod
    def make(cls):
        pass

    @staticmethod
    def plain():
        pass


class Left:
    """Its undocumented member is excluded by the page."""

    def left_out(self):
        pass
'''

OTHER = '''"""Not documented: a class the documented module imports."""


class Imported:
    """Said."""

    def not_here(self):
        pass
'''

LISTED = '''"""A module whose members the page does not list."""


def unlisted():
    pass
'''

INDEX = """Sample
======

.. automodule:: pd_sample
   :exclude-members: left_out

.. automodule:: pd_sample_listed
   :no-members:
"""


def build_warnings(tmp_path: Path, monkeypatch) -> list[str]:
    """The extension's warnings when the sample project is built (autodoc reads it; no output kept)."""
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("pd_sample", MODULE), ("pd_sample_other", OTHER), ("pd_sample_listed", LISTED)):
        (tmp_path / f"{name}.py").write_text(text)
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXT))
    (src / "conf.py").write_text(
        'extensions = ["sphinx.ext.autodoc", "public_docstrings"]\n'
        'autodoc_default_options = {"members": True}\n'
        "autodoc_inherit_docstrings = False\n"
    )
    (src / "index.rst").write_text(INDEX)
    warnings = io.StringIO()
    app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "dummy",
                 status=None, warning=warnings, freshenv=True)
    app.build()
    return sorted(re.findall(r"WARNING: (.*?) has no docstring", warnings.getvalue()))


def test_public_members_without_a_docstring_are_reported_and_nothing_else(tmp_path, monkeypatch):
    assert build_warnings(tmp_path, monkeypatch) == [
        "attribute pd_sample.Thing.bare",
        "function pd_sample.undocumented",
        "method pd_sample.Thing.make",
        "method pd_sample.Thing.method",
        "method pd_sample.Thing.plain",
        "property pd_sample.Thing.size",
    ]
