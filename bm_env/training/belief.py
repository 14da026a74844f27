"""Train the belief over the hidden cards (:mod:`bm_env.agents.belief`) on self-play positions, and score it.

``python -m bm_env.training.belief --preset black_maria --deals 1500 --out runs/belief.pt``

Deals are played by one agent at every seat (by default the shipped network, greedy; several agents
given take the deals in turn); every play
decision with a hidden card is a position, labelled for free by the real deal (who holds each hidden
card). The network is trained by cross-entropy on the deals before the last fifth (the weights of the epoch
that did best on the last tenth of those, kept out of the fit) and scored on the
last fifth against the uniform belief (each card with each eligible seat in proportion to its
room). At each seat's first play decision of the held-out deals (``--read-positions`` of them) it is
also scored against :mod:`~bm_env.agents.pass_reading`'s belief, the chance by the passes (the
others taken to pass as the heuristic does). Scores: log-loss (mean over hidden cards of minus the
log chance of the real holder), accuracy (the likeliest seat is the holder), and the accuracy on the
spade honours (Q♠, K♠, A♠).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from ..agents import AgentSpecError, CheckpointError, make_agent
from ..agents.belief import BeliefNet, chances, hidden_cards, holders, room_chances, save_belief
from ..agents.pass_reading import pass_marginals
from ..agents.playouts import heuristic_move
from ..agents.shipped import shipped_spec
from ..engine.cards import ACE_SPADES, KING_SPADES, QUEEN_SPADES
from ..engine.deal import DONE, PLAY, Deal, deal_hands, pass_direction_for
from ..engine.files import unwritable_file
from ..engine.infostate import information_state
from ..engine.rules import PRESETS, make_rules
from ..env.observation import encode

HONOURS = (QUEEN_SPADES, KING_SPADES, ACE_SPADES)
#: The most deals a run plays (about 50 positions a deal, an observation row each: some 1.7 GB of them at this
#: count in black_maria) and the most epochs: more is a typo, not a run.
MAX_DEALS = 50_000
MAX_EPOCHS = 1_000


def collect(rules, specs: str | list[str], deals: int, seed: int) -> dict:
    """Positions of ``deals`` deals, deal ``d`` played by ``specs[d % len(specs)]`` at every seat: observations,
    eligibility, room, holders, the deal each came from, and each seat's first play decision (information state
    and position index)."""
    n = rules.num_players
    rng = np.random.default_rng(seed)
    players = [make_agent(spec, rules, seed) for spec in ([specs] if isinstance(specs, str) else specs)]
    obs, eligible, room, label, deal_of, first = [], [], [], [], [], []
    for d in range(deals):
        agent = players[d % len(players)]
        deal = Deal(rules, deal_hands(rules, n, d % n, rng), d % n, pass_direction_for(rules, d, rng))
        seen = set()
        while deal.phase != DONE:
            seat = deal.to_act
            info = information_state(deal, seat)
            o = encode(info)
            if deal.phase == PLAY:
                e, r = hidden_cards(info)
                if e.any():
                    if seat not in seen:
                        first.append((info, len(obs)))
                        seen.add(seat)
                    obs.append(o)
                    eligible.append(e)
                    room.append(r)
                    label.append(holders(deal, info))
                    deal_of.append(d)
            deal.step(agent.act(o, deal.legal_mask(), info))
    return {"obs": np.stack(obs), "eligible": np.stack(eligible), "room": np.stack(room), "holder": np.stack(label),
            "deal": np.array(deal_of), "first": first}


def train(data: dict, rows: np.ndarray, epochs: int, seed: int, batch: int = 512, lr: float = 1e-3,
          hidden: tuple[int, ...] = (256,)) -> BeliefNet:
    """A belief network trained by cross-entropy on the positions ``rows`` of ``data``, the weights of the epoch
    that scored best on the last tenth of their deals, which are kept out of the training for that (none where
    the rows come from fewer than ten deals: the last epoch's weights)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    deals = np.unique(data["deal"][rows])
    check = np.isin(data["deal"][rows], deals[len(deals) * 9 // 10:]) if len(deals) >= 10 else np.zeros(len(rows), bool)
    fit, held = rows[~check], rows[check]
    n = data["eligible"].shape[1] + 1
    net = BeliefNet(data["obs"].shape[1], n, hidden)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    best, kept = float("inf"), None
    for _ in range(epochs):
        order = rng.permutation(fit)
        for at in range(0, len(order), batch):
            loss = _log_loss(_chances(net, data, order[at:at + batch]), torch.as_tensor(data["holder"][order[at:at + batch]]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        if len(held):
            with torch.no_grad():
                score = float(_log_loss(_chances(net, data, held), torch.as_tensor(data["holder"][held])))
            if score < best:
                best, kept = score, {k: v.clone() for k, v in net.state_dict().items()}
    if kept is not None:
        net.load_state_dict(kept)
    return net


def _chances(net: BeliefNet, data: dict, idx: np.ndarray) -> torch.Tensor:
    return chances(net(torch.as_tensor(data["obs"][idx], dtype=torch.float32)), torch.as_tensor(data["eligible"][idx]),
                   torch.as_tensor(data["room"][idx]))


def _log_loss(p: torch.Tensor, holder: torch.Tensor) -> torch.Tensor:
    hidden = holder >= 0
    picked = p.gather(1, holder.clamp_min(0)[:, None, :])[:, 0, :]
    return -(torch.log(picked.clamp_min(1e-9)) * hidden).sum() / hidden.sum()


def scores(p: np.ndarray, holder: np.ndarray) -> dict[str, float]:
    """Log-loss, accuracy and spade-honour accuracy of chances ``p`` ``[M, n - 1, 52]`` against the holders."""
    hidden = holder >= 0
    rows, cards = np.nonzero(hidden)
    truth = holder[rows, cards]
    chance = p[rows, truth, cards]
    right = p[rows, :, cards].argmax(axis=1) == truth
    honour = np.isin(cards, HONOURS)
    return {"log_loss": float(-np.log(np.maximum(chance, 1e-9)).mean()), "accuracy": float(right.mean()),
            "honours": float(right[honour].mean()) if honour.any() else float("nan"), "cards": int(len(truth))}


def read_passes_chances(info, eligible: np.ndarray, room: np.ndarray, rng) -> np.ndarray | None:
    """The pass reading's belief at ``info``: each hidden card with each eligible seat in proportion to the chance
    by the passes that the seat held it when play began; None where the passes say nothing (hold, too few kept)."""
    marginals = pass_marginals(info, heuristic_move, rng)
    if marginals is None:
        return None
    seats = info.seats
    me = seats.index(info.seat)
    table = np.stack([marginals[seats[(me + r) % len(seats)]] for r in range(1, len(seats))])
    w = eligible * np.maximum(table, 1e-3)
    total = w.sum(axis=0, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total > 0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bm_env.training.belief", description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="black_maria", choices=[p for p in PRESETS if not make_rules(p).uses_extensions],
                    help="a preset of the classic rules, which the search that draws by the belief plays")
    ap.add_argument("--agent", action="append", default=None,
                    help="the spec playing every seat; given more than once, the deals take them in turn "
                         "(default: the shipped network)")
    ap.add_argument("--deals", type=int, default=1500)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--read-positions", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="write the network there (a torch.save of plain data)")
    a = ap.parse_args(argv)
    if not (5 <= a.deals <= MAX_DEALS and 1 <= a.epochs <= MAX_EPOCHS and 0 <= a.read_positions <= MAX_DEALS):
        ap.error(f"--deals must be 5 to {MAX_DEALS:,}, --epochs 1 to {MAX_EPOCHS}, --read-positions 0 to {MAX_DEALS:,}; "
                 f"got {a.deals}, {a.epochs}, {a.read_positions}")
    problem = unwritable_file(a.out) if a.out is not None else None
    if problem:
        ap.error(f"--out: {problem}")
    rules = make_rules(a.preset)
    specs = a.agent or [shipped_spec(a.preset, rules.num_players)]
    if specs[0] is None:
        ap.error(f"no shipped network for {a.preset}; give --agent SPEC")
    try:
        data = collect(rules, specs, a.deals, a.seed)
    except (AgentSpecError, CheckpointError) as e:
        ap.error(f"--agent: {e}")
    held_out = data["deal"] >= a.deals * 4 // 5
    net = train(data, np.flatnonzero(~held_out), a.epochs, a.seed)
    test = np.flatnonzero(held_out)
    with torch.no_grad():
        p = _chances(net, data, test).numpy()
    print(f"{len(test):,} held-out positions of {a.deals - a.deals * 4 // 5} deals played by {', '.join(specs)}")
    rows = [("uniform", scores(room_chances(data["eligible"][test], data["room"][test]), data["holder"][test])),
            ("network", scores(p, data["holder"][test]))]
    rng = np.random.default_rng(a.seed)
    firsts = [(info, i) for info, i in data["first"] if held_out[i]][:a.read_positions]
    read, kept = [], []
    for info, i in firsts:
        q = read_passes_chances(info, data["eligible"][i], data["room"][i], rng)
        if q is not None:
            read.append(q)
            kept.append(i)
    if kept:
        kept_rows = np.array(kept)
        at = np.searchsorted(test, kept_rows)
        rows += [(f"first decisions ({len(kept)}): uniform",
                  scores(room_chances(data["eligible"][kept_rows], data["room"][kept_rows]), data["holder"][kept_rows])),
                 (f"first decisions ({len(kept)}): read_passes", scores(np.stack(read), data["holder"][kept_rows])),
                 (f"first decisions ({len(kept)}): network", scores(p[at], data["holder"][kept_rows]))]
    print("| belief | hidden cards | log-loss | accuracy | spade honours |\n|---|---:|---:|---:|---:|")
    for name, s in rows:
        print(f"| {name} | {s['cards']:,} | {s['log_loss']:.3f} | {100 * s['accuracy']:.1f}% | {100 * s['honours']:.1f}% |")
    if a.out:
        save_belief(a.out, net, rules, specs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
