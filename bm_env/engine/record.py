"""Game records: every deal as a JSON document that replays to the identical result.

A deal record holds the rules, the seats, the dealer, the hands dealt, each player's
passed cards, the tricks in order and the scores. :func:`~bm_env.replay_deal` plays it again
through the engine and checks every step, so a record that does not replay (a card twice,
an illegal play, a wrong winner or score) is rejected with the place where it goes wrong.
A match record is the list of its deal records plus the totals and winners;
:func:`~bm_env.replay_match` feeds the replayed deals to a :class:`~bm_env.engine.match.Match`, so every
recorded field (each deal's rules, seats, dealer, pass direction, totals and deal count
before it, the match totals and the winners) is checked against what the match makes of
the deals. A field of the wrong kind (``null``, a string for a list) is a
:class:`RecordError` naming the field, never a ``TypeError``. A deal record may also carry
the agents' thoughts at their decisions (:mod:`bm_env.engine.thoughts`), which replaying ignores.
A field a record does not have (an unknown key, or an extension's field under rules
without that extension) is refused rather than carried along unread, as is a renege
entry that the replayed deal does not end with, and a file with ``NaN`` or ``Infinity``.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..systems import SYSTEMS, RuleSystem
from .actions import PASS_ON, action_str, parse_action
from .cards import card_str, cards_of, parse_card
from .deal import DONE, PASS, PLAY, Deal, IllegalActionError, pass_direction_for
from .files import write_atomic
from .match import Match
from .rules import Rules, RulesError

DEAL_FORMAT = "black-maria-deal/1"
MATCH_FORMAT = "black-maria-match/1"


class RecordError(ValueError):
    """A record that is malformed or does not replay, with where it goes wrong."""


def deal_record(deal: Deal, thoughts=None) -> dict[str, Any]:
    """The JSON-able record of a deal (finished or not: an unfinished one has ``scores`` null);
    with a :class:`~bm_env.engine.thoughts.ThoughtLog`, the agents' thoughts in this deal too."""
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
        "hands": [[card_str(c) for c in sorted(cards_of(m) + cards_of(m2))] for m, m2 in zip(deal.dealt, deal.dealt_twice)],
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
    """The fields of the rule systems in use (the cards left apart, their decisions); none for the classic rules."""
    out: dict[str, Any] = {}
    for system in _in_use(deal.rules):
        out.update(system.record(deal))
    return out


@lru_cache(maxsize=64)
def _in_use(rules: Rules) -> tuple[RuleSystem, ...]:
    """The rule systems in use under ``rules``, in the registry's order."""
    return tuple(system for system in SYSTEMS if system.features(rules))


def match_record(match: Match, thoughts=None) -> dict[str, Any]:
    """The JSON-able record of a match: its rules, first dealer, every deal's record (:func:`deal_record`), totals and winners."""
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
    """Write a deal or match record as JSON, atomically (:func:`bm_env.engine.files.write_atomic`)."""
    record = match_record(game, thoughts) if isinstance(game, Match) else deal_record(game, thoughts)
    return write_atomic(path, lambda f: json.dump(record, f, ensure_ascii=False, indent=1))


def _no_constant(name: str) -> None:
    raise RecordError(f"{name} is not a JSON number (a record holds finite numbers only)")


