"""Sphinx configuration of the reference: the Markdown pages of ``docs/`` (through MyST) and
the API reference built from the docstrings (autodoc). ``scripts/docs.sh`` builds it with
warnings as errors, so a broken cross-reference or a public name without a docstring fails."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE / "_ext"))

project = "black-maria"
author = "the black-maria authors"
copyright = "the black-maria authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "public_docstrings",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# The source folder is the repo root, so that the README, the pages and the model cards link
# to each other by the same relative paths that work on a forge; only these are read.
root_doc = "docs/index"
include_patterns = ["README.md", "docs/**.md", "docs/**.rst", "checkpoints/*.md"]
exclude_patterns = ["docs/_ext/**"]
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# Members without a docstring are left out of an automodule's or autoclass's listing (no
# "undoc-members"); a name a page names itself (autoclass, autofunction) is always shown.
# docs/_ext/public_docstrings.py fails the build on both: a shown name without a docstring, and
# a public member (method, property, slot, function) left out for want of one.
autodoc_default_options = {"members": True, "show-inheritance": True}
# A method without its own docstring is not given its base's: Gymnasium's and PettingZoo's
# describe their generic API in their own markup, and this reference documents ours.
autodoc_inherit_docstrings = False
nitpicky = True
# Types of other libraries and of the standard library: no inventory of theirs is fetched (the
# build runs offline).
nitpick_ignore_regex = [("py:.*", r"(numpy|np|gymnasium|pettingzoo|torch|yaml|argparse|importlib|os|pathlib)\..*")]
# PettingZoo's type aliases in the signatures of its classes we subclass, and the TypeVar of
# the config loader: names without a page of their own.
nitpick_ignore = [("py:class", name) for name in ("AECEnv", "AgentID", "ObsType", "ActionType", "bm_env.config.T")]
# The bases that the rules object and the information state build from the systems' registry
# (dataclasses.make_dataclass): private, their fields documented on the classes built on them.
nitpick_ignore += [("py:class", name) for name in ("types._Options", "types._SeatFacts", "_SeatView")]
html_theme = "alabaster"
