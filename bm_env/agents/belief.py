"""A belief over the hidden cards: for each card a seat cannot see, the chance that each other seat holds it.

:class:`BeliefNet` reads the seat's observation vector (the policy's input) and gives one logit
per (other seat, card); :func:`chances` turns them into, for each hidden card, a distribution
over the other seats that may hold it (a seat void in the card's suit, or with no room, may
not). :func:`room_chances` is the uniform baseline: each hidden card with each eligible seat in
proportion to the cards that seat holds unseen. The logits are read as factors on that baseline
(a seat's chance is its room times the exponent of its logit, normalised), and the output layer
starts at zero: an untrained network is the uniform belief, and training only has to learn how
the play moves each card away from it, which keeps it from being surer than the data. :func:`hidden_cards` gives, from an
information state, which cards are hidden, which seats may hold each, and each seat's room;
:func:`holders` gives the labels from the real deal (training is by
:mod:`bm_env.training.belief`); :func:`draw_weights` turns the belief into the weights with which
the search draws its worlds (``search:belief=PATH``). Seats are relative to the observer: index ``r - 1`` is the
seat ``r`` places to its left.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch
from torch import nn

from ..engine.cards import NUM_CARDS, NUM_RANKS
from ..engine.deal import Deal
from ..engine.files import write_atomic
from ..engine.infostate import InfoState
from ..engine.rules import Rules
from ..env import observation
from ..package_data import is_bare_name, shipped_files
from .checkpoint import digest, mlp
from .network_size import widths_problem
from .pimc import inferred_voids


#: The suffix of a shipped belief in ``checkpoints/`` (``NAME.belief``), apart from the agents' ``.pt`` files.
BELIEF_SUFFIX = ".belief"


class BeliefNet(nn.Module):
    """An MLP from an observation to a logit per (other seat, card): ``[B, n - 1, 52]``."""

    def __init__(self, obs_size: int, num_players: int, hidden: tuple[int, ...] = (256,)) -> None:
        super().__init__()
        self.arch = {"kind": "belief_mlp", "obs_size": int(obs_size), "num_players": int(num_players),
                     "hidden": [int(h) for h in hidden]}
        self.others = num_players - 1
        self.body = mlp(obs_size, hidden, self.others * NUM_CARDS)
        nn.init.zeros_(self.body[-1].weight)
        nn.init.zeros_(self.body[-1].bias)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, n - 1, 52]`` for observations ``[B, obs_size]``: for each other seat (relative to
        the observer) and card, how likely that seat holds it."""
        return self.body(obs).view(-1, self.others, NUM_CARDS)

    @classmethod
    def from_arch(cls, arch: dict[str, Any]) -> "BeliefNet":
        """An untrained network of the shape ``arch`` records (a checkpoint's ``arch``); ValueError for
        another kind of network."""
        if arch.get("kind") != "belief_mlp":
            raise ValueError(f"a network of kind {arch.get('kind')!r}, a belief's is 'belief_mlp'")
        return cls(arch["obs_size"], arch["num_players"], tuple(arch["hidden"]))


def save_belief(path: str | os.PathLike, net: BeliefNet, rules: Rules, agents: list[str]) -> None:
    """Write ``net``, a belief for ``rules`` trained on deals played by ``agents``, as plain data (atomically),
    with a digest of its weights."""
    weights = net.state_dict()
    state = {"kind": "belief", "layout_version": observation.LAYOUT_VERSION, "arch": net.arch, "state_dict": weights,
             "digest": digest(weights), "rules": rules.to_dict(), "agents": list(agents)}
    write_atomic(os.fspath(path), lambda f: torch.save(state, f), binary=True)


def belief_path(text: str) -> str:
    """The belief file ``text`` names: the shipped belief of that name (``checkpoints/NAME.belief``) for a bare
    name, else ``text`` itself; ValueError for a bare name with no shipped belief."""
    if not is_bare_name(text):
        return text
    shipped = shipped_files("checkpoints", BELIEF_SUFFIX)
    if text not in shipped:
        raise ValueError(f"no shipped belief named {text!r} (shipped: {', '.join(shipped) or 'none'}); give a "
                         f"belief file by its path")
    return str(shipped[text])


