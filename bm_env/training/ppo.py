"""PPO with action masking for one policy shared by every seat.

The policy is the play network of :mod:`bm_env.agents.checkpoint` (``PolicyNet``: the
observation in, one logit per action out), so what trains is exactly what ``policy:PATH``
plays. The critic is an MLP on the observation (``separate``) or on the policy's last hidden
layer (``shared``); with ``critic_state`` it also reads every seat's hand and pending pass
picks (perfect information, relative to the acting seat), which the policy never sees: a
centralised critic, used only during training.

Illegal actions get the dtype's lowest logit before the softmax (``-inf`` would make the
entropy NaN). Sampling is Gumbel-max with the trainer's own ``torch.Generator``, so a seeded
run is reproducible and never touches the global random state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from torch import nn

from bm_env.agents.checkpoint import PolicyNet, masked_logits, mlp

from .precision import autocast


class NonFiniteLossError(RuntimeError):
    """A loss or gradient became NaN or infinite: the update is refused and training stops."""


CRITIC_KINDS = ("separate", "shared")


class ValueNet(nn.Module):
    """An MLP from the critic's input to one value.

    ``separate`` reads the observation; ``shared`` reads the policy's last hidden layer, so the
    value loss also shapes the policy's features and the update runs one trunk instead of two.
    Either way, with ``critic_state`` every hand is appended to its input (the perfect-information critic).
    """

    def __init__(self, kind: str, in_size: int, hidden: Sequence[int]) -> None:
        super().__init__()
        if kind not in CRITIC_KINDS:
            raise ValueError(f"critic kind {kind!r} is not one of {list(CRITIC_KINDS)}")
        self.kind = kind
        self.body = mlp(in_size, hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x).squeeze(-1)


def fused_adam_available(device: torch.device) -> bool:
    """Whether this torch has Adam's fused kernel for ``device`` (CUDA; CPU from torch 2.4).

    Fused, the PPO update on 2 CPU cores is about 10% faster than with the default (foreach)
    kernels, measured with ``bm-bench --only training``; the arithmetic is Adam's either way.
    """
    if device.type == "cuda":
        return True
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    return device.type == "cpu" and (major, minor) >= (2, 4)


def sample(logits: torch.Tensor, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from masked ``logits`` (Gumbel-max) and their log-probabilities."""
    u = torch.rand(logits.shape, generator=generator, device=logits.device).clamp_(1e-12, 1.0)
    actions = (logits - torch.log(-torch.log(u))).argmax(dim=1)
    logp = torch.log_softmax(logits, dim=1).gather(1, actions[:, None]).squeeze(1)
    return actions, logp


def policy_and_value(actor: PolicyNet, critic: ValueNet, obs: torch.Tensor, hidden: torch.Tensor | None,
                     precision: str = "fp32") -> tuple[torch.Tensor, torch.Tensor]:
    """The policy's logits and the critic's value of float observations (and every hand, if the critic sees them).

    The networks run in ``precision`` (:mod:`bm_env.training.precision`); logits and values come back as float32.
    """
    with autocast(precision, obs.device):
        if critic.kind == "shared":
            features = actor.body[:-1](obs)
            logits = actor.body[-1](features)
        else:
            logits, features = actor(obs), obs
        value_in = features if hidden is None else torch.cat([features, hidden.to(features.dtype)], dim=1)
        value = critic(value_in)
    return logits.float(), value.float()


@dataclass
class Batch:
    """The trainable decisions of one rollout (int8 observations, float targets)."""

    obs: torch.Tensor  # [B, L] int8
    hidden: torch.Tensor | None  # [B, H] int8: every hand, for the critic
    mask: torch.Tensor  # [B, A] bool
    actions: torch.Tensor  # [B] int64
    logp: torch.Tensor  # [B] float32: log-probability when acted
    values: torch.Tensor  # [B] float32: the critic's value when acted
    advantages: torch.Tensor  # [B]
    returns: torch.Tensor  # [B]
    #: [B, A] float32: expert iteration's targets (bm_env.training.exit), summing to 1 on a labelled row, 0 on the
    #: others; None: no expert iteration.
    exit_targets: torch.Tensor | None = None

    def __len__(self) -> int:
        return self.actions.shape[0]