def load_record(path: str | os.PathLike) -> dict[str, Any]:
    """The JSON object in ``path``; :class:`RecordError` for a file that is not one (binary, broken JSON,
    ``NaN`` or ``Infinity``, which Python's reader would take, or nesting too deep to read)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a text file (a game record is UTF-8 JSON)") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not valid JSON ({e})") from None
    except RecordError as e:
        raise RecordError(f"{path}: {e}") from None
    except RecursionError:
        raise RecordError(f"{path}: nested too deeply to be a game record") from None
    if not isinstance(data, dict):
        raise RecordError(f"{path}: a game record is a JSON object, got {_kind(data)}")
    return data


def _kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, Mapping) else type(value).__name__


def _field(rec: Mapping[str, Any], name: str, where: str) -> Any:
    if not isinstance(rec, Mapping):
        raise RecordError(f"{where}: expected an object with field {name!r}, got {_kind(rec)}")
    if name not in rec:
        raise RecordError(f"{where}: missing field {name!r}")
    return rec[name]


def _list(rec: Mapping[str, Any], name: str, where: str) -> list:
    value = _field(rec, name, where)
    if not isinstance(value, list):
        raise RecordError(f"{where}: field {name!r} must be a list, got {_kind(value)}")
    return value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{where} must be a whole number, got {_kind(value)}")
    return value


def _player(seat: Any) -> str:
    """A recorded seat as a player name: ``player_0`` for 0, the value itself otherwise."""
    return f"player_{seat}" if isinstance(seat, int) and not isinstance(seat, bool) else repr(seat)


def _rules(rec: Mapping[str, Any], where: str) -> Rules:
    try:
        return Rules.from_dict(_field(rec, "rules", where))
    except (RulesError, TypeError) as e:
        raise RecordError(f"{where} rules: {e}") from None


def _cards(values: Any, where: str) -> list[int]:
    if not isinstance(values, list):
        raise RecordError(f"{where}: expected a list of cards, got {values!r}")
    try:
        return [parse_card(v) for v in values]
    except (ValueError, TypeError) as e:
        raise RecordError(f"{where}: {e}") from None


def replay_deal(rec: Mapping[str, Any], before_step=None) -> Deal:
    """Play a deal record through the engine, checking every step; return the deal where the record ends.

    A record whose deal ended in a renege replays under the renege penalty; any other
    illegal card is an error. ``before_step(deal, action)``, if given, is called before each
    action is applied (the HTML replay draws the position there). An unfinished record
    (``scores`` null: a game quit part way, even during passing) replays up to where it stops.
    """
    replay = _Replay(rec, _deal_of_record(rec), before_step)
    replay.passes()
    replay.system_phases()
    replay.tricks()
    _check_renege(rec, replay.deal)
    _check_scores(rec, replay.deal)
    return replay.deal


#: The fields of a deal record; the rule systems in use add theirs (``RuleSystem.record_fields``).
DEAL_FIELDS = ("format", "rules", "seats", "dealer", "pass_direction", "totals_before", "deals_before", "hands",
               "passes", "tricks", "renege", "scores", "thoughts")
MATCH_FIELDS = ("format", "rules", "first_dealer", "deals", "totals", "winners")


def _only_fields(rec: Mapping[str, Any], allowed, where: str) -> None:
    """Refuse a field a record of this kind does not have (it would be carried along unread)."""
    unknown = [k for k in rec if k not in allowed]
    if unknown:
        shown = ", ".join(repr(k) if len(repr(k)) <= 40 else repr(k)[:37] + "..." for k in unknown[:5])
        raise RecordError(f"{where}: unknown field(s) {shown}; a record of these rules has {list(allowed)}")


def _deal_of_record(rec: Mapping[str, Any]) -> Deal:
    """The deal a record starts from: its rules, seats, dealer, hands, pass direction and match numbers."""
    if _field(rec, "format", "record") != DEAL_FORMAT:
        raise RecordError(f"record: format {rec['format']!r} is not {DEAL_FORMAT!r}")
    rules = _rules(rec, "record")
    _only_fields(rec, DEAL_FIELDS + tuple(f for system in _in_use(rules) for f in system.record_fields), "record")
    seats = [_int(s, f"seats[{i}]") for i, s in enumerate(_list(rec, "seats", "record"))]
    if len(set(seats)) != len(seats) or not all(0 <= s < rules.num_players for s in seats):
        raise RecordError(f"seats: {seats} must be distinct seats in 0..{rules.num_players - 1}")
    dealer_seat = _field(rec, "dealer", "record")
    if dealer_seat not in seats:
        raise RecordError(f"record: dealer {dealer_seat!r} is not one of the seats {seats}")
    hands = [_cards(h, f"hands[{i}]") for i, h in enumerate(_list(rec, "hands", "record"))]
    if len(hands) != len(seats):
        raise RecordError(f"hands: {len(hands)} hands for {len(seats)} seats")
    direction = _field(rec, "pass_direction", "record")
    if direction not in rules.pass_cycle:
        raise RecordError(f"pass_direction: {direction!r} is not in the rules' pass cycle {list(rules.pass_cycle)}")
    totals_before = [_int(t, f"totals_before[{i}]") for i, t in enumerate(_list(rec, "totals_before", "record"))]
    if len(totals_before) != len(seats):
        raise RecordError(f"totals_before: {len(totals_before)} totals for {len(seats)} seats")
    deals_before = _int(_field(rec, "deals_before", "record"), "deals_before")
    apart = next((system.apart_field for system in _in_use(rules) if system.apart_field), None)
    kitty = _cards(rec.get(apart, []), apart) if apart else []
    on_illegal = "renege_penalty" if rec.get("renege") else "raise"
    try:
        return Deal(rules, hands, seats.index(dealer_seat), direction, seats, totals_before, deals_before,
                    on_illegal, kitty)
    except (ValueError, RulesError) as e:
        raise RecordError(f"record hands: {e}") from None


class _Replay:
    """A record's decisions fed to its deal, phase by phase, each step checked (see :func:`~bm_env.replay_deal`)."""

    def __init__(self, rec: Mapping[str, Any], deal: Deal, before_step) -> None:
        self.rec = rec
        self.deal = deal
        self.seats = deal.seats
        self.before_step = before_step
        self.extra: tuple[int, str, int] | None = None  # a renege the passes and tricks do not hold
        self.recorded_tricks: list = []
        self._replayers = {phase: replay for system in _in_use(deal.rules) for phase, replay in system.replay.items()}

    def apply(self, action: int, where: str) -> None:
        """One step; an illegal one is a RecordError saying where in the record it is."""
        if self.before_step is not None:
            self.before_step(self.deal, action)
        try:
            self.deal.step(action)
        except IllegalActionError as e:
            raise RecordError(f"{where}: {e}") from None

    def renege_due(self, phase: str) -> bool:
        """Whether the record's extra renege belongs here: the player to act, in ``phase``."""
        return bool(self.extra) and self.extra[:2] == (self.seats[self.deal.to_act], phase)

    def passes(self) -> None:
        """Every player's recorded passes (or passing on), as far as the record goes."""
        rec, deal, seats = self.rec, self.deal, self.seats
        passes = [_cards(p, f"passes[{i}]") for i, p in enumerate(_list(rec, "passes", "record"))]
        if len(passes) != deal.num_players:
            raise RecordError(f"passes: {len(passes)} lists for {deal.num_players} players")
        passed_on = rec.get("passed_on", [])
        self.extra = _extra_renege(rec)
        unfinished = rec.get("scores") is None
        while deal.phase == PASS:
            pos = deal.to_act
            picked = len(deal.pass_picks[pos])
            if seats[pos] in passed_on:
                self.apply(PASS_ON, f"passed_on (player_{seats[pos]})")
                continue
            if picked >= len(passes[pos]) and self.renege_due(PASS):
                self.apply(self.extra[2], "renege")
                break
            if picked >= len(passes[pos]) and unfinished:
                break  # the record stops here: a deal left while the players were still passing
            if picked >= len(passes[pos]):
                raise RecordError(f"passes[{pos}]: player_{seats[pos]} passes {len(passes[pos])} cards, "
                                  f"the rules need {deal.pass_count}")
            self.apply(passes[pos][picked], f"passes[{pos}][{picked}]")
        self.recorded_tricks = _list(rec, "tricks", "record")
        if deal.phase == PASS and self.recorded_tricks:
            raise RecordError(f"tricks: {len(self.recorded_tricks)} recorded, but the recorded passes stop before "
                              f"every player has passed")
        picks = deal.pass_picks
        for pos, p in enumerate(passes):
            if deal.renege is None and len(p) != len(picks[pos]):
                raise RecordError(f"passes[{pos}]: {len(p)} cards recorded, {len(picks[pos])} passed")

    def tricks(self) -> None:
        """The recorded tricks, each winner checked, and the decisions of the systems' phases where the deal waits
        for them (the kitty taker's discards, the moon choice); then a renege the record holds apart, where it
        belongs."""
        deal, seats = self.deal, self.seats
        for t, trick in enumerate(self.recorded_tricks):
            where = f"tricks[{t}]"
            if deal.phase == DONE:
                raise RecordError(f"{where}: the deal is already over")
            self.system_phases()
            leader = _field(trick, "leader", where)
            if seats[deal.to_act] != leader:
                raise RecordError(f"{where}: leader is {_player(leader)}, but player_{seats[deal.to_act]} is on lead")
            _only_fields(trick, ("leader", "cards", "winner"), where)
            cards = _cards(_field(trick, "cards", where), f"{where}.cards")
            for i, c in enumerate(cards):
                self.apply(c, f"{where}.cards[{i}] (player_{seats[deal.to_act]} plays {card_str(c)})")
            self.check_winner(t, trick, len(cards))
        self.system_phases(record_ends=True)
        if deal.phase != DONE and self.renege_due(deal.phase):
            self.apply(self.extra[2], "renege")

    def check_winner(self, t: int, trick: Mapping[str, Any], played: int) -> None:
        """The ``t``-th trick, just played (``played`` cards), went to its recorded winner."""
        deal, seats, where = self.deal, self.seats, f"tricks[{t}]"
        winner = _field(trick, "winner", where)
        tricks = deal.tricks
        if winner is None or not tricks or deal.renege is not None:
            return
        if len(tricks) != t + 1:
            raise RecordError(f"{where}: trick has {played} cards, the table needs {deal.num_players}")
        actual = tricks[t][2] if tricks[t][2] is None else seats[tricks[t][2]]
        if actual != winner:
            raise RecordError(f"{where}: winner recorded as {_player(winner)}, the rules give {_player(actual)}")

    def system_phases(self, record_ends: bool = False) -> None:
        """The recorded decisions of the rule systems' phases the deal waits in (charging, the kitty's discards, the
        moon choice), each fed by its system (``RuleSystem.replay``), until play resumes or the record stops;
        ``record_ends``: no trick follows in the record."""
        deal = self.deal
        while deal.phase not in (PASS, PLAY, DONE):
            phase = deal.phase
            self._replayers[phase](self, record_ends)
            if deal.phase == phase:
                return  # the record stops in this phase

    def cards(self, values: Any, where: str) -> list[int]:
        """The card ids of a recorded list of cards (for a system's replay)."""
        return _cards(values, where)

    def error(self, message: str) -> RecordError:
        """The error a system's replay raises for a record that does not replay."""
        return RecordError(message)


