"""The trained agents shipped in the repository's ``checkpoints/`` folder, found by preset.

``checkpoints/<preset>_<players>p.pt`` is the agent trained by ``bm-train`` for that preset
at that player count (each with its model card). They exist in a source checkout; an
installed wheel does not carry them, and then no shipped agent is found.
"""

from __future__ import annotations

from pathlib import Path

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"


def shipped_spec(preset: str, num_players: int) -> str | None:
    """The agent spec ``policy:<path>`` of the shipped agent for ``preset`` at ``num_players``, or None."""
    path = CHECKPOINTS / f"{preset}_{num_players}p.pt"
    return f"policy:{path}" if path.is_file() else None
