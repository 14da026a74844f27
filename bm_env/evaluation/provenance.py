"""Which code made an evaluation: the package version and a hash of its source.

A spec names a player by its code: ``pimc`` or ``heuristic`` in a run of last week and in
one of today are the same player only if the code behind them is the same. ``bm-eval``
records :func:`code_identity` with every result, so that ``--compare`` and ``--pool`` can
say when they combine runs of different code (:func:`different_code`): a difference then
may come from any agent of the seating, opponents included, and not only from the one
being compared. The hash covers every ``.py`` file of the ``bm_env`` package (rules, agents
and harness: everything that decides how the games go), so it tells code apart in an
installed wheel as in a checkout; the git commit, where the package runs from a checkout,
is recorded too, for people to find the code, with ``"modified"`` where the package's files
differ from it (uncommitted edits or new files: the hash is then the only exact record).
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=1)
def code_identity() -> dict[str, str]:
    """``{"version", "source_sha256"}``, and ``"commit"`` where the package runs from a git checkout
    (``"modified": "yes"`` too where the package's files differ from that commit)."""
    from .. import __version__

    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    identity = {"version": __version__, "source_sha256": digest.hexdigest()}
    root = PACKAGE.parent
    if (root / ".git").exists():  # a folder (a clone) or a file (a worktree); not a repository further up
        commit = _git(root, "rev-parse", "HEAD")
        if commit:
            identity["commit"] = commit
            if _git(root, "status", "--porcelain", "--", PACKAGE.name):
                identity["modified"] = "yes"
    return identity


def _git(root: Path, *args: str) -> str | None:
    """A git command's output in ``root`` (None where git is missing or fails)."""
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def describe(identity: dict[str, str]) -> str:
    """``bm_env 0.1.0, source <12 hex digits>, commit <7 hex digits>[ with modified files]``, or a note that none was recorded."""
    if not identity:
        return "no code version recorded (a run saved before bm-eval recorded one)"
    text = f"bm_env {identity['version']}, source {identity['source_sha256'][:12]}"
    if "commit" in identity:
        text += f", commit {identity['commit'][:7]}" + (" with modified files" if "modified" in identity else "")
    return text


def different_code(identities: list[dict[str, str]]) -> str | None:
    """A warning where the runs were made by different code (or some recorded none), else None."""
    sources = {i.get("source_sha256") for i in identities}
    if len(sources) == 1 and None not in sources:
        return None
    listed = "; ".join(f"run {k + 1}: {describe(i)}" for k, i in enumerate(identities))
    return (f"warning: these runs may come from different code ({listed}). An agent named by the same spec "
            f"(pimc, heuristic, ...) can play differently under other code, so a difference may come from any "
            f"seat, the opponents included, not only from the agent compared.")
