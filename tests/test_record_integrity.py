"""A record must agree with itself in every field, and a broken file is a RecordError naming the field."""

import json
import os
import stat

import pytest

from bm_env.engine.record import (RecordError, deal_record, load_record, match_record, replay_deal, replay_match,
                                  write_record)
from bm_env.engine.rules import make_rules

from kit import random_match


def _match_record(preset="black_maria", seed=3):
    return json.loads(json.dumps(match_record(random_match(make_rules(preset), seed))))


def _fails(rec, pattern, replay=replay_match):
    with pytest.raises(RecordError, match=pattern) as e:
        replay(rec)
    return str(e.value)


def test_tampered_winners_are_rejected():
    rec = _match_record()
    right = rec["winners"]
    rec["winners"] = [s for s in range(3) if s not in right][:1]
    msg = _fails(rec, r"^winners: recorded player_\d, the deals give player_\d")
    assert f"player_{right[0]}" in msg
    rec["winners"] = None
    _fails(rec, r"winners: recorded none \(match not over\), the deals give player_")


def test_tampered_totals_before_and_deal_count_are_rejected():
    rec = _match_record()
    rec["deals"][2]["totals_before"][1] += 5
    _fails(rec, r"^deals\[2\]: totals_before \[.*\], but the match totals were \[")
    rec = _match_record()
    rec["deals"][1]["deals_before"] = 0
    _fails(rec, r"^deals\[1\]: deals_before 0, but 1 deal\(s\) had counted")


def test_a_deal_under_other_rules_than_the_match_is_rejected():
    rec = _match_record()
    rec["deals"][4]["rules"]["match_deals"] = 5  # changes nothing inside the deal itself
    _fails(rec, r"^deals\[4\]: its rules differ from the match's; differing options \(deal, match\): "
                r"\{'match_deals': \(5, 9\)\}")


def test_a_moved_deal_and_a_wrong_first_dealer_are_rejected():
    rec = _match_record()
    rec["deals"][1], rec["deals"][2] = rec["deals"][2], rec["deals"][1]
    _fails(rec, r"^deals\[1\]: ")
    rec = _match_record()
    rec["first_dealer"] = (rec["first_dealer"] + 1) % 3
    _fails(rec, r"^deals\[0\]: dealer player_\d, but the deal moves to player_\d")
    rec["first_dealer"] = 7
    _fails(rec, r"^first_dealer: 7 is not a seat in 0..2")
    rec = _match_record()
    rec["deals"].append(rec["deals"][-1])
    _fails(rec, r"^deals\[9\]: the match was over after 9 deal\(s\)")


def test_null_fields_name_the_field():
    rec = _match_record()
    rec["deals"] = None
    _fails(rec, r"^record: field 'deals' must be a list, got null$")
    rec = _match_record()
    rec["deals"][0]["tricks"] = None
    _fails(rec, r"^deals\[0\]: record: field 'tricks' must be a list, got null$")
    deal = _match_record()["deals"][0]
    for field in ("hands", "passes", "seats", "totals_before"):
        broken = {**deal, field: None}
        _fails(broken, rf"field '{field}' must be a list, got null", replay_deal)
    _fails({**deal, "tricks": [None]}, r"^tricks\[0\]: expected an object with field 'leader', got null$", replay_deal)
    _fails({**deal, "deals_before": "two"}, r"^deals_before must be a whole number, got the string 'two'$", replay_deal)
    _fails({**deal, "scores": None}, r"^scores: recorded as null, but the deal is finished", replay_deal)
    _fails({**deal, "rules": None}, r"^record rules: rules must be given as a mapping", replay_deal)


def test_a_player_name_in_place_of_a_seat_is_not_doubled():
    deal = _match_record()["deals"][0]
    deal["tricks"][0]["winner"] = "player_0"
    msg = _fails(deal, r"tricks\[0\]: winner recorded as 'player_0', the rules give player_\d$", replay_deal)
    assert "player_player" not in msg


def test_a_renege_without_its_card_is_named_once():
    deal = _match_record()["deals"][0]
    deal["renege"] = {"seat": 0, "phase": "charge"}
    msg = _fails(deal, r"^renege: missing field 'card'$", replay_deal)
    assert msg.count("renege") == 1


def test_binary_and_non_object_files_are_record_errors(tmp_path):
    binary = tmp_path / "game.json"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(RecordError, match=r"game.json: not a text file \(a game record is UTF-8 JSON\)"):
        load_record(binary)
    binary.write_text("[1, 2]")
    with pytest.raises(RecordError, match=r"a game record is a JSON object, got a list"):
        load_record(binary)


def test_writing_into_a_directory_is_refused_and_leaves_nothing_behind(tmp_path):
    m = random_match(make_rules("black_maria"), 1)
    with pytest.raises(IsADirectoryError, match="is a directory; give a file name"):
        write_record(tmp_path, m)
    assert list(tmp_path.iterdir()) == []


def test_records_get_the_ordinary_umask_permissions(tmp_path):
    m = random_match(make_rules("black_maria"), 1)
    old = os.umask(0o022)
    try:
        path = write_record(tmp_path / "g.json", m)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]
    assert replay_match(load_record(path))[-1].scores == m.completed[-1].scores


def test_every_deal_record_of_a_tie_break_match_still_replays():
    m = random_match(make_rules("slippery_anne", 3), 1800)  # ends in a tie-break deal among all three
    rec = json.loads(json.dumps(match_record(m)))
    assert [deal_record(d) for d in replay_match(rec)] == rec["deals"]


def test_a_renege_entry_on_a_deal_that_ended_normally_is_rejected():
    rec = _match_record()
    deal = rec["deals"][0]
    first = deal["tricks"][0]
    deal["renege"] = {"seat": first["leader"], "card": first["cards"][0], "phase": "play"}
    _fails(rec, r"^deals\[0\]: renege: recorded \(player_\d plays '..'\), but every recorded decision is legal: "
                r"the deal has no renege")


def test_unknown_fields_are_rejected_however_large():
    rec = _match_record()
    rec["deals"][1]["comment"] = "x" * 30_000_000
    msg = _fails(rec, r"^deals\[1\]: record: unknown field\(s\) 'comment'; a record of these rules has \['format'")
    assert len(msg) < 400
    rec = _match_record()
    rec["producer"] = "elsewhere"
    _fails(rec, r"^record: unknown field\(s\) 'producer'")
    rec = _match_record()
    rec["deals"][0]["tricks"][2]["note"] = 1
    _fails(rec, r"^deals\[0\]: tricks\[2\]: unknown field\(s\) 'note'")
    rec = _match_record()
    rec["deals"][0]["kitty"] = []  # a field of the kitty rules, under rules without a kitty
    _fails(rec, r"^deals\[0\]: record: unknown field\(s\) 'kitty'")


@pytest.mark.parametrize("text, words", [
    ('{"format": NaN}', "NaN is not a JSON number"),
    ('{"totals": [Infinity]}', "Infinity is not a JSON number"),
    ('{"x": -Infinity}', "-Infinity is not a JSON number"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply to be a game record"),
])
def test_files_python_would_read_but_json_does_not_allow_are_rejected(text, words, tmp_path):
    path = tmp_path / "g.json"
    path.write_text(text)
    with pytest.raises(RecordError, match=f"^{path}: .*{words}"):
        load_record(path)
