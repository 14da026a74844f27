"""What the web table sends to the person's seat: that seat's observation in words, and nothing more.

:func:`seat_view` is built from the seat's :class:`~bm_env.engine.infostate.InfoState`, which holds
nothing the seat may not know, plus the game's public facts (the setup the person chose,
the scores of finished deals, the last trick of the previous deal). Cards are written as
records write them (``"QS"``, ``"TH"``), seats as numbers.

Two things come from beyond the information state, each cut down to what is public:

* why each card of the person's hand is not legal now (:func:`~bm_env.engine.explain.why_illegal`,
  which reads only the hand of the seat to act and the rules);
* what the agents thought (:mod:`bm_env.engine.thoughts`). An agent's numbers over its legal
  cards would show its hand, so a thought is shown only for a card play in a finished
  trick, and of its numbers only those for cards that seat has played since (the card it
  chose among them): a card a seat played later was in its hand then, which the play has
  made public. Thoughts about passing, charging, discarding and the moon choice are not
  shown: they would tell which cards moved face down. With a kitty only the chosen card's
  number is shown (a later card may have come from the kitty).
"""

from __future__ import annotations

from typing import Any, Sequence

from ..engine.actions import action_str
from ..engine.cards import NUM_CARDS, SUIT_NAMES, card_str
from ..engine.deal import PASS, Deal
from ..engine.explain import why_illegal
from ..engine.infostate import InfoState, information_state
from ..engine.scoring import match_goal
from ..pictures.svg import by_suit
from ..systems import SYSTEMS, dealing
from .game import WebGame


def _cards(cards: Sequence[int]) -> list[str]:
    return [card_str(c) for c in cards]


def _tricks(info: InfoState) -> list[dict[str, Any]]:
    """The finished tricks, each card with the seat that played it (the plays in order: a rule system may pass
    some players over)."""
    out, i = [], 0
    for leader, cards, winner in info.tricks:
        plays = info.plays[i:i + len(cards)]
        i += len(cards)
        out.append({"leader": leader, "cards": [{"seat": s, "card": card_str(c)} for s, c in plays], "winner": winner})
    return out


def public_thoughts(game: WebGame, index: int, info: InfoState) -> list[dict[str, Any]]:
    """The agents' thoughts the person may see in deal ``index`` (see the module's docstring), by trick."""
    deal = game.deals[index]
    me = game.setup.seat
    finished = sum(len(cards) for _, cards, _ in info.tricks)  # card plays in finished tricks
    trick_of = [t for t, (_, cards, _) in enumerate(info.tricks) for _ in cards]
    play_number: dict[int, int] = {}  # decision number -> its place among the deal's card plays
    for d, (phase, _, action) in enumerate(game.steps[index]):
        if phase == "play" and action < NUM_CARDS:
            play_number[d] = len(play_number)
    plays = info.plays
    out = []
    for entry in game.thoughts.of(deal):
        j = play_number.get(entry["decision"])
        if j is None or j >= finished or entry["seat"] == me:
            continue
        seat, chosen = plays[j]
        # Where cards leave or join a hand outside a play (a kitty, a stock), the seat's later plays are no
        # longer the rest of the hand it chose from: only the card it chose.
        later = {card_str(c) for s, c in plays[j:] if s == seat} if not dealing(game.rules).full_deck \
            else {card_str(chosen)}
        values = {a: v for a, v in entry["values"].items() if a in later}
        out.append({"trick": trick_of[j] + 1, "seat": seat, "agent": entry["agent"], "kind": entry["kind"],
                    "played": card_str(chosen), "values": values})
    return out


def _illegal(deal: Deal, info: InfoState) -> list[dict[str, str]]:
    """Each card of the hand that may not be played (or passed) now, with the rule that forbids it."""
    legal = set(info.legal)
    return [{"card": card_str(c), "reason": why_illegal(deal, c)} for c in by_suit(set(info.hand)) if c not in legal]


