"""bm-play, the terminal game (bm_env/cli/play.py), driven by scripted input; under the extension options
the extra decisions are typed by name."""

import io
import json

import pytest

from bm_env.engine.actions import action_str
from bm_env.engine.cards import card_pretty, card_str
from bm_env.cli.play import Game, build_parser, main, suits_printable
from bm_env.engine.explain import why_illegal

from kit import Script, play_at_terminal


def test_a_whole_deal_with_bad_input_re_asked():
    rc, out = play_at_terminal(["--seed", "3"], Script(["help", "zz", "", "11h", "save"]))
    assert rc == 0
    assert "Commands: help" in out
    assert "Cannot read 'zz'" in out and "Cannot read '11h'" in out
    assert "Type a card" in out
    assert "Give a file name" in out
    assert "wins the trick" in out and "Deal scores:" in out and "End of the deal." in out
    assert "Every player has passed. You received:" in out
    assert out.count("You put") == 3


def test_illegal_card_is_refused_with_the_reason_and_the_legal_cards():
    script = Script([])
    out = io.StringIO()
    game = Game(build_parser().parse_args(["--seed", "1", "--opponents", "random"]), script, out)
    script.game = game
    env = game.env
    env.reset(seed=1)
    while True:  # on to a trick where player_0 holds a card it may not play
        info = env.information_state(env.agent_selection)
        if env.agent_selection == game.me and info.phase == "play" and set(info.hand) - set(info.legal):
            break
        env.step(info.legal[0])
    info = env.information_state(game.me)
    held_illegal = sorted(set(info.hand) - set(info.legal))[0]
    not_mine = next(c for c in range(52) if c not in info.hand)
    script.lines = [card_str(held_illegal), card_str(not_mine), "quit"]
    assert game.ask() is None
    text = out.getvalue()
    reason = why_illegal(env.match.deal, held_illegal, card_pretty)
    assert reason.startswith(("you must follow the suit led", "hearts are not broken", "the first lead may not"))
    legal = ", ".join(card_pretty(c) for c in info.legal)
    assert f"{card_pretty(held_illegal)} is not legal now: {reason}. Legal: {legal}" in text
    assert f"{card_pretty(not_mine)} is not legal now: it is not in your hand. Legal: {legal}" in text


def test_quit_and_end_of_input_abandon_cleanly(tmp_path):
    rc, out = play_at_terminal(["--seed", "2"], Script(["quit"]))
    assert rc == 0 and "Game abandoned." in out
    path = tmp_path / "g.json"
    rc, out = play_at_terminal(["--seed", "2", "--record", str(path)], Script([], stop_after=2))
    assert rc == 0 and "Game abandoned." in out
    assert json.loads(path.read_text())["deals"]


class CtrlC:
    """stdin of a person who presses Ctrl-C at the first prompt."""

    def readline(self):
        raise KeyboardInterrupt


def test_ctrl_c_writes_the_record_as_quit_does(tmp_path):
    path = tmp_path / "g.json"
    out = io.StringIO()
    assert main(["--seed", "2", "--record", str(path)], CtrlC(), out) == 130
    assert "Game abandoned." in out.getvalue() and f"Game record saved to {path}" in out.getvalue()
    assert json.loads(path.read_text())["deals"][0]["scores"] is None  # the deal as far as it went


def test_save_asks_before_overwriting_a_file_that_is_not_this_games_record(tmp_path):
    other = tmp_path / "notes.json"
    other.write_text("keep me")
    rc, out = play_at_terminal(["--seed", "2"], Script([f"save {other}", "no", "quit"]))
    assert rc == 0 and f"{other} exists and is not this game's record: overwrite it? (yes/no)" in out
    assert f"Not saved: {other} is left as it was." in out and other.read_text() == "keep me"
    rc, out = play_at_terminal(["--seed", "2"], Script([f"save {other}", "yes", f"save {other}", "quit"]))
    assert out.count("overwrite it?") == 1 and out.count(f"Game record saved to {other}") == 2  # then it is its own
    assert json.loads(other.read_text())["deals"]


