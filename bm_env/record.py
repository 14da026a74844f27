"""Game records: every deal as a JSON document that replays to the identical result.

A deal record holds the rules, the seats, the dealer, the hands dealt, each player's
passed cards, the tricks in order and the scores. :func:`replay_deal` plays it again
through the engine and checks every step, so a record that does not replay (a card twice,
an illegal play, a wrong winner or score) is rejected with the place where it goes wrong.
A match record is the list of its deal records plus the totals and winners. A deal record
may also carry the agents' thoughts at their decisions (:mod:`bm_env.thoughts`), which
replaying ignores.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping

from .actions import CARD_CHARGE, CHARGE_DONE, MOON_ADD, MOON_SUBTRACT, PASS_ON, action_str, parse_action
from .cards import card_str, cards_of, parse_card
from .deal import CHARGE, DISCARD, DONE, MOON, PASS, Deal, IllegalActionError
from .match import Match
from .rules import Rules, RulesError
from .scoring import match_would_end

DEAL_FORMAT = "black-maria-deal/1"
MATCH_FORMAT = "black-maria-match/1"


class RecordError(ValueError):
    """A record that is malformed or does not replay, with where it goes wrong."""


def deal_record(deal: Deal, thoughts=None) -> dict[str, Any]:
    """The JSON-able record of a deal (finished or not: an unfinished one has ``scores`` null);
    with a :class:`~bm_env.thoughts.ThoughtLog`, the agents' thoughts in this deal too."""
    k = deal.num_players
    seats = deal.seats
    passes = [[card_str(c) for c in deal.pass_picks[p]] for p in range(k)]
    trick = [card_str(c) for c in deal.trick]
    renege = None
    if deal.renege is not None:
        pos, c, phase = deal.renege
        renege = {"seat": seats[pos], "card": action_str(c), "phase": phase}
        # The offending card is part of the record: replaying it re-applies the penalty. An
        # offending extra decision (or any action in a charge, discard or moon decision) is
        # replayed from the renege entry where the recorded decisions of that phase run out.
        if c < 52 and phase in (PASS, "play"):
            (passes[pos] if phase == PASS else trick).append(card_str(c))
    return {
        "format": DEAL_FORMAT,
        "rules": deal.rules.to_dict(),
        "seats": list(seats),
        "dealer": seats[deal.dealer],
        "pass_direction": deal.pass_direction,
        "totals_before": list(deal.totals_before),
        "deals_before": deal.deals_before,
        "hands": [[card_str(c) for c in sorted(cards_of(m) + cards_of(m2))] for m, m2 in zip(deal.dealt, deal.dealt2)],
        "passes": passes,
        "tricks": [
            {"leader": seats[l], "cards": [card_str(c) for c in cs], "winner": None if w is None else seats[w]}
            for l, cs, w in deal.tricks
        ]
        + ([{"leader": seats[deal.leader], "cards": trick, "winner": None}] if trick else []),
        "renege": renege,
        "scores": None if deal.scores is None else list(deal.scores),
        **_extension_record(deal),
        **({"thoughts": thoughts.of(deal)} if thoughts is not None and thoughts.of(deal) else {}),
    }


def _extension_record(deal: Deal) -> dict[str, Any]:
    """The decisions of the issue-6 rule systems; absent for rules that use none of them."""
    rules = deal.rules
    seats = deal.seats
    out: dict[str, Any] = {}
    if rules.kitty != "none":
        out["kitty"] = [card_str(c) for c in deal.kitty]
        out["kitty_discards"] = [card_str(c) for c in deal.kitty_discards]
    if rules.optional_pass:
        out["passed_on"] = [seats[q] for q in range(deal.num_players) if deal.passed_on[q]]
    if rules.charging:
        out["charged"] = [[card_str(c) for c in cards_of(m)] for m in deal.charged]
    if rules.moon_choice:
        out["moon_choice"] = deal.moon_choice
    return out


def match_record(match: Match, thoughts=None) -> dict[str, Any]:
    deals = list(match.completed)
    if match.deal is not None and match.deal not in deals:
        deals.append(match.deal)
    return {
        "format": MATCH_FORMAT,
        "rules": match.rules.to_dict(),
        "first_dealer": match.first_dealer,
        "deals": [deal_record(d, thoughts) for d in deals],
        "totals": list(match.totals),
        "winners": None if match.winners is None else list(match.winners),
    }


def write_record(path: str | os.PathLike, game: Deal | Match, thoughts=None) -> Path:
    """Write a deal or match record as JSON, atomically (a temporary file renamed into place)."""
    record = match_record(game, thoughts) if isinstance(game, Match) else deal_record(game, thoughts)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(record, f, ensure_ascii=False, indent=1)
    os.replace(tmp, path)
    return path


