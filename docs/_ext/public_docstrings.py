"""A Sphinx extension that warns when a public name in the API reference has no docstring.

Two checks, both on autodoc's ``autodoc-process-docstring`` event:

- a name a page documents (``autoclass``, ``autofunction``, a member autodoc lists) is
  reported when its docstring is empty;
- a class or module documented with its members has each public member looked at directly:
  a method, property, ``__slots__`` field, nested class or (in a module) function without a
  docstring is reported. autodoc leaves such a member out of the page without a word (the
  reference does not turn on ``undoc-members``), so without this a new public method would
  go unchecked.

Names starting with an underscore (private ones and dunder methods) are never checked, nor
are the names a directive's ``:exclude-members:`` leaves out. Plain class attributes and
dataclass fields are not looked at: Python gives them no docstring (a ``#:`` comment documents
one where it is wanted).

Under ``-W`` (``scripts/docs.sh``) each warning fails the build."""

from __future__ import annotations

import functools
import inspect
import sys
from types import MemberDescriptorType, ModuleType

from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging

logger = logging.getLogger(__name__)


def _check(app, what, name, obj, options, lines):
    """A name autodoc renders, with ``lines`` its docstring."""
    if lines or name.rpartition(".")[2].startswith("_"):
        return
    logger.warning(f"{what} {name} has no docstring", type="public_docstrings")


def _check_members(app, what, name, obj, options, lines):
    """The public members of a class or module rendered with its members, documented or not."""
    if getattr(options, "members", None) is None:  # :no-members: (or an object without members)
        return
    excluded = getattr(options, "exclude_members", None) or ()
    if what in ("class", "exception") and inspect.isclass(obj):
        if not _kept_as(name, obj):
            return
        found = _undocumented_in_class(obj)
    elif what == "module" and isinstance(obj, ModuleType):
        found = _undocumented_in_module(obj)
    else:
        return
    for member, kind in found:
        if member not in excluded:
            logger.warning(f"{kind} {name}.{member} has no docstring", type="public_docstrings")


def _kept_as(name: str, cls: type) -> bool:
    """Whether autodoc documents ``cls`` under ``name``: where it is defined, or where an ``__all__``
    exports it. A class a module merely imports reaches this event too, before autodoc drops it."""
    if name == f"{cls.__module__}.{cls.__qualname__}":
        return True
    module_name, _, attr = name.rpartition(".")
    return attr in getattr(sys.modules.get(module_name), "__all__", ())


def _undocumented_in_class(cls: type) -> list[tuple[str, str]]:
    """``(name, kind)`` of each public member defined in ``cls`` itself that has no docstring."""
    commented = _commented(cls.__module__, cls.__qualname__)
    found = []
    for member, value in vars(cls).items():
        if member.startswith("_"):
            continue
        if isinstance(value, (classmethod, staticmethod)):
            kind, doc = "method", value.__func__.__doc__
        elif isinstance(value, (property, functools.cached_property)):
            kind, doc = "property", value.__doc__
        elif isinstance(value, MemberDescriptorType):  # a __slots__ field, documented by a dict __slots__
            slots = vars(cls).get("__slots__")
            kind, doc = "attribute", slots.get(member) if isinstance(slots, dict) else None
        elif inspect.isclass(value):
            kind, doc = "class", value.__doc__
        elif callable(value):
            kind, doc = "method", getattr(value, "__doc__", None)
        else:
            continue
        if not (doc or "").strip() and member not in commented:
            found.append((member, kind))
    return found


def _undocumented_in_module(module: ModuleType) -> list[tuple[str, str]]:
    """``(name, kind)`` of each public function or class of ``module`` that has no docstring: those in its
    ``__all__``, or without one, those it defines (not the ones it imports)."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if getattr(v, "__module__", None) == module.__name__]
    commented = _commented(module.__name__, "")
    found = []
    for member in names:
        value = getattr(module, member, None)
        if member.startswith("_") or isinstance(value, ModuleType) or not callable(value):
            continue
        if not (getattr(value, "__doc__", None) or "").strip() and member not in commented:
            found.append((member, "class" if inspect.isclass(value) else "function"))
    return found


def _commented(module_name: str, namespace: str) -> set[str]:
    """The names in ``namespace`` (a class's qualified name, or "" for the module) that a ``#:`` comment
    documents, as autodoc reads them (a callable made by a factory is documented that way)."""
    try:
        docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
    except PycodeError:
        return set()
    return {name for (ns, name) in docs if ns == namespace}


def setup(app):
    app.connect("autodoc-process-docstring", _check)
    app.connect("autodoc-process-docstring", _check_members)
    return {"parallel_read_safe": True}
