"""Hidden information on the wire: what the web table sends a seat never depends on cards that seat
has not seen.

Two games that differ only in the other seats' unseen cards (moved between them, so their
hands are worth different points) must give byte-identical answers to every request of the
person, up to the point where one of those cards is played: the view, the table picture,
the hint, the replay page, the refusals. And the agents' thoughts the view shows name only
cards already played by the agent that thought them.

Needs the ``web`` extra; CI installs it in the browser step and runs these there.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

from bm_env.agents import register_agent  # noqa: E402
from bm_env.engine.cards import card_str, cards_of, suit_of  # noqa: E402
from bm_env.web import GameStore, Setup, WebGame  # noqa: E402
from kit import web_client, web_move  # noqa: E402

#: What the scripted agents play, by seat, for the games built next (see ScriptAgent).
SCRIPT: dict[int, list[int]] = {}


class ScriptAgent:
    """Plays, at its seat, the actions of SCRIPT as it was when the agent was made: the same moves in
    two games whose unseen cards differ, so that the person's answers can be compared."""

    name = "script"
    needs_observation = False

    def __init__(self) -> None:
        self.moves = {s: list(a) for s, a in SCRIPT.items()}

    def act(self, observation, mask, info) -> int:
        return self.moves[info.seat].pop(0)

    def reset(self, seed=None) -> None:
        pass


register_agent("web_test_script", lambda rules, seed: ScriptAgent())


def _values(rules, cards):
    return sum(rules.card_values[c] for c in cards)


def _answers(c, gid: str, me_first: list[dict] | None = None) -> list[bytes]:
    """Everything the person may ask of game ``gid`` now, as bytes."""
    base = f"/api/games/{gid}"
    out = [c.get(base).content, c.get(base + "/table.svg").content, c.get(base + "/hint").content,
           c.get(base + "/replay").content, c.get(base + "/record").content]
    for body in me_first or []:  # refused moves: the reason must not depend on the hidden cards either
        out.append(c.post(base + "/actions", json=body).content)
    return out


def test_passing_against_the_shipped_agent_sends_the_same_bytes_whatever_the_others_hold():
    setup = Setup.from_request({"rules": "black_maria", "seed": 9})
    first = WebGame.start(setup)
    rules = first.rules
    dealt = [cards_of(m) for m in first.match.deal.dealt]
    me = setup.seat
    others = [p for p in range(3) if p != me]
    pool = [c for p in others for c in dealt[p]]
    rng = np.random.default_rng(0)
    while True:  # the other seats' cards dealt afresh between them, worth other points
        rng.shuffle(pool)
        moved = [pool[:17], pool[17:]]
        if _values(rules, moved[0]) != _values(rules, dealt[others[0]]):
            break
    hands = list(dealt)
    hands[others[0]], hands[others[1]] = moved
    store = GameStore()
    ids = [store.add(WebGame.start(setup, hands=h))[0] for h in (dealt, hands)]
    c = web_client(store)
    view = c.get(f"/api/games/{ids[0]}").json()
    assert view["your_turn"] and view["phase"] == "pass"
    held = set(view["hand"])
    absent = next(card_str(x) for x in range(52) if card_str(x) not in held)
    refusals = [{"card": absent}, {"cards": view["legal"][:2]}]
    assert _answers(c, ids[0], refusals) == _answers(c, ids[1], refusals)
    one = {"card": view["legal"][0]}  # one card picked: the others' picks are still hidden
    assert c.post(f"/api/games/{ids[0]}/actions", json=one).content == \
        c.post(f"/api/games/{ids[1]}/actions", json=one).content
    assert _answers(c, ids[0], refusals) == _answers(c, ids[1], refusals)


