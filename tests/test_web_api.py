"""The web table's JSON API on its own (Starlette's TestClient, in process): whole games, matches,
interleaved games, a restart from the data folder, and every kind of bad request.

Needs the ``web`` extra; CI installs it in the browser step and runs these there.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from bm_env.engine.record import replay_deal, replay_match  # noqa: E402
from bm_env.web import GameStore  # noqa: E402
from bm_env.web.store import ID_PATTERN  # noqa: E402
from kit import web_client as client  # noqa: E402
from kit import web_move  # noqa: E402


def play_out(c, gid: str, view: dict, chooser: random.Random, limit: int = 400) -> dict:
    """Play the person's moves with ``chooser`` until the game is over; the last view."""
    for _ in range(limit):
        if view["over"]:
            return view
        r = c.post(f"/api/games/{gid}/actions", json=web_move(view, chooser))
        assert r.status_code == 200, r.text
        view = r.json()
    raise AssertionError(f"game {gid} not over after {limit} moves")


def test_a_deal_against_the_shipped_agent_to_its_end():
    c = client(GameStore())
    r = c.post("/api/games", json={"rules": "black_maria", "seed": 11})
    assert r.status_code == 201
    gid, view = r.json()["id"], r.json()["view"]
    assert ID_PATTERN.fullmatch(gid)
    assert view["phase"] == "pass" and view["your_turn"] and view["pass"]["to_pick"] == 3
    assert len(view["hand"]) == 17 and sorted(view["legal"]) == sorted(view["hand"])
    assert all(spec == "policy:black_maria_3p" for spec in view["opponents"].values())
    assert c.get(f"/api/games/{gid}").json() == view
    hint = c.get(f"/api/games/{gid}/hint").json()
    assert hint["kind"] == "probability" and set(hint["values"]) == set(view["legal"])
    assert abs(sum(hint["values"].values()) - 1) < 1e-3
    view = play_out(c, gid, view, random.Random(1))
    rec = c.get(f"/api/games/{gid}/record")
    assert rec.status_code == 200 and "attachment" in rec.headers["content-disposition"]
    deal = replay_deal(rec.json())
    assert list(deal.scores) == view["deal_scores"] == view["match_totals"]
    assert rec.json()["thoughts"], "the shipped agents' thoughts are in the record"
    assert sum(view["points_taken"]) == 43  # the British scheme: every point of the deck taken
    assert view["thoughts"] and all(t["seat"] != 0 for t in view["thoughts"])
    assert c.get(f"/api/games/{gid}/replay").text.startswith("<!DOCTYPE html>")


def test_a_match_keeps_totals_and_shows_the_previous_deal():
    c = client(GameStore())
    body = {"rules": "black_maria", "match": True, "options": {"match_deals": 2}, "opponents": "heuristic", "seed": 4}
    r = c.post("/api/games", json=body).json()
    gid, view = r["id"], r["view"]
    assert view["episode"] == "match" and view["previous"] is None and not view["hint"]
    chooser = random.Random(2)
    while view["deal"] == 1:
        view = c.post(f"/api/games/{gid}/actions", json=web_move(view, chooser)).json()
    first = view["previous"]
    assert first["number"] == 1 and len(first["last_trick"]["cards"]) == 3
    assert view["match_totals"] == [first["scores"][str(s)] for s in range(3)]
    view = play_out(c, gid, view, chooser)
    assert view["winners"] and view["deals_played"] == 2
    deals = replay_match(c.get(f"/api/games/{gid}/record").json())
    counted = deals[:2]  # any deal after these is a tie-break among the tied players, outside the totals
    assert [sum(d.scores[s] for d in counted) for s in range(3)] == view["match_totals"]


@pytest.mark.parametrize("preset,players", [("american_hearts", 4), ("turbo_hearts", 4), ("cancellation", 6),
                                            ("domino_hearts", 4)])
def test_other_presets_play_through(preset, players):
    """Charging (action ids), two decks, a kitty and a stock go through the same API."""
    c = client(GameStore())
    r = c.post("/api/games", json={"rules": preset, "players": players, "opponents": "heuristic", "seed": 5}).json()
    view = play_out(c, r["id"], r["view"], random.Random(3))
    assert view["deal_scores"] is not None
    replay_deal(c.get(f"/api/games/{r['id']}/record").json())


def test_interleaved_games_do_not_touch_each_other():
    """Three games moved in turn end exactly as each does when played alone."""
    bodies = [{"rules": "black_maria", "opponents": "heuristic", "seed": 21},
              {"rules": "american_hearts", "opponents": ["random", "heuristic", "random"], "seed": 22},
              {"rules": "black_maria", "players": 4, "seat": 2, "opponents": "random", "seed": 23}]

    def alone(body, k):
        c = client(GameStore())
        r = c.post("/api/games", json=body).json()
        play_out(c, r["id"], r["view"], random.Random(k))
        return c.get(f"/api/games/{r['id']}/record").json()

    expected = [alone(b, k) for k, b in enumerate(bodies)]
    c = client(GameStore())
    games = [c.post("/api/games", json=b).json() for b in bodies]
    ids = [g["id"] for g in games]
    assert len(set(ids)) == 3
    views = [g["view"] for g in games]
    choosers = [random.Random(k) for k in range(3)]
    while not all(v["over"] for v in views):
        for k in range(3):
            if not views[k]["over"]:
                views[k] = c.post(f"/api/games/{ids[k]}/actions", json=web_move(views[k], choosers[k])).json()
    assert [c.get(f"/api/games/{g}/record").json() for g in ids] == expected


