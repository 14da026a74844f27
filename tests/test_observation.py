"""The observation layout: parts sum to the size, and a vector decodes back to its information state,
under the classic presets and with the parts the extension options add; the layout printer
(``python -m bm_env.env.observation``) refuses bad arguments."""

import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env.engine.cards import cards_of
from bm_env.engine.infostate import information_state
from bm_env.engine.match import Match
from bm_env.env.observation import decode, encode, features, layout, layout_table, offsets, size, size_for
from bm_env.systems.cells import join_number, split_number
from bm_env.env.observation import main as layout_main
from bm_env.engine.rules import MOONS, make_rules

from kit import CLASSIC_COUNTS, EXTENSIONS, extension_rules, play_random_deal

def test_parts_tile_the_vector():
    for n in range(3, 8):
        o = offsets(n)
        cover = np.zeros(size(n), int)
        for name, width in layout(n):
            assert o[name].stop - o[name].start == width
            cover[o[name]] += 1
        assert (cover == 1).all()


@pytest.mark.parametrize("name", sorted(EXTENSIONS))
def test_every_part_of_a_layout_has_its_meaning_in_the_table(name):
    rules = extension_rules(name)
    rows = layout_table(rules.num_players, rules).splitlines()[2:-1]
    parts = [part for part, _ in layout(rules.num_players, features(rules))]
    assert [row.split(" | ")[0].strip("|` ") for row in rows] == parts
    assert all(row.split(" | ")[3].strip("| ") for row in rows)


@given(st.integers(-4000, 4000))
def test_numbers_split_into_int8_cells_and_join_back(v):
    coarse, fine = split_number(v)
    assert -128 <= coarse <= 127 and 0 <= fine < 32
    assert join_number(coarse, fine) == v


@pytest.mark.parametrize("argv, message", [
    (["0"], "0 players: the layout is for 3 to 7 players"),
    (["99"], "99 players: the layout is for 3 to 7 players"),
    (["bridge"], "unknown preset 'bridge'"),
    (["black_maria", "x"], "player count 'x' is not a whole number"),
    (["black_maria", "9"], "preset 'black_maria' is played by [3, 4, 5, 6, 7] players, not 9"),
])
def test_the_layout_printer_refuses_bad_arguments(argv, message, capsys):
    assert layout_main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_layout_printer_as_a_module():
    done = subprocess.run([sys.executable, "-m", "bm_env.env.observation", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "3 to 7 players" in done.stderr
    assert layout_main(["cancellation", "10"]) == 0


def _check_decodes_to(info, n):
    vec = encode(info)
    assert vec.dtype == np.int8 and vec.shape == (size(n),)
    d = decode(vec, n)
    me = info.seat
    rel = lambda s: (s - me) % n  # noqa: E731
    assert d["hand"] == tuple(sorted(info.hand))
    for r in range(1, n):
        assert d[f"passed_to_seat{r}"] == tuple(sorted(c for c, to in info.passed if rel(to) == r))
    assert d["received"] == tuple(sorted(info.received))
    for s in range(n):
        r = rel(s)
        assert d[f"played_by_seat{r}"] == tuple(sorted(c for p, c in info.plays if p == s))
        assert d[f"trick_card_seat{r}"] == tuple(c for p, c in info.current_trick if p == s)
        assert d["points_taken"][r] == info.points_taken[s]
        assert d["match_scores"][r] == info.match_scores[s]
        assert tuple(d["voids"][4 * r: 4 * r + 4]) == tuple(info.voids[s] >> x & 1 for x in range(4))
    assert d["phase"] == ((1, 0) if info.phase == "pass" else (0, 1) if info.phase == "play" else (0, 0))
    assert d["hearts_broken"] == (int(info.hearts_broken),)
    assert d["tricks_played"] == (len(info.tricks),)
    assert d["pass_count"] == (info.pass_count,)
    assert d["dealer"].index(1) == rel(info.dealer)
    assert d["deals_played"] == info.deals_played
    assert d["card_values"] == info.rules.card_values
    assert d["moon"].index(1) == MOONS.index(info.rules.moon)
    if info.current_trick:
        assert d["trick_leader"].index(1) == rel(info.current_trick[0][0])
        assert d["led_suit"].index(1) == info.led_suit
    else:
        assert sum(d["led_suit"]) == 0


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CLASSIC_COUNTS), st.integers(0, 2**32 - 1))
def test_vector_decodes_back_to_the_information_state(preset_count, seed):
    rules = make_rules(*preset_count)
    n = rules.num_players
    chooser = random.Random(seed)
    m = Match(rules, seed)
    stop_deal = chooser.randrange(3)
    for _ in range(5000):
        if m.is_over:
            break
        for seat in range(n):
            info = information_state(m.deal, seat, m.totals, m.deals_played)
            if chooser.random() < 0.05:
                _check_decodes_to(info, n)
        if len(m.completed) > stop_deal:
            break
        legal = cards_of(m.deal.legal)
        m.step(legal[chooser.randrange(len(legal))])


def test_received_cards_are_invisible_until_every_player_has_passed():
    rules = make_rules("black_maria")
    m = Match(rules, 7, first_dealer=0)
    deal = m.deal
    receiver_vectors = []
    while deal.phase == "pass":
        receiver_vectors.append(encode(information_state(deal, 2, m.totals)))
        m.step(cards_of(deal.legal)[-1])
    o = offsets(3)
    # Seat 1 passes right, to seat 0; seat 2's view never shows what it will receive while passing.
    for v in receiver_vectors:
        assert not v[o["received"]].any()
    after = encode(information_state(deal, 2, m.totals))
    assert after[o["received"]].sum() == 3


# ---------------------------------------------------------------------------- the extension options

NAMES = list(EXTENSIONS)


def test_classic_presets_keep_their_action_space_and_observation_size():
    for preset, n in CLASSIC_COUNTS:
        r = make_rules(preset, n)
        assert r.num_actions == 52 and size_for(r) == size(n)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_extension_vector_decodes_back_to_the_information_state(name, seed):
    rules = extension_rules(name)
    n = rules.num_players
    m = Match(rules, seed)
    chooser = random.Random(seed)

    def check(deal):
        if chooser.random() > 0.1:
            return
        seat = chooser.randrange(n)
        info = information_state(deal, seat, m.totals, m.deals_played)
        vec = encode(info)
        assert vec.shape == (size_for(rules),) and vec.dtype == np.int8
        d = decode(vec, n, rules)
        rel = lambda s: (s - seat) % n  # noqa: E731
        assert d["hand"] == tuple(sorted(info.hand))
        for s in range(n):
            r = rel(s)
            assert d[f"played_by_seat{r}"] == tuple(sorted(c for p, c in info.plays if p == s))
            assert d[f"trick_card_seat{r}"] == tuple(sorted(c for p, c in info.current_trick if p == s))
        assert d["received"] == tuple(sorted(info.received))
        assert d["extra_phase"] == tuple(int(info.phase == ph) for ph in ("charge", "discard", "moon"))
        if rules.kitty != "none":
            assert d["kitty_size"] == (info.kitty_size,)
            assert d["kitty_cards"] == tuple(sorted(info.kitty))
        if rules.decks == 2:
            assert d["pending_trick_cards"] == tuple(sorted(info.pending))
        if rules.charging:
            for s in range(n):
                charged = d["charged"][4 * rel(s): 4 * rel(s) + 4]
                assert sum(charged) == len(info.charged[s])
        if rules.teams != "none":
            assert d["partner"].index(1) == 2

    play_random_deal(m, chooser, check)