def test_save_on_request_and_a_match_of_another_preset(tmp_path):
    path = tmp_path / "m.json"
    rc, out = play_at_terminal(["--preset", "black_maria", "--players", "4", "--match", "--seed", "5", "--seat", "2",
                   "--opponents", "random"],
                  Script([f"save {path}"]))
    assert rc == 0
    assert f"Game record saved to {path}" in out
    assert "The match is over. Winner(s):" in out
    assert "You are player_2" in out
    record = json.loads(path.read_text())
    assert record["rules"]["num_players"] == 4


def test_bad_command_line_is_refused(capsys):
    assert main(["--preset", "bridge"], io.StringIO(""), io.StringIO()) == 2
    assert "unknown preset" in capsys.readouterr().err
    assert main(["--seat", "7"], io.StringIO(""), io.StringIO()) == 2
    assert main(["--opponents", "genius"], io.StringIO(""), io.StringIO()) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_the_goal_is_stated_and_points_are_counted_in_words():
    rc, out = play_at_terminal(["--seed", "3"], Script([]))
    assert "One deal; the lowest score wins." in out
    assert "(1 points)" not in out and "(0 points)" in out
    assert "The deal is over." not in out and out.count("End of the deal.") == 1
    rc, out = play_at_terminal(["--preset", "petrone_black_mariah", "--match", "--seed", "1"], Script([], stop_after=0))
    assert "Match: until someone reaches 50 points or falls to -50; the highest total wins." in out
    rc, out = play_at_terminal(["--match", "--seed", "1"], Script([], stop_after=0))
    assert "Match: 9 deals; the lowest total wins." in out


def test_a_forced_card_is_played_for_you_unless_switched_off():
    rc, out = play_at_terminal(["--seed", "3"], Script([]))
    assert "is legal: played for you." in out  # the last trick at least is forced
    rc, out = play_at_terminal(["--seed", "3", "--no-auto-forced"], Script([]))
    assert "played for you" not in out


def test_watching_agents_play_with_every_hand_shown():
    rc, out = play_at_terminal(["--watch", "--delay", "0", "--reveal", "--seed", "4", "--opponents", "heuristic"], Script([]))
    assert rc == 0
    assert "Watching heuristic in every seat." in out and "New deal, dealer player_" in out
    assert "player_0: ♠" in out and "(you)" not in out
    assert out.count("wins the trick") == 17 and "puts" in out


def test_ascii_terminals_get_suit_letters(capsys):
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    assert not suits_printable(ascii_out) and suits_printable(io.StringIO())
    rc, out = play_at_terminal(["--seed", "3", "--ascii"], Script([], forms=("ascii",)))
    assert rc == 0 and not any(sym in out for sym in "♣♦♥♠")
    assert "Your hand (player_0): S " in out
    assert main(["--seed", "3", "--no-auto-forced"], io.StringIO("quit\n"), ascii_out) == 0
    ascii_out.seek(0)
    assert "H " in ascii_out.buffer.getvalue().decode("ascii")


def test_numbers_and_the_record_path_are_checked_before_the_game(capsys, tmp_path):
    import pytest

    for argv, message in [(["--seed", "-5"], "argument --seed: must be a whole number of at least 0, got '-5'"),
                          (["--players", "0"], "argument --players: must be a whole number of at least 1"),
                          (["--record", str(tmp_path)], "is a directory; give a file name"),
                          (["--record", "/proc/nowhere/game.json"], "cannot write /proc/nowhere/game.json"),
                          (["--delay", "-1"], "argument --delay: must be a number from 0 to 60, got '-1'"),
                          (["--reveal"], "--reveal goes with --watch (agents play every seat)"),
                          (["--delay", "0"], "--delay goes with --watch"),
                          (["--watch", "--seat", "1"], "--seat is your seat; with --watch agents play every seat"),
                          (["--watch", "--no-auto-forced"], "--no-auto-forced is about your own forced cards")]:
        with pytest.raises(SystemExit) as e:
            main(argv, io.StringIO(""), io.StringIO())
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(SystemExit) as e:
        main(["--version"], io.StringIO(""), io.StringIO())
    assert e.value.code == 0 and "bm-play (black-maria) 0.1.0" in capsys.readouterr().out