def _previous(game: WebGame) -> dict[str, Any] | None:
    """The end of the deal before the one in progress: its last trick, its scores, the thoughts of that trick."""
    deals = game.deals
    last = len(deals) - 2
    if last < 0:
        return None
    deal = deals[last]
    info = information_state(deal, game.setup.seat, [0] * game.rules.num_players, 0)
    if not info.tricks:
        return None
    thoughts = [t for t in public_thoughts(game, last, info) if t["trick"] == len(info.tricks)]
    return {"number": last + 1, "last_trick": _tricks(info)[-1],
            "scores": {str(s): x for s, x in zip(deal.seats, deal.scores)}, "thoughts": thoughts}


def seat_view(game: WebGame) -> dict[str, Any]:
    """The person's view of ``game`` as a JSON-able dict (the body of the API's answers)."""
    setup = game.setup
    match = game.match
    deal = match.deal
    me = setup.seat
    info = information_state(deal, me, match.totals, match.deals_played)
    mine = info.to_act == me
    extras = [{"id": a, "name": action_str(a)} for a in info.legal if a >= NUM_CARDS]
    view: dict[str, Any] = {
        "rules": setup.preset,
        "players": setup.players,
        "seat": me,
        "episode": "match" if setup.match else "deal",
        "goal": match_goal(game.rules, setup.match),
        "opponents": {str(s): spec for s, spec in enumerate(setup.opponents) if s != me},
        "hint": game.hint_spec is not None,
        "over": game.over,
        "winners": None if match.winners is None else list(match.winners),
        "deal": len(game.deals),
        "dealer": info.dealer,
        "seats": list(info.seats),
        "phase": info.phase,
        "to_act": info.to_act,
        "your_turn": mine and not game.over,
        "hand": _cards(by_suit(info.hand)),
        "legal": _cards(by_suit([a for a in info.legal if a < NUM_CARDS])),
        "actions": extras,
        "illegal": _illegal(deal, info) if mine else [],
        "pass": {"count": info.pass_count, "direction": info.pass_direction,
                 "to_pick": deal.pass_count - len(deal.pass_picks[deal.to_act]) if mine and info.phase == PASS else 0,
                 "passed": [{"card": card_str(c), "to": to} for c, to in info.passed],
                 "received": _cards(info.received), "received_from": info.received_from},
        "hearts_broken": info.hearts_broken,
        "trick": {"led_suit": None if info.led_suit is None else SUIT_NAMES[info.led_suit],
                  "cards": [{"seat": s, "card": card_str(c)} for s, c in info.current_trick]},
        "tricks": _tricks(info),
        "points_taken": list(info.points_taken),
        "tricks_won": list(info.tricks_won),
        "hand_sizes": list(info.hand_sizes),
        "deal_scores": None if info.deal_scores is None else list(info.deal_scores),
        "match_totals": list(info.match_scores),
        "deals_played": info.deals_played,
        "previous": _previous(game),
        "thoughts": public_thoughts(game, len(game.deals) - 1, info),
    }
    view.update(_extensions(info))
    return view


def _extensions(info: InfoState) -> dict[str, Any]:
    """The facts the rule systems in use add to the seat's information state (each system's ``info_fields``: public,
    or the seat's own), cards by name; and the moon's shooter once there is one."""
    out: dict[str, Any] = {}
    for system in SYSTEMS:
        if system.features(info.rules):
            for name, fact in system.info_fields.items():
                out[name] = _fact(getattr(info, name), fact.cards)
    if info.moon_shooter is not None:
        out["moon_shooter"] = info.moon_shooter
    return out


def _fact(value: Any, cards: bool) -> Any:
    """A fact as JSON: tuples as lists, card ids (where ``cards``) as card names."""
    if isinstance(value, tuple):
        return [_fact(v, cards) for v in value]
    return card_str(value) if cards and isinstance(value, int) else value
