"""Action ids: the 52 card ids, then the extra decisions (charges, moon choices, passing on), as text and back."""

from __future__ import annotations

import pytest

from bm_env.engine.actions import (
    CHARGE_AH, CHARGE_DONE, CHARGE_QS, MAX_ACTIONS, MOON_ADD, MOON_SUBTRACT, PASS_ON, action_str, parse_action,
)


def test_extra_action_ids_follow_the_cards_in_one_fixed_order():
    assert (CHARGE_AH, CHARGE_QS, CHARGE_DONE, MOON_SUBTRACT, MOON_ADD, PASS_ON) == (52, 53, 56, 57, 58, 59)
    assert MAX_ACTIONS == 60
    assert [action_str(a) for a in range(52, 60)] == [
        "charge AH", "charge QS", "charge JD", "charge TC", "end charging", "moon: subtract",
        "moon: add to others", "pass on unseen"]
    with pytest.raises(ValueError, match="action id must be in 0..59, got 60"):
        action_str(60)
    with pytest.raises(ValueError, match="cannot charge 'ks'; chargeable: AH, QS, JD, TC"):
        parse_action("charge ks")


def test_short_forms_of_the_extra_decisions():
    assert [action_str(parse_action(x)) for x in ("charge qs", "end", "subtract", "add", "pass on", "10h")] == [
        "charge QS", "end charging", "moon: subtract", "moon: add to others", "pass on unseen", "TH"]


def test_every_action_id_reads_back_from_its_text():
    for a in range(60):
        assert parse_action(action_str(a)) == a
