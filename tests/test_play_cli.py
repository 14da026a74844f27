"""The terminal game, driven by scripted input."""

import io
import json

from bm_env.cards import card_pretty, card_str
from bm_env.cli.play import Game, build_parser, main


class Script:
    """stdin for a game: the given lines first, then a legal card in turn written 'qs', 'Q♠' or '10h' style."""

    def __init__(self, lines, forms=("ascii", "pretty", "lower"), stop_after=None):
        self.lines = list(lines)
        self.forms = forms
        self.game = None
        self.cards = 0
        self.stop_after = stop_after

    def readline(self):
        if self.lines:
            return self.lines.pop(0) + "\n"
        if self.stop_after is not None and self.cards >= self.stop_after:
            return ""  # end of input
        legal = self.game.env.information_state(self.game.me).legal
        c = legal[self.cards % len(legal)]
        form = self.forms[self.cards % len(self.forms)]
        self.cards += 1
        text = {"ascii": card_str(c), "pretty": card_pretty(c), "lower": card_pretty(c).replace("♠", "s")
                .replace("♥", "h").replace("♦", "d").replace("♣", "c").lower()}[form]
        return text + "\n"


def run(argv, script):
    out = io.StringIO()
    game = Game(build_parser().parse_args(argv), script, out)
    script.game = game
    return game.run(), out.getvalue()


def test_a_whole_deal_with_bad_input_re_asked():
    rc, out = run(["--seed", "3"], Script(["help", "zz", "", "11h", "save"]))
    assert rc == 0
    assert "Commands: help" in out
    assert "Cannot read 'zz'" in out and "Cannot read '11h'" in out
    assert "Type a card" in out
    assert "Give a file name" in out
    assert "wins the trick" in out and "Deal scores:" in out and "End of the deal." in out
    assert "Every player has passed. You received:" in out
    assert out.count("You put") == 3


def test_illegal_card_is_refused_with_the_legal_cards():
    script = Script([])
    out = io.StringIO()
    game = Game(build_parser().parse_args(["--seed", "1"]), script, out)
    script.game = game
    game.env.reset(seed=1)
    legal = set(game.env.information_state(game.me).legal)
    held = set(game.env.information_state(game.me).hand)
    not_mine = next(c for c in range(52) if c not in held and c not in legal and c != 0)
    script.lines = [card_str(not_mine), "quit"]
    assert game.ask() is None
    assert f"{card_pretty(not_mine)} is not legal now; legal:" in out.getvalue()


def test_quit_and_end_of_input_abandon_cleanly(tmp_path):
    rc, out = run(["--seed", "2"], Script(["quit"]))
    assert rc == 0 and "Game abandoned." in out
    path = tmp_path / "g.json"
    rc, out = run(["--seed", "2", "--record", str(path)], Script([], stop_after=2))
    assert rc == 0 and "Game abandoned." in out
    assert json.loads(path.read_text())["deals"]


def test_save_on_request_and_a_match_of_another_preset(tmp_path):
    path = tmp_path / "m.json"
    rc, out = run(["--rules", "black_maria", "--players", "4", "--match", "--seed", "5", "--seat", "2",
                   "--opponents", "random"],
                  Script([f"save {path}"]))
    assert rc == 0
    assert f"Game record saved to {path}" in out
    assert "The match is over. Winner(s):" in out
    assert "You are player_2" in out
    record = json.loads(path.read_text())
    assert record["rules"]["num_players"] == 4


def test_bad_command_line_is_refused(capsys):
    assert main(["--rules", "bridge"], io.StringIO(""), io.StringIO()) == 2
    assert "unknown preset" in capsys.readouterr().err
    assert main(["--seat", "7"], io.StringIO(""), io.StringIO()) == 2
    assert main(["--opponents", "genius"], io.StringIO(""), io.StringIO()) == 2
    assert "unknown agent" in capsys.readouterr().err