def test_the_shipped_agent_is_the_default_opponent_and_the_heuristic_is_one_flag_away(monkeypatch, tmp_path):
    import bm_env.agents.shipped as shipped

    monkeypatch.setattr(shipped, "shipped_agents", dict)  # no shipped agent here
    out = io.StringIO()
    assert main(["--seed", "1"], io.StringIO("quit\n"), out) == 0
    assert "Opponents: heuristic." in out.getvalue()
    monkeypatch.undo()
    if shipped.shipped_spec("black_maria", 3) is None:
        pytest.skip("checkpoints/black_maria_3p.pt is not in this checkout")
    out = io.StringIO()
    assert main(["--seed", "1"], io.StringIO("quit\n"), out) == 0
    assert "Opponents: policy:black_maria_3p (the shipped agent for these rules)." in out.getvalue()
    out = io.StringIO()
    assert main(["--seed", "1", "--opponents", "heuristic"], io.StringIO("quit\n"), out) == 0
    assert "Opponents: heuristic." in out.getvalue()
    # Rules with no shipped agent fall back to the heuristic.
    out = io.StringIO()
    assert main(["--seed", "1", "--preset", "dirty_lady"], io.StringIO("quit\n"), out) == 0
    assert "Opponents: heuristic." in out.getvalue()


# ---------------------------------------------------------------------------- the extension options: extra decisions by name


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


def test_turbo_hearts_charges_are_typed_and_announced():
    # pick=0: the first legal action: a charge id comes before "end charging" when one is offered.
    t = Typist(pick=0)
    rc, out = play_at_terminal(["--preset", "turbo_hearts", "--seed", "4"], t)
    assert rc == 0 and "Deal scores:" in out
    assert "ends charging." in out
    # Seed 4 deals the person A♥ and Q♠: both are charged by name, then ending is the only choice left.
    assert t.typed[t.typed.index("charge AH") + 1] == "charge QS"
    assert "> player_0 (you) charges A♥." in out and "Only end charging is legal: played for you." in out
    assert "Your turn to charge; legal:" in out
    # Charges name their card with a suit symbol like every other card on the screen.
    assert "legal: charge " in out and not any(f"charge {c}" in out for c in ("AH", "QS", "JD", "TC"))
    assert any(f"charge {c}" in out for c in ("A♥", "Q♠", "J♦", "10♣"))


def test_cancellation_deal_at_the_terminal():
    rc, out = play_at_terminal(["--preset", "cancellation", "--players", "7", "--seed", "2"], Typist(pick=0))
    assert rc == 0 and "Deal scores:" in out and "takes the kitty" in out


def test_moon_choice_and_pass_on_are_offered_by_name():
    # A partnership deal where the person passes on unseen and answers any moon choice by name.
    t = Typist(lines=["pass on"])
    argv = ["--preset", "partnership_hearts", "--seed", "1"]
    out = io.StringIO()
    parsed = build_parser().parse_args(argv)
    game = Game(parsed, t, out)
    t.game = game
    assert game.env.rules.num_actions == 59  # moon choice ids, no pass-on for this preset
    rc = game.run()
    assert rc == 0 and "Cannot read" not in out.getvalue()
    assert "pass on unseen is not legal now" in out.getvalue()


def test_booster_nines_deal_renders_boosted_tricks():
    rc, out = play_at_terminal(["--preset", "booster_nines", "--seed", "5"], Typist(pick=-1))
    assert rc == 0 and "Deal scores:" in out
    # Some trick went round twice: its "Last trick" line names eight plays.
    assert any(line.startswith("Last trick") and line.count(",") == 7 for line in out.splitlines())