def load_belief(text: str | os.PathLike, rules: Rules) -> BeliefNet:
    """The belief network :func:`save_belief` wrote, at a path or shipped under a bare name (:func:`belief_path`),
    for ``rules``; ValueError, in one line, where the file is missing, damaged, not a belief, of another observation
    layout or of other rules, or its weights do not fit their network, their digest or are not finite."""
    path = belief_path(os.fspath(text))
    if not os.path.isfile(path):
        raise ValueError(f"belief {path!r} is not a file")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a truncated or foreign file
        raise ValueError(f"belief {path!r} is damaged or not a belief network file ({type(e).__name__})") from None
    if not isinstance(state, dict) or state.get("kind") != "belief":
        raise ValueError(f"belief {path!r} is not a belief network file (python -m bm_env.training.belief writes them)")
    if state.get("layout_version") != observation.LAYOUT_VERSION:
        raise ValueError(f"belief {path!r} reads observation layout {state.get('layout_version')}; this code "
                         f"writes layout {observation.LAYOUT_VERSION}: train it again")
    if not rules.same_as(state.get("rules")):
        raise ValueError(f"belief {path!r} was trained for other rules than these; train one for them")
    arch = state.get("arch")
    want = {"kind": "belief_mlp", "obs_size": observation.size_for(rules), "num_players": rules.num_players}
    if not isinstance(arch, dict) or any(arch.get(k) != v for k, v in want.items()):
        raise ValueError(f"belief {path!r} has a network of {arch!r}; these rules need one of {want}")
    problem = widths_problem(arch.get("hidden"), want["obs_size"], (rules.num_players - 1) * NUM_CARDS)
    if problem:
        raise ValueError(f"belief {path!r}: its network's hidden layers {problem}")
    net = BeliefNet.from_arch(arch)
    weights = state.get("state_dict")
    shapes = {k: (tuple(v.shape), v.dtype) for k, v in net.state_dict().items()}
    if not isinstance(weights, dict) or sorted(weights) != sorted(shapes) or any(
            not isinstance(weights[k], torch.Tensor) or (tuple(weights[k].shape), weights[k].dtype) != shapes[k]
            for k in shapes):
        raise ValueError(f"belief {path!r} has weights that do not fit its network")
    if state.get("digest") != digest(weights):
        raise ValueError(f"belief {path!r}: its weights do not match their digest (the file is damaged)")
    if not all(torch.isfinite(w).all() for w in weights.values()):
        raise ValueError(f"belief {path!r} has weights that are not finite")
    net.load_state_dict(weights)
    return net.eval()


def draw_weights(net: BeliefNet, info: InfoState, obs: np.ndarray, floor: float = 0.01) -> dict[int, np.ndarray]:
    """By seat, the weight of each hidden card with it: the belief's chance over the uniform one (1 for a card the
    seat may not hold, and for the cards whose place is known), the chance kept within ``[floor, 1 - floor]`` so
    that no consistent world is ruled out. A sampler that places each card with a seat in proportion to the seat's
    room times this weight (:func:`~bm_env.agents.pimc.sample_hidden_hands`) draws by the belief."""
    eligible, room = hidden_cards(info)
    with torch.no_grad():
        p = chances(net(torch.as_tensor(obs, dtype=torch.float32)[None]), torch.as_tensor(eligible)[None],
                    torch.as_tensor(room)[None])[0].numpy()
    uniform = room_chances(eligible, room)
    ratio = np.divide(np.clip(p, floor, 1 - floor), uniform, out=np.ones_like(p), where=eligible & (uniform > 0))
    seats = info.seats
    me = seats.index(info.seat)
    return {seats[(me + r) % len(seats)]: ratio[r - 1] for r in range(1, len(seats))}


def hidden_cards(info: InfoState) -> tuple[np.ndarray, np.ndarray]:
    """``(eligible [n - 1, 52] bool, room [n - 1])``: the other seats (relative) that may hold each hidden card
    (not void in its suit, with room left), False everywhere for a card the seat knows the place of; and the
    cards each other seat holds that this seat cannot see."""
    seats = info.seats
    n = len(seats)
    me = seats.index(info.seat)
    others = [seats[(me + r) % n] for r in range(1, n)]
    known = info.known_held
    room = np.array([info.hand_sizes[s] - len(known.get(s, ())) for s in others])
    voids = inferred_voids(info)
    unseen = np.zeros(NUM_CARDS, dtype=bool)
    unseen[list(info.unseen)] = True
    suit = np.arange(NUM_CARDS) // NUM_RANKS
    open_suit = np.array([[not voids[s] >> k & 1 for k in range(4)] for s in others])  # [n - 1, 4]
    eligible = unseen[None, :] & open_suit[:, suit] & (room[:, None] > 0)
    return eligible, room


def holders(deal: Deal, info: InfoState) -> np.ndarray:
    """By card, the relative other seat (0 for the next seat to the left) holding it in ``deal``; -1 where it
    is not hidden from ``info``'s seat."""
    eligible, _ = hidden_cards(info)
    seats = info.seats
    n = len(seats)
    me = seats.index(info.seat)
    out = np.full(NUM_CARDS, -1, dtype=np.int64)
    hidden = eligible.any(axis=0)
    for r in range(1, n):
        hand = deal.hands[(me + r) % n]
        for c in np.flatnonzero(hidden):
            if hand >> int(c) & 1:
                out[c] = r - 1
    return out


def chances(logits: torch.Tensor, eligible: torch.Tensor, room: torch.Tensor) -> torch.Tensor:
    """For each card, its chance with each seat that may hold it ``[B, n - 1, 52]``: the softmax over those seats
    of the logit plus the log of the seat's ``room`` ``[B, n - 1]`` (zero logits give :func:`room_chances`); 0 for
    the others, and for every seat where no seat may hold the card (it is not hidden)."""
    low = torch.finfo(logits.dtype).min
    prior = torch.log(room.to(logits.dtype).clamp_min(1.0))[..., None]
    masked = (logits + prior).masked_fill(~eligible, low)
    p = torch.softmax(masked, dim=1) * eligible
    return p / p.sum(dim=1, keepdim=True).clamp_min(1e-12)


def room_chances(eligible: np.ndarray, room: np.ndarray) -> np.ndarray:
    """The uniform belief: each hidden card with each seat that may hold it in proportion to its room."""
    w = eligible * room[..., :, None]
    total = w.sum(axis=-2, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w, dtype=float), where=total > 0)