def test_a_restart_with_the_same_data_continues_every_game(tmp_path):
    c = client(GameStore(tmp_path))
    chooser = random.Random(5)
    made = [c.post("/api/games", json={"rules": rules, "match": match, "opponents": "heuristic", "seed": s}).json()
            for rules, match, s in (("black_maria", True, 1), ("american_hearts", False, 2), ("black_maria", False, 3))]
    ids = [m["id"] for m in made]
    views = [m["view"] for m in made]
    for _ in range(7):  # part way into the first two games
        for k in (0, 1):
            views[k] = c.post(f"/api/games/{ids[k]}/actions", json=web_move(views[k], chooser)).json()
    views[2] = play_out(c, ids[2], views[2], chooser)
    before = {g: c.get(f"/api/games/{g}").content for g in ids}
    finished = c.get(f"/api/games/{ids[2]}/record").content
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == sorted(ids)

    c = client(GameStore(tmp_path))  # a new server on the same folder
    assert {g: c.get(f"/api/games/{g}").content for g in ids} == before
    assert c.get(f"/api/games/{ids[2]}/record").content == finished
    for k in (0, 1):
        views[k] = play_out(c, ids[k], json.loads(before[ids[k]]), chooser)
    rec = c.get(f"/api/games/{ids[0]}/record").json()
    replay_match(rec)
    assert rec["winners"] == views[0]["winners"]
    replay_deal(c.get(f"/api/games/{ids[1]}/record").json())


def test_a_data_folder_with_a_broken_game_is_refused(tmp_path):
    c = client(GameStore(tmp_path))
    gid = c.post("/api/games", json={"opponents": "heuristic", "seed": 1}).json()["id"]
    path = tmp_path / f"{gid}.json"
    saved = json.loads(path.read_text())
    saved["record"]["hands"][0][0] = saved["record"]["hands"][1][0]  # a card twice
    path.write_text(json.dumps(saved))
    from bm_env.web.store import StoreError

    with pytest.raises(StoreError, match=gid):
        GameStore(tmp_path)


@pytest.fixture()
def game_in_play(tmp_path):
    """A black_maria game past the pass, the person to play, with the saved file's path."""
    store = GameStore(tmp_path)
    c = client(store)
    r = c.post("/api/games", json={"opponents": "heuristic", "seed": 8}).json()
    gid, view = r["id"], r["view"]
    chooser = random.Random(0)
    view = c.post(f"/api/games/{gid}/actions", json=web_move(view, chooser)).json()
    while not view["illegal"]:  # a decision where some card of the hand is not legal
        view = c.post(f"/api/games/{gid}/actions", json=web_move(view, chooser)).json()
    return c, gid, view, tmp_path / f"{gid}.json"


def _not_held(view):
    held = set(view["hand"])
    return next(r + s for s in "SHDC" for r in "23456789TJQKA" if r + s not in held)


BAD_MOVES = [
    # (what, body or raw bytes, status, words in the reason)
    ("illegal card", lambda v: {"card": v["illegal"][0]["card"]}, 422, "may not play"),
    ("card not in hand", lambda v: {"card": _not_held(v)}, 422, "not in your hand"),
    ("unreadable card", lambda v: {"card": "ZZ"}, 400, "cannot read"),
    ("card of the wrong type", lambda v: {"card": 12}, 400, "must be a card"),
    ("action id out of range", lambda v: {"action": 99}, 400, "action id"),
    ("action as a boolean", lambda v: {"action": True}, 400, "action id"),
    ("several cards outside passing", lambda v: {"cards": v["legal"][:2] or ["2C", "3C"]}, 422, "several cards"),
    ("an empty list", lambda v: {"cards": []}, 400, "non-empty"),
    ("two keys", lambda v: {"card": "QS", "cards": ["QS"]}, 400, "a move is one of"),
    ("unknown key", lambda v: {"play": "QS"}, 400, "a move is one of"),
    ("not an object", lambda v: b'["QS"]', 400, "JSON object"),
    ("broken JSON", lambda v: b'{"card": ', 400, "JSON object"),
    ("NaN", lambda v: b'{"action": NaN}', 400, "NaN"),
    ("not UTF-8", lambda v: b'\xff\xfe', 400, "JSON object"),
    ("a huge body", lambda v: json.dumps({"card": "QS" + " " * 100_000}).encode(), 413, "at most"),
]