def _check_renege(rec: Mapping[str, Any], deal: Deal) -> None:
    """A recorded renege is the one the replayed deal ended with (a deal that ended normally has none)."""
    recorded = rec.get("renege")
    if not recorded:
        return
    _only_fields(recorded, ("seat", "card", "phase"), "renege")
    if deal.renege is None:
        raise RecordError(f"renege: recorded ({_player(recorded.get('seat'))} plays {recorded.get('card')!r}), but "
                          "every recorded decision is legal: the deal has no renege")
    pos, card, phase = deal.renege
    actual = {"seat": deal.seats[pos], "card": action_str(card), "phase": phase}
    if {k: recorded.get(k) for k in actual} != actual:
        raise RecordError(f"renege: recorded {dict(recorded)}, the replayed deal's is {actual}")


def _check_scores(rec: Mapping[str, Any], deal: Deal) -> None:
    """The recorded scores are the replayed deal's (null for a deal the record leaves unfinished)."""
    scores = rec.get("scores")
    if scores is not None:
        if not isinstance(scores, list):
            raise RecordError(f"scores: must be a list or null, got {_kind(scores)}")
        if deal.scores is None:
            raise RecordError("scores: recorded, but the recorded tricks do not finish the deal")
        if list(deal.scores) != scores:
            raise RecordError(f"scores: recorded {scores}, the rules give {list(deal.scores)}")
    elif deal.scores is not None:
        raise RecordError(f"scores: recorded as null, but the deal is finished with scores {list(deal.scores)}")


