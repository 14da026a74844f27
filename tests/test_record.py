"""Game records: every deal and match replays to itself; a broken record is rejected where it breaks."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bm_env.engine.cards import cards_of
from bm_env.engine.deal import DISCARD
from bm_env.engine.match import Match
from bm_env.engine.record import (
    RecordError, deal_record, load_record, match_record, replay_deal, replay_match, write_record,
)
from bm_env.engine.rules import make_rules

from kit import PRESET_COUNTS, random_match


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PRESET_COUNTS), st.integers(0, 2**32 - 1))
def test_match_record_replays_to_itself(preset_count, seed):
    m = random_match(make_rules(*preset_count), seed)
    rec = json.loads(json.dumps(match_record(m)))  # through JSON, as on disk
    replayed = replay_match(rec)
    assert [d.scores for d in replayed] == [d.scores for d in m.completed]
    assert [d.tricks for d in replayed] == [d.tricks for d in m.completed]
    assert [deal_record(d) for d in replayed] == rec["deals"]


def test_write_and_load_round_trip(tmp_path):
    m = random_match(make_rules("american_hearts"), 3)
    path = write_record(tmp_path / "game.json", m)
    assert replay_match(load_record(path))[-1].scores == m.completed[-1].scores
    assert not list(tmp_path.glob("*.tmp"))  # the atomic write leaves no temporary file behind


def _first_deal_record(seed=11):
    return deal_record(random_match(make_rules("black_maria"), seed).completed[0])


def test_card_played_twice_is_rejected_at_its_place():
    rec = _first_deal_record()
    first = rec["tricks"][0]["cards"][0]
    rec["tricks"][1]["cards"][0] = first  # a card already played in trick 0
    with pytest.raises(RecordError, match=r"tricks\[1\]\.cards\[0\]"):
        replay_deal(rec)


def test_illegal_play_is_rejected_with_the_legal_cards():
    rec = _first_deal_record()
    # Find a trick where the second player followed suit and make them discard instead.
    for t, trick in enumerate(rec["tricks"]):
        lead, second = trick["cards"][0], trick["cards"][1]
        if lead[-1] == second[-1]:
            player = (trick["leader"] + 1) % 3
            # a card of another suit the second player still held at that point
            later = [c for tr in rec["tricks"][t + 1:] for i, c in enumerate(tr["cards"])
                     if (tr["leader"] + i) % 3 == player and c[-1] != lead[-1]]
            if later:
                trick["cards"][1] = later[0]
                with pytest.raises(RecordError, match=rf"tricks\[{t}\]\.cards\[1\].*may not play.*legal:"):
                    replay_deal(rec)
                return
    pytest.fail("no suitable trick in this deal; pick another seed")


def test_wrong_scores_and_wrong_winner_are_rejected():
    rec = _first_deal_record()
    rec["scores"][0] += 1
    with pytest.raises(RecordError, match=r"scores: recorded"):
        replay_deal(rec)
    rec = _first_deal_record()
    rec["tricks"][2]["winner"] = (rec["tricks"][2]["winner"] + 1) % 3
    with pytest.raises(RecordError, match=r"tricks\[2\]: winner recorded as player_"):
        replay_deal(rec)


def test_malformed_records_are_rejected():
    rec = _first_deal_record()
    del rec["hands"]
    with pytest.raises(RecordError, match="missing field 'hands'"):
        replay_deal(rec)
    rec = _first_deal_record()
    rec["hands"][0][0] = rec["hands"][1][0]
    with pytest.raises(RecordError, match="dealt twice"):
        replay_deal(rec)
    rec = _first_deal_record()
    rec["rules"]["moon"] = "sometimes"
    with pytest.raises(RecordError, match="moon"):
        replay_deal(rec)
    rec = _first_deal_record()
    rec["passes"][0] = rec["passes"][0][:2]
    with pytest.raises(RecordError, match=r"passes\[0\]"):
        replay_deal(rec)


def test_renege_record_replays_with_the_penalty():
    m = Match(make_rules("black_maria"), 4, first_dealer=0, on_illegal="renege_penalty")
    while m.deal.phase == "pass":
        m.step(cards_of(m.deal.legal)[0])
    deal = m.deal
    hand = deal.hands[deal.to_act]
    illegal = cards_of(hand & ~deal.legal)
    assert illegal, "the eldest holds hearts that may not be led yet in this seeded deal"
    offender = deal.current_seat
    m.step(illegal[0])
    done = m.completed[0]
    assert done.scores[offender] == 43 and sum(done.scores) == 43
    rec = json.loads(json.dumps(deal_record(done)))
    assert rec["renege"]["seat"] == offender
    assert replay_deal(rec).scores == done.scores


def test_tie_break_deal_among_all_tied_players_does_not_count_in_the_totals():
    # slippery_anne, 3 players, seed 1800 ends 39-39-39 after nine deals: the tie-break deal seats
    # all three players again, and must not be added to the totals when the record replays.
    m = random_match(make_rules("slippery_anne", 3), 1800)
    assert m.totals == [39, 39, 39] and len(m.completed) > m.deals_played
    replay_match(json.loads(json.dumps(match_record(m))))


@pytest.mark.parametrize("preset, steps", [("black_maria", 0), ("black_maria", 4), ("american_hearts", 7),
                                           ("black_maria", 9 + 5)])
def test_a_deal_left_part_way_replays_to_where_it_stopped(preset, steps, tmp_path):
    """A game quit during passing (or a few cards into play) keeps a record that replays up to that point."""
    from bm_env.pictures import write_replay

    rules = make_rules(preset)
    m = Match(rules, 4)
    chooser = random.Random(4)
    for _ in range(steps):
        legal = cards_of(m.deal.legal)
        m.step(legal[chooser.randrange(len(legal))])
    rec = json.loads(json.dumps(deal_record(m.deal)))
    assert rec["scores"] is None
    replayed = replay_deal(rec)
    assert replayed.phase == m.deal.phase and replayed.to_act == m.deal.to_act
    assert replayed.pass_picks == m.deal.pass_picks and replayed.tricks == m.deal.tricks
    assert deal_record(replayed) == rec
    write_replay(tmp_path / "left.html", rec)
    assert "player_" in (tmp_path / "left.html").read_text(encoding="utf-8")


def test_a_deal_left_among_the_kitty_discards_replays_to_where_it_stopped():
    """Quit after the first of the kitty taker's two discards: the record replays to that point; the
    same record claiming the deal's scores is refused, a discard short."""
    rules = make_rules("american_hearts", 5, kitty="first_trick", kitty_to_hand=True)
    m = Match(rules, 2)
    chooser = random.Random(2)
    while not (m.deal.phase == DISCARD and m.deal.kitty_discards):
        legal = cards_of(m.deal.legal)
        m.step(legal[chooser.randrange(len(legal))])
    assert m.deal.discards_left == 1
    rec = json.loads(json.dumps(deal_record(m.deal)))
    replayed = replay_deal(rec)
    assert replayed.phase == DISCARD and replayed.kitty_discards == m.deal.kitty_discards
    assert deal_record(replayed) == rec
    rec["scores"] = [0] * 5
    with pytest.raises(RecordError, match=r"^kitty_discards: 1 recorded, the kitty taker discards 2"):
        replay_deal(rec)


def test_an_unfinished_record_with_tricks_after_incomplete_passes_is_rejected():
    rec = _first_deal_record()
    rec["scores"] = None
    rec["passes"][1] = rec["passes"][1][:1]
    with pytest.raises(RecordError, match=r"^tricks: 17 recorded, but the recorded passes stop before every player"):
        replay_deal(rec)
