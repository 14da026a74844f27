"""The policy checkpoint format: a network plus what it was made for.

A checkpoint is a ``torch.save`` of a plain dict (loadable with ``weights_only=True``, so
opening a file never runs code): the format name and version, the network's architecture
and weights, the rules (``Rules.to_dict()``), the observation layout version and size, the
training step and optionally the resolved training config. :func:`load_checkpoint`
refuses a file made for other rules or another observation layout, or a damaged one, with
a message that says which. Files are written atomically (:func:`bm_env.engine.files.write_atomic`).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import torch
from torch import nn

from ..engine.files import write_atomic
from ..engine.rules import Rules, RulesError
from ..env import observation
from . import CheckpointError

FORMAT = "black-maria-policy"
FORMAT_VERSION = 1


def mlp(in_size: int, hidden: Sequence[int], out_size: int) -> nn.Sequential:
    """Linear layers of widths ``hidden`` with ReLUs between them, then a linear output layer."""
    layers: list[nn.Module] = []
    width = in_size
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, out_size))
    return nn.Sequential(*layers)


def masked_logits(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Illegal actions at the dtype's lowest logit (``-inf`` would turn a softmax's entropy into NaN)."""
    return logits.masked_fill(~legal, torch.finfo(logits.dtype).min)


class PolicyNet(nn.Module):
    """An MLP from an observation vector to one logit per action."""

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.arch = {"kind": "mlp", "obs_size": int(obs_size), "num_actions": int(num_actions),
                     "hidden": [int(h) for h in hidden]}
        self.body = mlp(obs_size, hidden, num_actions)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.body(obs)

    @classmethod
    def from_arch(cls, arch: dict[str, Any]) -> "PolicyNet":
        if arch.get("kind") != "mlp":
            raise CheckpointError(f"unknown network kind {arch.get('kind')!r}; this version knows 'mlp'")
        return cls(arch["obs_size"], arch["num_actions"], arch["hidden"])


def save_checkpoint(path: str | os.PathLike, net: PolicyNet, rules: Rules, step: int = 0,
                    config: dict[str, Any] | None = None) -> None:
    """Write ``net`` for ``rules`` to ``path`` atomically."""
    n = rules.num_players
    if net.arch["obs_size"] != observation.size_for(rules):
        raise CheckpointError(
            f"network input {net.arch['obs_size']} does not match the observation size {observation.size_for(rules)} "
            f"of {n} players"
        )
    data = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "arch": net.arch,
        "state_dict": net.state_dict(),
        "rules": rules.to_dict(),
        "layout_version": observation.LAYOUT_VERSION,
        "obs_size": observation.size_for(rules),
        "step": int(step),
        "config": config,
    }
    write_atomic(path, lambda f: torch.save(data, f), binary=True)


def load_checkpoint(path: str | os.PathLike, rules: Rules | None = None) -> tuple[PolicyNet, dict[str, Any]]:
    """The network and the checkpoint's metadata; refused if made for other rules or layout."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise CheckpointError(f"checkpoint {path!r} is a directory; give the checkpoint file (a .pt file) in it")
    if not os.path.isfile(path):
        raise CheckpointError(f"checkpoint {path!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a truncated or foreign file
        # Not torch's message: it advises weights_only=False, which would run code from an untrusted file.
        raise CheckpointError(
            f"checkpoint {path!r} is damaged or not a {FORMAT} checkpoint ({type(e).__name__}); "
            "checkpoints hold plain data only and are never loaded as pickled code"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path!r} is not a {FORMAT} checkpoint")
    if data.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {path!r} has format version {data.get('format_version')}; this version reads {FORMAT_VERSION}"
        )
    if data.get("layout_version") != observation.LAYOUT_VERSION:
        raise CheckpointError(
            f"checkpoint {path!r} was made for observation layout {data.get('layout_version')}, "
            f"this code uses layout {observation.LAYOUT_VERSION}; retrain or use a matching version"
        )
    try:
        saved_rules = Rules.from_dict(data["rules"])
    except (RulesError, KeyError, TypeError) as e:
        raise CheckpointError(f"checkpoint {path!r} has unreadable rules: {e}") from None
    if rules is not None and saved_rules != rules:
        mine, theirs = rules.to_dict(), saved_rules.to_dict()
        diff = {k: (theirs[k], mine[k]) for k in mine if mine[k] != theirs[k]}
        raise CheckpointError(
            f"checkpoint {path!r} was made for other rules; differing options (checkpoint, requested): {diff}"
        )
    if data.get("obs_size") != observation.size_for(saved_rules):
        raise CheckpointError(f"checkpoint {path!r} records observation size {data.get('obs_size')}, "
                              f"expected {observation.size_for(saved_rules)}")
    try:
        net = PolicyNet.from_arch(data["arch"])
        net.load_state_dict(data["state_dict"])
    except CheckpointError:
        raise
    except Exception as e:
        raise CheckpointError(f"checkpoint {path!r} has weights that do not fit its network: {e}") from None
    net.eval()
    meta = {k: v for k, v in data.items() if k != "state_dict"}
    meta["rules"] = saved_rules
    return net, meta