def _extra_renege(rec: Mapping[str, Any]) -> tuple[int, str, int] | None:
    """(seat, phase, action) of a renege that the passes and tricks do not hold, or None."""
    r = rec.get("renege")
    if not r:
        return None
    card = _field(r, "card", "renege")
    try:
        action = parse_action(card)
    except (ValueError, AttributeError) as e:
        raise RecordError(f"renege: card {card!r}: {e}") from None
    if action < 52 and r.get("phase") in (PASS, "play"):
        return None
    return r.get("seat"), r.get("phase"), action


def replay_match(rec: Mapping[str, Any], before_step=None) -> list[Deal]:
    """Replay every deal of a match record through a :class:`~bm_env.engine.match.Match`; return the deals
    (``before_step`` as in :func:`~bm_env.replay_deal`).

    Each deal must be the one the match plays next: the match's rules, seats (a tie-break
    deal seats only the tied players), dealer, pass direction (for a cycle), and the totals
    and deal count before it. The match's totals and winners must be the recorded ones.
    """
    if _field(rec, "format", "record") != MATCH_FORMAT:
        raise RecordError(f"record: format {rec['format']!r} is not {MATCH_FORMAT!r}")
    rules = _rules(rec, "record")
    _only_fields(rec, MATCH_FIELDS, "record")
    first_dealer = _int(_field(rec, "first_dealer", "record"), "first_dealer")
    if not 0 <= first_dealer < rules.num_players:
        raise RecordError(f"first_dealer: {first_dealer} is not a seat in 0..{rules.num_players - 1}")
    match = Match(rules, 0, first_dealer, deal_first=False)
    records = _list(rec, "deals", "record")
    deals = []
    for i, drec in enumerate(records):
        where = f"deals[{i}]"
        if match.is_over:
            raise RecordError(f"{where}: the match was over after {i} deal(s); no deal follows")
        try:
            deal = replay_deal(drec, before_step)
        except RecordError as e:
            raise RecordError(f"{where}: {e}") from None
        _check_deal_in_match(match, deal, where)
        deals.append(deal)
        if deal.scores is None:
            if i != len(records) - 1:
                raise RecordError(f"{where}: unfinished, but deals follow it")
            break
        match.finish_deal(deal)
    totals = _list(rec, "totals", "record")
    if totals != match.totals:
        raise RecordError(f"totals: recorded {totals}, the deals give {match.totals}")
    winners = _field(rec, "winners", "record")
    actual = None if match.winners is None else list(match.winners)
    if winners != actual:
        shown = lambda w: "none (match not over)" if w is None else ", ".join(map(_player, w)) if isinstance(w, list) \
            else _kind(w)  # noqa: E731
        raise RecordError(f"winners: recorded {shown(winners)}, the deals give {shown(actual)}")
    return deals


