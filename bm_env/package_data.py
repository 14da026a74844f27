"""Where the shipped agents and configs are: inside the installed package, or in a source checkout.

The repository keeps them at its root, ``checkpoints/`` (the trained agents with their model
cards) and ``configs/`` (the YAML files of ``bm-train`` and ``bm-eval``); the wheel installs
the same folders as ``bm_env/checkpoints`` and ``bm_env/configs`` (pyproject.toml maps them
into the package rather than keeping a copy). :func:`shipped_folder` finds them in either
place: the installed package's data first (:mod:`importlib.resources`); else, where
``bm_env`` runs from a checkout, the folder next to it. A checkout is recognised by its
``pyproject.toml`` naming this project, so that an installed package never takes a stray
``site-packages/checkpoints`` of another distribution for its own.

A shipped file is named by its stem (``black_maria_3p``, ``train_quick``): :func:`is_bare_name`
tells such a name from a path, which has a folder separator or a suffix.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

#: The shipped folders, by the name they have in the repository and in the package.
KINDS = ("checkpoints", "configs")

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _checkout_root() -> Path | None:
    """The source checkout ``bm_env`` runs from, or None (an installed package)."""
    root = Path(__file__).resolve().parents[1]
    try:
        project = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if re.search(r'^name\s*=\s*"black-maria"', project, re.MULTILINE) else None


def shipped_folder(kind: str) -> Path | None:
    """The folder of the shipped ``kind`` (``checkpoints`` or ``configs``), or None where there is none."""
    if kind not in KINDS:
        raise ValueError(f"no shipped folder {kind!r}; there are {list(KINDS)}")
    installed = resources.files("bm_env") / kind
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    root = _checkout_root()
    if root is not None and (root / kind).is_dir():
        return root / kind
    return None


def shipped_files(kind: str, suffix: str) -> dict[str, Path]:
    """The shipped files of ``kind`` ending in ``suffix``, by stem, sorted by name."""
    folder = shipped_folder(kind)
    if folder is None:
        return {}
    return {p.stem: p for p in sorted(folder.glob(f"*{suffix}"))}


def is_bare_name(text: str) -> bool:
    """Whether ``text`` names a shipped file (letters, digits, ``_`` and ``-`` only) rather than a path."""
    return bool(_BARE.fullmatch(text))
