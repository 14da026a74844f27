"""The terminal game under the issue-6 rule systems: extra decisions typed by name, nothing hidden shown."""

from __future__ import annotations

import io

from bm_env.actions import action_str, parse_action
from bm_env.cli.play import Game, build_parser


class Typist:
    """stdin that types, in turn, a legal action of the person's seat (the extra decisions by name)."""

    def __init__(self, lines=(), pick=-1):
        self.lines = list(lines)
        self.pick = pick
        self.game = None
        self.typed = []

    def readline(self):
        if self.lines:
            return self.lines.pop(0) + "\n"
        legal = self.game.env.information_state(self.game.me).legal
        text = action_str(legal[self.pick])
        self.typed.append(text)
        return text + "\n"


def run(argv, typist):
    out = io.StringIO()
    game = Game(build_parser().parse_args(argv), typist, out)
    typist.game = game
    return game.run(), out.getvalue()


def test_turbo_hearts_charges_are_typed_and_announced():
    # pick=0: the first legal action: a charge id comes before "end charging" when one is offered.
    t = Typist(pick=0)
    rc, out = run(["--rules", "turbo_hearts", "--seed", "4"], t)
    assert rc == 0 and "Deal scores:" in out
    assert "ends charging." in out
    assert any(x.startswith("charge ") for x in t.typed) or "end charging" in t.typed
    assert "Your turn to charge; legal:" in out
    # Charges name their card with a suit symbol like every other card on the screen.
    assert "legal: charge " in out and not any(f"charge {c}" in out for c in ("AH", "QS", "JD", "TC"))
    assert any(f"charge {c}" in out for c in ("A♥", "Q♠", "J♦", "10♣"))


def test_cancellation_deal_at_the_terminal():
    rc, out = run(["--rules", "cancellation", "--players", "7", "--seed", "2"], Typist(pick=0))
    assert rc == 0 and "Deal scores:" in out and "takes the kitty" in out


def test_moon_choice_and_pass_on_are_offered_by_name():
    # A partnership deal where the person passes on unseen and answers any moon choice by name.
    t = Typist(lines=["pass on"])
    argv = ["--rules", "partnership_hearts", "--seed", "1"]
    out = io.StringIO()
    parsed = build_parser().parse_args(argv)
    game = Game(parsed, t, out)
    t.game = game
    assert game.env.rules.num_actions == 59  # moon choice ids, no pass-on for this preset
    rc = game.run()
    assert rc == 0 and "Cannot read" not in out.getvalue()
    assert "pass on unseen is not legal now" in out.getvalue()


def test_booster_nines_deal_renders_boosted_tricks():
    rc, out = run(["--rules", "booster_nines", "--seed", "5"], Typist(pick=-1))
    assert rc == 0 and "Deal scores:" in out
    # Some trick went round twice: its "Last trick" line names eight plays.
    assert any(line.startswith("Last trick") and line.count(",") == 7 for line in out.splitlines())
