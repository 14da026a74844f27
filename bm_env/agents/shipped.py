"""The shipped trained agents, by name: ``policy:black_maria_3p`` wherever the package is installed.

``<preset>_<players>p`` is the agent ``bm-train`` trained for that preset at that player
count, shipped with its model card (``checkpoints/`` in the repository, ``bm_env/checkpoints``
in the wheel: :mod:`bm_env.package_data`). Where a spec takes a checkpoint (``policy:X``,
``pimc:guide=X``), ``X`` is a shipped agent's name when it has no folder separator and no
suffix, else a path; an unknown name is refused with the names there are.
"""

from __future__ import annotations

from pathlib import Path

from ..package_data import is_bare_name, shipped_files


def shipped_agents() -> dict[str, Path]:
    """Every shipped agent's checkpoint file, by name (empty where none is installed)."""
    return shipped_files("checkpoints", ".pt")


def checkpoint_path(text: str) -> str:
    """The checkpoint file ``text`` names: a shipped agent's file for a bare name, else ``text`` itself.

    Raises :class:`ValueError` for a bare name that no shipped agent has."""
    if not is_bare_name(text):
        return text
    agents = shipped_agents()
    if text not in agents:
        names = ", ".join(agents) or "none are installed"
        raise ValueError(f"no shipped agent named {text!r} (shipped: {names}); give a checkpoint file by its path, "
                         f"e.g. ./{text}.pt")
    return str(agents[text])


def shipped_spec(preset: str, num_players: int) -> str | None:
    """The agent spec ``policy:<name>`` of the shipped agent for ``preset`` at ``num_players``, or None."""
    name = f"{preset}_{num_players}p"
    return f"policy:{name}" if name in shipped_agents() else None