def load_record(path: str | os.PathLike) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not valid JSON ({e})") from None


def _field(rec: Mapping[str, Any], name: str, where: str) -> Any:
    if not isinstance(rec, Mapping) or name not in rec:
        raise RecordError(f"{where}: missing field {name!r}")
    return rec[name]


def _cards(values: Any, where: str) -> list[int]:
    if not isinstance(values, list):
        raise RecordError(f"{where}: expected a list of cards, got {values!r}")
    try:
        return [parse_card(v) for v in values]
    except (ValueError, TypeError) as e:
        raise RecordError(f"{where}: {e}") from None


def replay_deal(rec: Mapping[str, Any], before_step=None) -> Deal:
    """Play a deal record through the engine, checking every step; return the finished deal.

    A record whose deal ended in a renege replays under the renege penalty; any other
    illegal card is an error. ``before_step(deal, action)``, if given, is called before each
    action is applied (the HTML replay draws the position there).
    """
    if _field(rec, "format", "record") != DEAL_FORMAT:
        raise RecordError(f"record: format {rec['format']!r} is not {DEAL_FORMAT!r}")
    try:
        rules = Rules.from_dict(_field(rec, "rules", "record"))
    except (RulesError, TypeError) as e:
        raise RecordError(f"record rules: {e}") from None
    seats = list(_field(rec, "seats", "record"))
    dealer_seat = _field(rec, "dealer", "record")
    if dealer_seat not in seats:
        raise RecordError(f"record: dealer {dealer_seat!r} is not one of the seats {seats}")
    hands = [_cards(h, f"hands[{i}]") for i, h in enumerate(_field(rec, "hands", "record"))]
    kitty = _cards(rec.get("kitty", []), "kitty")
    on_illegal = "renege_penalty" if rec.get("renege") else "raise"
    try:
        deal = Deal(
            rules, hands, seats.index(dealer_seat), _field(rec, "pass_direction", "record"), seats,
            _field(rec, "totals_before", "record"), _field(rec, "deals_before", "record"), on_illegal, kitty,
        )
    except (ValueError, RulesError) as e:
        raise RecordError(f"record hands: {e}") from None
    if before_step is not None:
        step = deal.step

        def observed_step(action: int) -> None:
            before_step(deal, action)
            step(action)

        deal.step = observed_step  # every replayed action goes through deal.step

    passes = [_cards(p, f"passes[{i}]") for i, p in enumerate(_field(rec, "passes", "record"))]
    if len(passes) != len(hands):
        raise RecordError(f"passes: {len(passes)} lists for {len(hands)} players")
    passed_on = rec.get("passed_on", [])
    extra = _extra_renege(rec)
    while deal.phase == PASS:
        pos = deal.to_act
        picked = len(deal.pass_picks[pos])
        if seats[pos] in passed_on:
            _apply(deal, PASS_ON, f"passed_on (player_{seats[pos]})")
            continue
        if picked >= len(passes[pos]) and extra and extra[:2] == (seats[pos], PASS):
            _apply(deal, extra[2], "renege")
            break
        if picked >= len(passes[pos]):
            raise RecordError(
                f"passes[{pos}]: player_{seats[pos]} passes {len(passes[pos])} cards, the rules need {deal.pass_count}"
            )
        _apply(deal, passes[pos][picked], f"passes[{pos}][{picked}]")
    for pos, p in enumerate(passes):
        if deal.renege is None and len(p) != len(deal.pass_picks[pos]):
            raise RecordError(f"passes[{pos}]: {len(p)} cards recorded, {len(deal.pass_picks[pos])} passed")
    charged = [_cards(c, f"charged[{i}]") for i, c in enumerate(rec.get("charged", []))]
    while deal.phase == CHARGE:
        pos = deal.to_act
        todo = [c for c in (charged[pos] if pos < len(charged) else []) if not deal.charged[pos] >> c & 1]
        if not todo and extra and extra[:2] == (seats[pos], CHARGE):
            _apply(deal, extra[2], "renege")
            break
        if todo and todo[0] not in CARD_CHARGE:
            raise RecordError(f"charged[{pos}]: {card_str(todo[0])} cannot be charged")
        _apply(deal, CARD_CHARGE[todo[0]] if todo else CHARGE_DONE, f"charged[{pos}]")
    discards = _cards(rec.get("kitty_discards", []), "kitty_discards")

    for t, trick in enumerate(_field(rec, "tricks", "record")):
        where = f"tricks[{t}]"
        if deal.phase == DONE:
            raise RecordError(f"{where}: the deal is already over")
        leader = _field(trick, "leader", where)
        if seats[deal.to_act] != leader:
            raise RecordError(f"{where}: leader is player_{leader}, but player_{seats[deal.to_act]} is on lead")
        cards = _cards(_field(trick, "cards", where), f"{where}.cards")
        _discard(deal, discards, extra)
        for i, c in enumerate(cards):
            _apply(deal, c, f"{where}.cards[{i}] (player_{seats[deal.to_act]} plays {card_str(c)})")
        winner = _field(trick, "winner", where)
        if winner is not None and deal.tricks and deal.renege is None:
            if len(deal.tricks) != t + 1:
                raise RecordError(f"{where}: trick has {len(cards)} cards, the table needs {deal.num_players}")
            actual = deal.tricks[t][2] if deal.tricks[t][2] is None else seats[deal.tricks[t][2]]
            if actual != winner:
                raise RecordError(f"{where}: winner recorded as player_{winner}, the rules give player_{actual}")
    _discard(deal, discards, extra)
    if extra and deal.phase != DONE and extra[:2] == (seats[deal.to_act], deal.phase):
        _apply(deal, extra[2], "renege")
    if deal.phase == MOON:
        choice = rec.get("moon_choice")
        if choice not in ("subtract", "add"):
            raise RecordError(f"moon_choice: the deal needs the shooter's choice 'subtract' or 'add', got {choice!r}")
        _apply(deal, MOON_SUBTRACT if choice == "subtract" else MOON_ADD, "moon_choice")
    scores = rec.get("scores")
    if scores is not None:
        if deal.scores is None:
            raise RecordError("scores: recorded, but the recorded tricks do not finish the deal")
        if list(deal.scores) != list(scores):
            raise RecordError(f"scores: recorded {list(scores)}, the rules give {list(deal.scores)}")
    return deal


