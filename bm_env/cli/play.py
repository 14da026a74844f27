"""``bm-play``: a person plays a deal or a match at the terminal against agents.

Any preset and player count. The person sees the table from their own seat only: their
hand sorted by suit, the legal cards, the trick as it forms, who won it, the scores.
Cards are typed as ``qs``, ``Q♠``, ``10h`` ...; anything unreadable or illegal is refused
with the reason and asked again. Commands: ``help``, ``hand``, ``save [PATH]`` (write the
game record; a file that is not this game's record is overwritten only after a yes),
``quit``. End of input counts as ``quit``; ``quit``, end of input and Ctrl-C all write
the ``--record`` file. Opponents are agent specs (see
:func:`bm_env.agents.make_agent`): by default the shipped trained agent for the rules where
one ships (``policy:<preset>_<n>p``, :mod:`bm_env.agents.shipped`), else ``heuristic``; ``--opponents heuristic``
plays the rule-based player. A card that is the only legal one is played for you unless ``--no-auto-forced``. ``--watch`` lets agents play
every seat, ``--delay`` seconds apart, showing every hand with ``--reveal``. A terminal
that cannot print the suit symbols gets letters (``Q S``), as does ``--ascii``. The game
record (``--record``, ``save``) carries the agents' thoughts where they give them (policy,
pimc), for ``bm-replay`` to show. ``--web`` serves the table in the browser instead
(:mod:`bm_env.web`; ``--host``, ``--port``, ``--open``, ``--data``), where the game is chosen on the page.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TextIO

from ..agents import AgentSpecError, CheckpointError, make_agent
from ..agents.shipped import shipped_spec
from ..engine.actions import CHARGE_CARD, CHARGE_DONE, MOON_SUBTRACT, PASS_ON, parse_action
from ..engine.cards import ACCEPTED_FORMS, SUIT_LETTERS, SUIT_SYMBOLS, card_pretty, format_hand
from ..engine.deal import CHARGE, DISCARD, MOON, PASS
from ..engine.explain import why_illegal
from ..engine.record import write_record
from ..engine.rules import PRESETS, RulesError
from ..engine.scoring import match_goal
from ..engine.thoughts import ThoughtLog
from ..env.aec import BlackMariaEnv
from ..env.render import actions_text, cards_text, seat_name
from .args import Parser, add_version, float_range, non_negative_int, output_file, positive_int

#: The longest pause ``--delay`` allows between moves, in seconds (a longer one looks like a hang).
MAX_DELAY = 60.0

#: Suit symbols as letters, for a terminal that cannot print them.
TO_LETTERS = str.maketrans({sym: letter for sym, letter in zip(SUIT_SYMBOLS + "♧♢♡♤", SUIT_LETTERS * 2)})

HELP = (
    "Type a card to play or pass it: " + ACCEPTED_FORMS + ".\n"
    "Other decisions, where the rules have them: 'charge qs' ... and 'end' (Turbo Hearts), "
    "'pass on' (optional passing), 'subtract' or 'add' (moon choice).\n"
    "Commands: help (this text), hand (show the table again), save [PATH] (write the game record), quit."
)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="bm-play", description="Play Black Maria (or any Hearts-family preset) against agents.")
    p.add_argument("--preset", default="black_maria", help=f"one of: {', '.join(PRESETS)}")
    p.add_argument("--players", type=positive_int, default=None, help="player count (the preset's default otherwise)")
    p.add_argument("--seat", type=non_negative_int, default=None, help="your seat, 0..players-1 (default 0)")
    p.add_argument("--match", action="store_true", help="play a whole match instead of one deal")
    p.add_argument("--opponents", default=None,
                   help="agent spec for the other seats (default: the shipped trained agent for these rules, "
                        "policy:<preset>_<n>p, where one ships; else heuristic)")
    p.add_argument("--seed", type=non_negative_int, default=None, help="seed of the deal(s) and the agents")
    p.add_argument("--record", type=output_file, default=None,
                   help="write the game record to this JSON file at the end (checked for writing before the game)")
    p.add_argument("--auto-forced", action=argparse.BooleanOptionalAction, default=True,
                   help="play a card for you when it is the only legal one (default: on)")
    p.add_argument("--watch", action="store_true", help="agents (--opponents) play every seat; you watch")
    p.add_argument("--delay", type=float_range(0, MAX_DELAY), default=None,
                   help=f"seconds between moves with --watch, 0 to {MAX_DELAY:g} (default 1)")
    p.add_argument("--reveal", action="store_true", help="with --watch, show every hand")
    p.add_argument("--ascii", action="store_true", help="suits as letters C D H S instead of symbols")
    web = p.add_argument_group("the browser table (needs the web extra: pip install 'black-maria[web]')")
    web.add_argument("--web", action="store_true",
                     help="serve a table in the browser instead: choose the game there, play whole matches")
    web.add_argument("--host", default=None, help="address to listen on with --web (default 127.0.0.1: this machine only)")
    web.add_argument("--port", type=port_number, default=None, help="port to listen on with --web (default 8000; 0: any free one)")
    web.add_argument("--open", action="store_true", help="with --web, open the table in the default browser")
    web.add_argument("--data", default=None,
                     help="with --web, a folder where every game is saved after every move; a server started again "
                          "with it continues every game (default: games in memory only)")
    add_version(p)
    return p


def points_text(points: int) -> str:
    return f"{points} point" + ("" if abs(points) == 1 else "s")


def suits_printable(stream: TextIO) -> bool:
    """Whether ``stream`` can print the suit symbols (an ASCII-only terminal cannot)."""
    encoding = getattr(stream, "encoding", None)
    if encoding is None:
        return True  # an in-memory text stream
    try:
        SUIT_SYMBOLS.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class Game:
    """One game at the terminal: the environment, the agents, and the person's input and output."""

    def __init__(self, args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
        self.args = args
        self.stdin = stdin
        self.out = stdout
        self.env = BlackMariaEnv(rules=args.preset, num_players=args.players,
                                 episode="match" if args.match else "deal")
        n = self.env.rules.num_players
        seat = 0 if args.seat is None else args.seat
        if not 0 <= seat < n:
            raise ValueError(f"--seat must be a seat in 0..{n - 1}, got {seat}")
        self.watching = args.watch
        self.delay = 1.0 if args.delay is None else args.delay
        self.seat = None if args.watch else seat
        self.me = None if args.watch else f"player_{seat}"
        base = args.seed if args.seed is not None else 0
        shipped = None if args.opponents else shipped_spec(args.preset, n)
        self.opponents = args.opponents or shipped or "heuristic"
        self.who = f"{self.opponents} (the shipped agent for these rules)" if shipped else self.opponents
        self.agents = {s: make_agent(self.opponents, rules=self.env.rules, seed=base + 1 + s)
                       for s in range(n) if s != self.seat}
        self.thoughts = ThoughtLog()  # the agents' explanations, for the record (bm-replay shows them)
        self.saved: set[str] = set()  # this game's record files: saving again updates them without asking
        self.letters = args.ascii or not suits_printable(stdout)

    def say(self, text: str) -> None:
        print(text.translate(TO_LETTERS) if self.letters else text, file=self.out)

    def run(self) -> int:
        env = self.env
        env.reset(seed=self.args.seed)
        if self.watching:
            self.say(f"Watching {self.who} in every seat. Ctrl-C stops.")
        else:
            self.say(f"You are {self.me}. Opponents: {self.who}. Type 'help' for help.")
        self.say(match_goal(env.rules, self.args.match))
        shown = None
        while not env.terminations[env.agent_selection]:
            agent = env.agent_selection
            deal = env.match.deal
            if self.watching and self.args.reveal and deal is not shown:
                shown = deal
                self.say(f"New deal, dealer {seat_name(deal.seats[deal.dealer])}. Every hand:")
                for pos, s in enumerate(deal.seats):
                    self.say(f"  {seat_name(s)}: {format_hand(deal.hand_cards(pos))}")
            if agent == self.me:
                action = self.ask()
                if action is None:
                    self.say("Game abandoned.")
                    self.save_at_end()
                    return 0
            else:
                seat = int(agent.split("_")[1])
                o = env.observe(agent)
                action = self.agents[seat].act(o["observation"], o["action_mask"], env.information_state(agent))
            self.thoughts.note(deal, self.agents.get(int(agent.split("_")[1])))  # None: the person
            phase, tricks, kitty_taker = deal.phase, len(deal.tricks), deal.kitty_taker
            env.step(action)
            self.narrate(agent, action, deal, phase, tricks, kitty_taker)
            if self.watching and self.delay:
                time.sleep(self.delay)
        if self.args.match:
            self.say(self.final_text())
        self.save_at_end()
        return 0

    def ask(self) -> int | None:
        """Read commands until a legal card is typed; None on quit or end of input."""
        legal = self.env.information_state(self.me).legal
        if self.args.auto_forced and len(legal) == 1:
            self.say(f"Only {actions_text(legal)} is legal: played for you.")
            return legal[0]
        self.say("")
        self.say(self.env.render_text(self.seat))
        while True:
            self.out.write("> ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:
                return None
            text = line.strip()
            word = text.lower()
            if word in ("quit", "exit", "q"):
                return None
            if word in ("help", "?", "h"):
                self.say(HELP)
                continue
            if word == "hand":
                self.say(self.env.render_text(self.seat))
                continue
            if word == "save" or word.startswith("save "):
                self.save(text[4:].strip() or self.args.record)
                continue
            if not text:
                self.say("Type a card (e.g. qs, 10h, Q♠) or 'help'.")
                continue
            try:
                action = parse_action(text)
            except ValueError:
                self.say(f"Cannot read {text!r} as a card or command. {HELP}")
                continue
            if action not in legal:
                reason = why_illegal(self.env.match.deal, action, card_pretty)
                self.say(f"{actions_text([action])} is not legal now: {reason}. Legal: {actions_text(legal)}")
                continue
            return action

    def narrate(self, agent: str, action: int, deal, phase: str, tricks_before: int, kitty_taker=None) -> None:
        """Tell what just happened, showing nothing the person may not know."""
        mine = agent == self.me
        who = seat_name(int(agent.split("_")[1]), self.seat)
        if phase == PASS:
            if action == PASS_ON:
                self.say(f"{who} passes on, unseen, the cards passed to them.")
            elif mine:
                self.say(f"You put {card_pretty(action)} aside to pass.")
            elif self.watching and self.args.reveal:
                self.say(f"{who} puts {card_pretty(action)} aside to pass.")
            if deal.phase != PASS and self.seat is not None and self.seat in deal.seats:
                pos = deal.seats.index(self.seat)
                self.say(f"Every player has passed. You received: {cards_text(deal.received_cards[pos])}")
        elif phase == CHARGE:
            if action == CHARGE_DONE:
                self.say(f"{who} ends charging.")
            else:
                self.say(f"{who} charges {card_pretty(CHARGE_CARD[action])}.")
        elif phase == DISCARD:
            # Face down: only the discarder sees the card.
            self.say(f"You discard {card_pretty(action)} face down." if mine else f"{who} discards a card face down.")
        elif phase == MOON:
            self.say(f"{who} shot the moon and chooses to {'subtract' if action == MOON_SUBTRACT else 'add to the others'}.")
        else:
            self.say(f"{who} plays {card_pretty(action)}")
        if len(deal.tricks) > tricks_before:
            _, cards, winner_pos = deal.tricks[-1]
            points = sum(deal.values[c] for c in cards)
            if winner_pos is None:
                self.say(f"-> identical cards cancel: nobody wins; the trick stays on the table ({points_text(points)})")
            else:
                self.say(f"-> {seat_name(deal.seats[winner_pos], self.seat)} wins the trick ({points_text(points)})")
            if kitty_taker is None and deal.kitty_taker is not None:
                self.say(f"-> {seat_name(deal.seats[deal.kitty_taker], self.seat)} takes the kitty")
        if deal.is_over:
            self.say(self.deal_end_text(deal))

    def deal_end_text(self, deal) -> str:
        match = self.env.match
        if deal.renege is not None:
            head = f"Renege by {seat_name(deal.seats[deal.renege[0]], self.seat)}: the deal ends."
        else:
            head = "End of the deal."
        scores = " | ".join(f"{seat_name(s, self.seat)} {x}" for s, x in zip(deal.seats, deal.scores))
        totals = " | ".join(f"{seat_name(s, self.seat)} {t}" for s, t in enumerate(match.totals))
        return f"{head}\nDeal scores: {scores}\nMatch totals after {match.deals_played} deal(s): {totals}"

    def final_text(self) -> str:
        match = self.env.match
        names = ", ".join(seat_name(s, self.seat) for s in match.winners)
        return f"The match is over. Winner(s): {names}"

    def save(self, path: str | None, ask: bool = True) -> None:
        """Write the record to ``path``; a file that is not this game's own is overwritten only if the person says yes."""
        if not path:
            self.say("Give a file name: save PATH (e.g. save game.json)")
            return
        mine = os.path.realpath(path) in self.saved or path == self.args.record
        if ask and not mine and os.path.exists(path):
            self.out.write(f"{path} exists and is not this game's record: overwrite it? (yes/no) ")
            self.out.flush()
            if self.stdin.readline().strip().lower() not in ("y", "yes"):
                self.say(f"Not saved: {path} is left as it was.")
                return
        try:
            written = write_record(path, self.env.match, self.thoughts)
        except OSError as e:
            self.say(f"Could not save the record to {path}: {e}")
            return
        self.saved.add(os.path.realpath(written))
        self.say(f"Game record saved to {written}")

    def save_at_end(self) -> None:
        """The ``--record`` file, however the game ends (its last deal, quit, end of input, Ctrl-C)."""
        if self.args.record:
            self.save(self.args.record, ask=False)


def port_number(value: object) -> int:
    """A TCP port, 0..65535 (0: any free one)."""
    n = non_negative_int(value)
    if n > 65535:
        raise argparse.ArgumentTypeError(f"must be a port in 0..65535, got {value!r}")
    return n


#: Options of the terminal game, which the page chooses with --web.
TERMINAL_ONLY = ("preset", "players", "seat", "match", "opponents", "seed", "record", "auto_forced", "watch", "delay",
                 "reveal", "ascii")
WEB_ONLY = ("host", "port", "open", "data")


def web_main(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """``bm-play --web``: serve the browser table until interrupted."""
    defaults = vars(parser.parse_args([]))
    given = ["--" + k.replace("_", "-") for k in TERMINAL_ONLY if getattr(args, k) != defaults[k]]
    if given:
        parser.error(f"{' and '.join(given)}: with --web the game is chosen on the page, so leave "
                     f"{'them' if len(given) > 1 else 'it'} out")
    try:
        from ..web.server import serve
        from ..web.store import GameStore, StoreError
    except ImportError as e:
        print(f"bm-play: --web needs the web extra ({e}); install it with pip install 'black-maria[web]'",
              file=sys.stderr)
        return 2
    try:
        store = GameStore(args.data)
    except (StoreError, OSError) as e:
        print(f"bm-play: --data: {e}", file=sys.stderr)
        return 2
    try:
        serve(store, args.host or "127.0.0.1", 8000 if args.port is None else args.port, args.open, out)
    except OSError as e:
        print(f"bm-play: cannot listen on {args.host or '127.0.0.1'}:{args.port or 8000}: {e}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.web:
        return web_main(args, parser, stdout or sys.stdout)
    alone = ["--" + k for k in WEB_ONLY if getattr(args, k) not in (None, False)]
    if alone:
        parser.error(f"{' and '.join(alone)} {'go' if len(alone) > 1 else 'goes'} with --web (the browser table)")
    if not args.watch:
        alone = [name for name, value in (("--delay", args.delay), ("--reveal", args.reveal or None)) if value is not None]
        if alone:
            verb = "go" if len(alone) > 1 else "goes"
            parser.error(f"{' and '.join(alone)} {verb} with --watch (agents play every seat)")
    elif args.seat is not None:
        parser.error("--seat is your seat; with --watch agents play every seat")
    elif not args.auto_forced:
        parser.error("--no-auto-forced is about your own forced cards; with --watch agents play every seat")
    out = stdout or sys.stdout
    try:
        game = Game(args, stdin or sys.stdin, out)
    except (RulesError, AgentSpecError, CheckpointError, ValueError) as e:
        print(f"bm-play: {e}", file=sys.stderr)
        return 2
    try:
        return game.run()
    except KeyboardInterrupt:
        print("\nGame abandoned.", file=out)
        game.save_at_end()
        return 130


if __name__ == "__main__":
    sys.exit(main())