def _check_deal_in_match(match: Match, deal: Deal, where: str) -> None:
    """A replayed deal must be the one ``match`` plays next, as the engine would have set it up."""
    if deal.rules != match.rules:
        mine, theirs = match.rules.to_dict(), deal.rules.to_dict()
        diff = {k: (theirs[k], mine[k]) for k in mine if mine[k] != theirs[k]}
        raise RecordError(f"{where}: its rules differ from the match's; differing options (deal, match): {diff}")
    seats, dealer = match.next_deal_setup()
    if tuple(deal.seats) != seats:
        raise RecordError(f"{where}: seats {list(deal.seats)}, but the match seats {list(seats)} in this deal")
    if deal.dealer != dealer:
        raise RecordError(f"{where}: dealer player_{deal.seats[deal.dealer]}, but the deal moves to "
                          f"player_{seats[dealer]}")
    if match.rules.pass_order == "cycle":
        direction = pass_direction_for(match.rules, match.deal_number, None)
        if deal.pass_direction != direction:
            raise RecordError(f"{where}: pass direction {deal.pass_direction!r}, but the cycle gives {direction!r}")
    before = match.totals_of(seats)
    if deal.totals_before != before:
        raise RecordError(f"{where}: totals_before {list(deal.totals_before)}, "
                          f"but the match totals were {list(before)}")
    if deal.deals_before != match.deals_played:
        raise RecordError(f"{where}: deals_before {deal.deals_before}, but {match.deals_played} deal(s) had counted")