def _extra_renege(rec: Mapping[str, Any]) -> tuple[int, str, int] | None:
    """(seat, phase, action) of a renege that the passes and tricks do not hold, or None."""
    r = rec.get("renege")
    if not r:
        return None
    try:
        action = parse_action(_field(r, "card", "renege"))
    except ValueError as e:
        raise RecordError(f"renege: {e}") from None
    if action < 52 and r.get("phase") in (PASS, "play"):
        return None
    return r.get("seat"), r.get("phase"), action


def _discard(deal: Deal, discards: list[int], extra=None) -> None:
    """Replay the kitty taker's discards when the deal waits for them."""
    while deal.phase == DISCARD:
        done = len(deal.kitty_discards)
        if done >= len(discards) and extra and extra[:2] == (deal.seats[deal.to_act], DISCARD):
            _apply(deal, extra[2], "renege")
            return
        if done >= len(discards):
            raise RecordError(f"kitty_discards: {len(discards)} recorded, the kitty taker discards {len(deal.kitty)}")
        _apply(deal, discards[done], f"kitty_discards[{done}]")


def _apply(deal: Deal, card: int, where: str) -> None:
    try:
        deal.step(card)
    except IllegalActionError as e:
        raise RecordError(f"{where}: {e}") from None


def replay_match(rec: Mapping[str, Any], before_step=None) -> list[Deal]:
    """Replay every deal of a match record and check the totals; return the replayed deals
    (``before_step`` as in :func:`replay_deal`)."""
    if _field(rec, "format", "record") != MATCH_FORMAT:
        raise RecordError(f"record: format {rec['format']!r} is not {MATCH_FORMAT!r}")
    deals = [replay_deal(d, before_step) for d in _field(rec, "deals", "record")]
    rules = Rules.from_dict(rec["rules"])
    totals = [0] * rules.num_players
    counted = 0
    ended = False  # the end rule fired: any deal after it is a tie-break among the tied players
    for d in deals:
        if d.scores is None or ended or len(d.seats) < rules.num_players:
            continue  # an unfinished deal, or a tie-break deal: neither counts towards the totals
        totals = [t + x for t, x in zip(totals, d.scores)]
        if rules.exact_reset is not None:
            hit, reset_to = rules.exact_reset
            totals = [reset_to if t == hit else t for t in totals]
        counted += 1
        # Tie-break deals among *all* the tied players seat everyone: tell them apart by the end rule.
        ended = rules.tie_break == "tied_players" and match_would_end(rules, totals, counted)
    if totals != list(_field(rec, "totals", "record")):
        raise RecordError(f"totals: recorded {rec['totals']}, the deals give {totals}")
    return deals