def _scripted_pair(seed: int):
    """A black_maria deal played to its end by heuristic agents, and the same deal with two unseen cards
    of the same suit and different values swapped between the other seats, unplayed and unpassed
    until the person's decision ``cut``; None when the deal has no such pair."""
    setup = Setup.from_request({"rules": "black_maria", "opponents": "heuristic", "seed": seed})
    game = WebGame.start(setup)
    dealt = [cards_of(m) for m in game.match.deal.dealt]
    chooser = random.Random(seed)
    while not game.over:
        view_legal = game.match.deal.legal_actions()
        if game.match.deal.phase == "pass":
            game.move(chooser.sample(view_legal, game.match.deal.pass_count))
        else:
            game.move([chooser.choice(view_legal)])
    steps = game.steps[0]
    rules = game.rules
    me = setup.seat
    mine = [d for d, (_, s, _) in enumerate(steps) if s == me]
    cut = mine[len(mine) // 2]  # the person's decision half way through the deal
    played_before = {a for _, _, a in steps[:cut]}  # picks and plays before the cut
    picked = {a for phase, _, a in steps if phase == "pass"}
    free = {p: [c for c in dealt[p] if c not in played_before and c not in picked] for p in (1, 2)}
    for a in free[1]:
        for b in free[2]:
            if suit_of(a) == suit_of(b) and rules.card_values[a] != rules.card_values[b]:
                hands = [list(h) for h in dealt]
                hands[1][hands[1].index(a)], hands[2][hands[2].index(b)] = b, a
                script = {s: [act for _, seat, act in steps if seat == s] for s in (1, 2)}
                person = [act for _, seat, act in steps[:cut] if seat == me]
                return setup, dealt, hands, script, person, [phase for phase, s, _ in steps[:cut] if s == me]
    return None


def test_every_answer_is_the_same_until_a_moved_card_is_played():
    """Half a deal of tricks, the person moving through the API; the other seats' agents play the
    same cards in both games (scripted) while two of their unplayed cards differ."""
    pair = next(p for p in map(_scripted_pair, range(1, 30)) if p is not None)
    setup, dealt, hands, script, person, phases = pair
    scripted = Setup(**{**setup.__dict__, "opponents": ("", "web_test_script", "web_test_script")})
    SCRIPT.clear()
    SCRIPT.update(script)
    store = GameStore()
    ids = [store.add(WebGame.start(scripted, hands=h))[0] for h in (dealt, hands)]
    c = web_client(store)
    i = 0
    answers = 0
    while i < len(person):
        if phases[i] == "pass":
            body = {"cards": [card_str(a) for a in person[i:i + 3]]}
            i += 3
        else:
            body = {"card": card_str(person[i])}
            i += 1
        views = [c.get(f"/api/games/{g}").content for g in ids]
        assert views[0] == views[1]
        refusals = [{"card": "ZZ"}] + [{"card": x["card"]} for x in json.loads(views[0])["illegal"][:2]]
        assert _answers(c, ids[0], refusals) == _answers(c, ids[1], refusals)
        moved = [c.post(f"/api/games/{g}/actions", json=body) for g in ids]
        assert moved[0].status_code == 200, moved[0].text
        assert moved[0].content == moved[1].content
        answers += 1
    view = json.loads(c.get(f"/api/games/{ids[0]}").content)
    assert answers >= 7 and len(view["tricks"]) >= 6
    assert _answers(c, ids[0]) == _answers(c, ids[1])
    with store.game(ids[0]) as one, store.game(ids[1]) as other:  # the games do differ, in cards not yet shown
        assert one.match.deal.hands != other.match.deal.hands


def test_the_thoughts_shown_name_only_cards_their_agent_has_played():
    c = web_client(GameStore())
    r = c.post("/api/games", json={"rules": "american_hearts", "seed": 3}).json()
    gid, view = r["id"], r["view"]
    chooser = random.Random(4)
    first_shown = {}  # (trick, seat) -> the cards of that thought when the view first showed it
    while not view["over"]:
        played = {}
        for x in [x for t in view["tricks"] for x in t["cards"]] + view["trick"]["cards"]:  # on the table too
            played.setdefault(x["seat"], set()).add(x["card"])
        for t in view["thoughts"]:
            assert t["trick"] <= len(view["tricks"]) and t["seat"] != view["seat"]
            assert t["played"] in t["values"] and set(t["values"]) <= played[t["seat"]]
            first_shown.setdefault((t["trick"], t["seat"]), set(t["values"]))
        view = c.post(f"/api/games/{gid}/actions", json=web_move(view, chooser)).json()
    final = {(t["trick"], t["seat"]): t["values"] for t in view["thoughts"]}
    assert first_shown.keys() <= final.keys() and len(final) == 13 * 3  # every trick, every agent
    assert any(cards < set(final[k]) for k, cards in first_shown.items()), "a thought grew as its agent played on"
    passing = 4 * 3  # the first decisions: every player picks 3 cards to pass
    plays = [t for t in c.get(f"/api/games/{gid}/record").json()["thoughts"] if t["decision"] >= passing]
    assert sorted(map(sorted, (t["values"] for t in plays))) == sorted(map(sorted, final.values()))