@pytest.mark.parametrize("what,make,status,words", BAD_MOVES, ids=[m[0] for m in BAD_MOVES])
def test_a_bad_move_is_refused_and_changes_nothing(game_in_play, what, make, status, words):
    c, gid, view, path = game_in_play
    before, saved = c.get(f"/api/games/{gid}").content, path.read_bytes()
    body = make(view)
    r = (c.post(f"/api/games/{gid}/actions", content=body) if isinstance(body, bytes)
         else c.post(f"/api/games/{gid}/actions", json=body))
    assert r.status_code == status, r.text
    reason = r.json()["error"]
    assert words in reason and "\n" not in reason
    assert c.get(f"/api/games/{gid}").content == before and path.read_bytes() == saved


def test_the_illegal_card_reason_is_the_views(game_in_play):
    c, gid, view, _ = game_in_play
    wrong = view["illegal"][0]
    assert c.post(f"/api/games/{gid}/actions", json={"card": wrong["card"]}).json()["error"] == \
        f"you may not play {wrong['card']}: {wrong['reason']}"


def test_bad_passes_are_refused_whole():
    c = client(GameStore())
    r = c.post("/api/games", json={"opponents": "heuristic", "seed": 3}).json()
    gid, view = r["id"], r["view"]
    before = c.get(f"/api/games/{gid}").content
    a, b = view["legal"][:2]
    for body, words in (({"cards": [a, b]}, "pass 3 card(s)"), ({"cards": [a, a, b]}, "twice"),
                        ({"cards": [a, b, _not_held(view)]}, "not in your hand")):
        r = c.post(f"/api/games/{gid}/actions", json=body)
        assert r.status_code == 422 and words in r.json()["error"], r.text
        assert c.get(f"/api/games/{gid}").content == before
    one = c.post(f"/api/games/{gid}/actions", json={"card": a}).json()  # one pick at a time is a pass too
    assert one["pass"]["to_pick"] == 2 and one["pass"]["passed"][0]["card"] == a and a not in one["hand"]


def test_requests_out_of_turn_or_for_no_game():
    c = client(GameStore())
    r = c.post("/api/games", json={"opponents": "heuristic", "seed": 6}).json()
    gid = r["id"]
    assert c.get(f"/api/games/{gid}/record").status_code == 409
    view = play_out(c, gid, r["view"], random.Random(0))
    done = c.get(f"/api/games/{gid}").content
    for r in (c.post(f"/api/games/{gid}/actions", json={"card": "QS"}), c.get(f"/api/games/{gid}/hint")):
        assert r.status_code == 409 and "\n" not in r.json()["error"]
    assert c.get(f"/api/games/{gid}").content == done and view["over"]
    near = gid[:-1] + ("A" if gid[-1] != "A" else "B")
    for r in (c.get(f"/api/games/{near}"), c.post(f"/api/games/{near}/actions", json={"card": "QS"}),
              c.get(f"/api/games/{near}/record"), c.get("/api/nowhere")):
        assert r.status_code == 404 and r.json()["error"]
    assert c.delete(f"/api/games/{gid}").status_code == 405


BAD_SETUPS = [
    ({"rules": "bridge"}, "not a preset"),
    ({"players": 9}, "played by"),
    ({"players": True}, "played by"),
    ({"seat": 3}, "seat must be"),
    ({"seat": -1}, "seat must be"),
    ({"seed": 1.5}, "seed must be"),
    ({"seed": True}, "seed must be"),
    ({"match": "yes"}, "match must be"),
    ({"opponents": "chess_engine"}, "opponents"),
    ({"opponents": ["random"]}, "a list of 2"),
    ({"options": {"pass_count": "three"}}, "options"),
    ({"options": {"no_such_rule": 1}}, "options"),
    ({"colour": "red"}, "unknown field"),
]


@pytest.mark.parametrize("body,words", BAD_SETUPS, ids=[json.dumps(b) for b, _ in BAD_SETUPS])
def test_a_bad_new_game_is_refused(body, words):
    store = GameStore()
    r = client(store).post("/api/games", json=body)
    assert r.status_code == 400 and words in r.json()["error"] and "\n" not in r.json()["error"], r.text
    assert len(store) == 0


def test_presets_list_says_where_an_agent_ships():
    presets = {p["name"]: p for p in client(GameStore()).get("/api/presets").json()}
    assert presets["black_maria"]["shipped"] == [3] and presets["american_hearts"]["shipped"] == [4]
    assert presets["turbo_hearts"]["shipped"] == []


def test_bm_play_web_says_where_it_listens_and_binds_loopback(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "bm_env.cli.play", "--web", "--port", "0", "--data", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line and "this machine only" in line and str(tmp_path) in line, line
        import httpx

        url = line.split()[5]
        assert httpx.get(url + "api/presets", timeout=30).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize("argv,words", [(["--web", "--preset", "omnibus"], "--preset"),
                                        (["--port", "8000"], "--port goes with --web"),
                                        (["--web", "--port", "70000"], "0..65535")])
def test_bm_play_web_refuses_options_it_does_not_take(argv, words, capsys):
    from bm_env.cli.play import main

    with pytest.raises(SystemExit):
        main(argv)
    assert words in capsys.readouterr().err
