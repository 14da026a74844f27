"""The policy checkpoint format: a network plus what it was made for.

A checkpoint is a ``torch.save`` of a plain dict (loadable with ``weights_only=True``, so
opening a file never runs code): the format name and version, the network's architecture
and weights, the rules (``Rules.to_dict()``), the observation layout version and size, the
training step, optionally the resolved training config, and the ``digest`` of the weights
(:func:`digest`: SHA-256 over every tensor's name, dtype, shape and bytes, names sorted).
:func:`load_checkpoint` refuses a file made for other rules or another observation layout,
or a damaged one, with a message that says which, and checks before it builds anything:
the recorded architecture within :mod:`.network_size`'s bounds, every weight's shape and
dtype the architecture's, the digest (a flipped byte anywhere in the weights), and every
weight finite (a NaN weight would make the policy choose among NaN logits). A file without
a digest (written before checkpoints carried one) still loads, with a warning that damage
to it cannot be detected: refusing it would strand every network trained before, and its
shapes and values are checked all the same; saving it again adds the digest. Files are
written atomically (:func:`bm_env.engine.files.write_atomic`).
"""

from __future__ import annotations

import hashlib
import os
import warnings
from typing import Any, Mapping, Sequence

import torch
from torch import nn

from ..engine.files import write_atomic
from ..engine.rules import Rules, RulesError
from ..env import observation
from . import CheckpointError
from .network_size import mlp_shapes, widths_problem

FORMAT = "black-maria-policy"
FORMAT_VERSION = 1


def mlp(in_size: int, hidden: Sequence[int], out_size: int) -> nn.Sequential:
    """Linear layers of widths ``hidden`` with ReLUs between them, then a linear output layer.

    The ReLUs work in place: a linear layer's output is needed by nothing else (its backward reads
    its input), and a new tensor per ReLU is a cost in every batched forward pass."""
    layers: list[nn.Module] = []
    width = in_size
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU(inplace=True)]
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
        """Logits ``[B, num_actions]`` for observations ``[B, obs_size]``, illegal actions not yet masked
        (:func:`masked_logits`)."""
        return self.body(obs)

    @classmethod
    def from_arch(cls, arch: dict[str, Any]) -> "PolicyNet":
        """An untrained network of the shape ``arch`` records (a checkpoint's ``arch``). Raises
        CheckpointError for an unknown kind or hidden widths out of bounds, before any layer is allocated."""
        if arch.get("kind") != "mlp":
            raise CheckpointError(f"unknown network kind {arch.get('kind')!r}; this version knows 'mlp'")
        problem = widths_problem(arch.get("hidden"), arch["obs_size"], arch["num_actions"])
        if problem:  # before any layer is allocated
            raise CheckpointError(f"the network's hidden layers {problem}")
        return cls(arch["obs_size"], arch["num_actions"], arch["hidden"])


def digest(data: Any) -> str:
    """SHA-256 of nested dicts, lists and tensors in a canonical order: dict keys sorted, each tensor's
    dtype, shape and bytes, other values by ``repr`` (weights, and a training state's whole payload)."""
    h = hashlib.sha256()

    def walk(x: Any) -> None:
        if isinstance(x, torch.Tensor):
            t = x.detach().cpu().contiguous()
            h.update(f"T{t.dtype}{tuple(t.shape)}:".encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
        elif isinstance(x, Mapping):
            h.update(b"{")
            for key in sorted(x, key=repr):
                h.update(f"{key!r}=".encode())
                walk(x[key])
            h.update(b"}")
        elif isinstance(x, (list, tuple)):
            h.update(b"[")
            for v in x:
                walk(v)
            h.update(b"]")
        else:
            h.update(f"{type(x).__name__}:{x!r};".encode())

    walk(data)
    return h.hexdigest()


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
        "digest": digest(net.state_dict()),
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
    state_dict = checked_weights(path, data, saved_rules)
    net = PolicyNet.from_arch(data["arch"])
    net.load_state_dict(state_dict)
    net.eval()
    meta = {k: v for k, v in data.items() if k != "state_dict"}
    meta["rules"] = saved_rules
    return net, meta


def checked_weights(path: str, data: dict[str, Any], rules: Rules) -> dict[str, torch.Tensor]:
    """The checkpoint's weights, refused unless they are what its architecture builds, match its digest
    and are finite; checked before any network is built (see the module docstring)."""
    arch = data.get("arch")
    if not isinstance(arch, dict) or arch.get("kind") != "mlp":
        kind = arch.get("kind") if isinstance(arch, dict) else arch
        raise CheckpointError(f"checkpoint {path!r}: unknown network kind {kind!r}; this version knows 'mlp'")
    if arch.get("obs_size") != data.get("obs_size") or arch.get("num_actions") != rules.num_actions:
        raise CheckpointError(f"checkpoint {path!r}: its network takes {arch.get('obs_size')!r} inputs and gives "
                              f"{arch.get('num_actions')!r} outputs; its rules need {data.get('obs_size')} and "
                              f"{rules.num_actions}")
    problem = widths_problem(arch.get("hidden"), arch["obs_size"], arch["num_actions"])
    if problem:
        raise CheckpointError(f"checkpoint {path!r}: its network's hidden layers {problem}")
    weights = data.get("state_dict")
    shapes = mlp_shapes(arch["obs_size"], arch["hidden"], arch["num_actions"])
    if not isinstance(weights, dict) or sorted(weights) != sorted(shapes) or not all(
            isinstance(weights[k], torch.Tensor) for k in shapes):
        raise CheckpointError(f"checkpoint {path!r} has weights that do not fit its network: tensors "
                              f"{sorted(weights) if isinstance(weights, dict) else type(weights).__name__}, "
                              f"the network has {sorted(shapes)}")
    for name, shape in shapes.items():
        if tuple(weights[name].shape) != shape or weights[name].dtype != torch.float32:
            raise CheckpointError(f"checkpoint {path!r} has weights that do not fit its network: {name} is "
                                  f"{weights[name].dtype} {tuple(weights[name].shape)}, the network needs "
                                  f"torch.float32 {shape}")
    if "digest" not in data:
        warnings.warn(f"checkpoint {path!r} has no digest (it was written before checkpoints carried one): damage "
                      "to its weights cannot be detected; save it again with save_checkpoint to add one",
                      stacklevel=3)
    elif data["digest"] != digest(weights):
        raise CheckpointError(f"checkpoint {path!r} is damaged: its weights do not match the digest they were "
                              "saved with")
    bad = [name for name in shapes if not torch.isfinite(weights[name]).all()]
    if bad:
        raise CheckpointError(f"checkpoint {path!r} has weights that are NaN or infinite (in {', '.join(bad)}); "
                              "a network trained to NaN cannot play")
    return weights