def update(actor: PolicyNet, critic: ValueNet, optimizer: torch.optim.Optimizer, batch: Batch, epochs: int,
           minibatch_size: int, clip: float, ent_coef: float, vf_coef: float, max_grad_norm: float,
           target_kl: float | None, generator: torch.Generator, precision: str = "fp32",
           exit_coef: float = 0.0) -> dict[str, float]:
    """``epochs`` passes of clipped PPO over ``batch`` in shuffled minibatches; returns the update's statistics.

    With ``batch.exit_targets`` the loss adds ``exit_coef`` times the mean cross-entropy from the targets to the
    policy's masked softmax over the minibatch's labelled rows (expert iteration); the statistic ``exit_loss`` is
    that cross-entropy over every labelled row the update saw. The forward passes run in ``precision``
    (:mod:`bm_env.training.precision`), the losses and gradients in float32.
    """
    params = [p for group in optimizer.param_groups for p in group["params"]]
    size = len(batch)
    sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0}
    steps = 0
    exit_sum, exit_rows = 0.0, 0
    # The int8 inputs are cast once per update, to the dtype the first layer reads, not once per minibatch and epoch.
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    obs_all = batch.obs.to(dtype)
    hidden_all = None if batch.hidden is None else batch.hidden.to(dtype)
    for _ in range(epochs):
        order = torch.randperm(size, generator=generator, device=batch.actions.device)
        kl_epoch, mbs = 0.0, 0
        for lo in range(0, size, minibatch_size):
            mb = order[lo:lo + minibatch_size]
            rows = lambda t: t.index_select(0, mb)  # noqa: E731 (several times faster than t[mb] on CPU)
            hidden = None if hidden_all is None else rows(hidden_all)
            logits, value = policy_and_value(actor, critic, rows(obs_all), hidden, precision)
            logits = masked_logits(logits, rows(batch.mask))
            logp_all = torch.log_softmax(logits, dim=1)
            logp = logp_all.gather(1, rows(batch.actions)[:, None]).squeeze(1)
            entropy = -(logp_all.exp() * logp_all).sum(dim=1).mean()
            log_ratio = logp - rows(batch.logp)
            ratio = log_ratio.exp()
            adv = rows(batch.advantages)
            adv = (adv - adv.mean()) / (adv.std(unbiased=False) + 1e-8)
            policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()
            value_loss = 0.5 * (value - rows(batch.returns)).pow(2).mean()
            loss = policy_loss - ent_coef * entropy + vf_coef * value_loss
            exit_loss = None
            if batch.exit_targets is not None:
                targets = rows(batch.exit_targets)
                # 0 on an unlabelled row: its targets are 0, and an illegal action's log-probability stays finite.
                cross = -(targets * logp_all).sum(dim=1)
                labelled = targets.sum(dim=1).gt(0.5).sum()
                exit_loss = cross.sum() / labelled.clamp(min=1)
                loss = loss + exit_coef * exit_loss
            if not torch.isfinite(loss):
                raise NonFiniteLossError(
                    f"the loss became {loss.item()} (policy {policy_loss.item()}, value {value_loss.item()}, "
                    f"entropy {entropy.item()}" + ("" if exit_loss is None else f", exit {exit_loss.item()}") + ")")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(params, max_grad_norm)
            if not torch.isfinite(grad_norm):
                raise NonFiniteLossError(f"the gradient norm became {grad_norm.item()}")
            optimizer.step()
            with torch.no_grad():
                kl = ((ratio - 1) - log_ratio).mean().item()
                sums["policy_loss"] += policy_loss.item()
                sums["value_loss"] += value_loss.item()
                sums["entropy"] += entropy.item()
                sums["approx_kl"] += kl
                sums["clip_fraction"] += ((ratio - 1).abs() > clip).float().mean().item()
                if exit_loss is not None:
                    exit_sum += cross.sum().item()
                    exit_rows += int(labelled.item())
            steps += 1
            kl_epoch += kl
            mbs += 1
        if target_kl is not None and kl_epoch / mbs > target_kl:
            break
    stats = {k: v / max(steps, 1) for k, v in sums.items()}
    returns = batch.returns.cpu().numpy()
    var = float(np.var(returns))
    stats["explained_variance"] = float("nan") if var == 0 else 1.0 - float(np.var(returns - batch.values.cpu().numpy())) / var
    stats["gradient_steps"] = float(steps)
    if batch.exit_targets is not None:
        stats["exit_loss"] = exit_sum / exit_rows if exit_rows else float("nan")
    return stats
