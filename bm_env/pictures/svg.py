"""The table as one SVG picture, from one seat's view or with every hand shown.

A seat's picture is drawn from that seat's :class:`~bm_env.engine.infostate.InfoState` alone, as
the text renderer is (:mod:`bm_env.env.render`), so it cannot show another seat's unplayed
cards: other hands are face-down backs with their count, and the only other cards shown
before they are played are those this seat passed to a player who still holds them (the
rules make them known to the passer). A spectator's picture adds a :class:`Revealed` (every
hand, the pass picks not yet moved, the kitty, the legal actions, every point taken), which
only :func:`revealed` builds, from the deal itself.

The layout follows pgx's ``save_svg`` (one self-contained SVG per state). The seat whose
view it is sits at the bottom with its hand as full-size cards sorted by suit (♠ ♥ ♦ ♣,
high to low, as in the text renderer); the other seats sit clockwise round an ellipse
starting at the viewer's left (the next seat in play order), each in a panel with its match
score, the points it has taken this deal (as the viewer knows them: those of face-down cards
are their taker's alone until the deal is scored; a spectator sees them all), the scoring
cards it has taken and its hand. The trick is in the middle, each card towards the seat that
played it (during passing, each seat's picks); the header gives the rules, the deal, the
pass, the phase and the decision to make. Red suits are red, black suits black.

Elements carry ``class`` and ``data-`` attributes (``trick-card``, ``hand-card``,
``match-score``, ``deal-points``, with ``data-seat``, ``data-card``, ``data-value``) so that
tests and the HTML replay read what the picture shows rather than guess at pixels.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Sequence

from ..engine.actions import action_str
from ..engine.cards import (DIAMONDS, HEARTS, NUM_CARDS, RANK_LETTERS, SUIT_SYMBOLS, card_str, cards_of, rank_of,
                            suit_of)
from ..engine.deal import DONE, PASS, Deal
from ..engine.infostate import InfoState
from ..engine.rules import PRESETS, Rules, RulesError, make_rules

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
FELT, FELT_EDGE, PANEL, ACTING = "#2f6f4e", "#1f4d36", "#f4f1e8", "#f2b705"
INK, RED, MUTED, BACK = "#1b1b1b", "#c62828", "#5f6b66", "#34508a"
SUIT_ORDER = (3, 2, 1, 0)  # spades, hearts, diamonds, clubs, as :func:`bm_env.engine.cards.format_hand`
HEADER = 70  # height of the header
BOTTOM = 160  # height of the viewer's strip: its panel line and its hand
BIG = (46, 66)  # the viewer's cards
MID = (40, 56)  # cards on the table
SMALL = (16, 24)  # card backs in a panel
PANEL_W = 214
_VERBS = {"pass": "pass", "play": "play", "charge": "charge", "discard": "discard", "moon": "choose the moon scoring"}


@dataclass(frozen=True)
class Revealed:
    """What a spectator sees beyond one seat's view (built by :func:`revealed` from the deal)."""

    hands: tuple[tuple[int, ...], ...]  # by match seat; () for a seat not in the deal
    picks: tuple[tuple[int, ...], ...]  # pass picks not yet moved, by match seat
    legal: tuple[int, ...]  # legal actions of the seat to act
    kitty: tuple[int, ...]  # the kitty while nobody has taken it
    points: tuple[int, ...]  # points taken this deal by match seat, face-down cards' included


def revealed(deal: Deal, num_seats: int) -> Revealed:
    """Every hand, pending pass pick and point taken of ``deal`` by match seat (``num_seats`` seats in the match)."""
    hands: list[tuple[int, ...]] = [()] * num_seats
    picks: list[tuple[int, ...]] = [()] * num_seats
    points = [0] * num_seats
    for pos, s in enumerate(deal.seats):
        hands[s] = tuple(deal.hand_cards(pos))
        points[s] = deal.captured_by(pos)
        if deal.phase == PASS:
            picks[s] = tuple(deal.pass_picks[pos])
    legal = tuple(cards_of(deal.legal)) if deal.phase != DONE else ()
    return Revealed(tuple(hands), tuple(picks), legal, deal.kitty if deal.kitty_taker is None else (), tuple(points))


def canvas_size(num_seats: int) -> tuple[int, int]:
    """Width and height of the picture: larger tables get more room."""
    if num_seats <= 4:
        return 980, 690
    if num_seats <= 6:
        return 1080, 750
    return 1200, 830


@lru_cache(maxsize=64)
def rules_label(rules: Rules) -> str:
    """The preset the rules are (``"black_maria"``), or ``"custom rules"``."""
    for name, preset in PRESETS.items():
        if rules.num_players in preset.player_counts:
            try:
                if make_rules(name, rules.num_players) == rules:
                    return name
            except RulesError:
                continue
    return "custom rules"


def seat_name(seat: int, me: int | None = None) -> str:
    return f"player_{seat}" + (" (you)" if seat == me else "")


def card_colour(c: int) -> str:
    return RED if suit_of(c) in (DIAMONDS, HEARTS) else INK


def _rank(c: int) -> str:
    r = RANK_LETTERS[rank_of(c)]
    return "10" if r == "T" else r


def by_suit(cards: Sequence[int]) -> list[int]:
    """Cards in the picture's order: ♠ ♥ ♦ ♣, high to low within a suit."""
    return sorted(cards, key=lambda c: (SUIT_ORDER.index(suit_of(c)), -rank_of(c)))


def action_label(a: int) -> str:
    return _rank(a) + SUIT_SYMBOLS[suit_of(a)] if a < NUM_CARDS else action_str(a)


class _Svg:
    """An SVG document built as a list of strings."""

    def __init__(self, width: int, height: int, attrs: str) -> None:
        self.parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                      f'viewBox="0 0 {width} {height}" font-family="{FONT}" {attrs}>']

    def add(self, text: str) -> None:
        self.parts.append(text)

    def text(self, x: float, y: float, content: str, size: int = 13, fill: str = INK, anchor: str = "start",
             weight: str = "normal", attrs: str = "") -> None:
        bold = f' font-weight="{weight}"' if weight != "normal" else ""
        extra = f" {attrs}" if attrs else ""
        self.parts.append(f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" fill="{fill}" text-anchor="{anchor}"'
                          f'{bold}{extra}>{content}</text>')

    def card(self, c: int, x: float, y: float, size: tuple[int, int], cls: str, seat: int, style: str = "") -> None:
        w, h = size
        col = card_colour(c)
        sym = SUIT_SYMBOLS[suit_of(c)]
        fs = round(h * 0.27)
        self.parts.append(
            f'<g class="card {cls}" data-seat="{seat}" data-card="{card_str(c)}" transform="translate({x:.0f},{y:.0f})"'
            f'{" " + style if style else ""}><rect width="{w}" height="{h}" rx="4" fill="#fff" stroke="#555"/>'
            f'<text x="3" y="{fs}" font-size="{fs}" fill="{col}" font-weight="bold">{_rank(c)}</text>'
            f'<text x="3" y="{2 * fs}" font-size="{fs}" fill="{col}">{sym}</text>'
            f'<text x="{w * 0.62:.0f}" y="{h - 6}" font-size="{round(h * 0.42)}" fill="{col}" text-anchor="middle">'
            f'{sym}</text></g>'
        )

    def back(self, x: float, y: float, size: tuple[int, int], seat: int) -> None:
        w, h = size
        self.parts.append(f'<rect class="card-back" data-seat="{seat}" x="{x:.0f}" y="{y:.0f}" width="{w}" '
                          f'height="{h}" rx="3" fill="{BACK}" stroke="#fff" stroke-width="1.5"/>')

    def done(self) -> str:
        return "".join(self.parts) + "</svg>"


def suit_groups(cards: Sequence[int]) -> str:
    """Cards as coloured suit groups, ``♠ K 9  ♥ 10 2``, as SVG ``tspan`` runs."""
    runs = []
    for s in SUIT_ORDER:
        ranks = [_rank(c) for c in by_suit(cards) if suit_of(c) == s]
        if ranks:
            col = RED if s in (DIAMONDS, HEARTS) else INK
            runs.append(f'<tspan fill="{col}">{SUIT_SYMBOLS[s]}\u2009{" ".join(ranks)}</tspan>')
    return "  ".join(runs) or "-"


def _wrapped_groups(cards: Sequence[int], per_line: int) -> list[str]:
    """Suit groups split into lines of at most ``per_line`` cards (a suit may continue on the next line)."""
    ordered = by_suit(cards)
    return [suit_groups(ordered[i:i + per_line]) for i in range(0, len(ordered), per_line)] or ["-"]


def _taken_cards(info: InfoState) -> dict[int, list[int]]:
    """The cards with a value each seat has taken in tricks (a trick left on the table goes to the next winner)."""
    values = info.rules.card_values
    taken: dict[int, list[int]] = {}
    carried: list[int] = []
    for _, cards, winner in info.tricks:
        carried.extend(c for c in cards if values[c])
        if winner is not None:
            taken.setdefault(winner, []).extend(carried)
            carried = []
    return taken


def table_svg(info: InfoState, reveal: Revealed | None = None) -> str:
    """The picture of the table as ``info.seat`` sees it; with ``reveal``, as a spectator sees it.

    ``info.seat`` sits at the bottom either way. Raises ``ValueError`` when ``reveal`` does
    not hold one hand per seat of the match.
    """
    n = len(info.match_scores)
    if reveal is not None and (len(reveal.hands) != n or len(reveal.picks) != n):
        raise ValueError(f"reveal must hold one hand and one pick list per seat ({n} seats)")
    width, height = canvas_size(n)
    me = info.seat
    view = "all" if reveal is not None else str(me)
    svg = _Svg(width, height, f'data-view="{view}" data-phase="{info.phase}"')
    svg.add(f'<rect width="{width}" height="{height}" fill="{FELT}"/>')
    svg.add(f'<rect x="0" y="0" width="{width}" height="{HEADER}" fill="{FELT_EDGE}"/>')
    _header(svg, info, reveal, width)
    taken = _taken_cards(info)
    for r in range(1, n):
        s = (me + r) % n
        x, y = _seat_point(r, n, width, height, 1.0)
        _panel(svg, info, reveal, s, x, y, taken.get(s, []))
    _viewer(svg, info, reveal, width, height, taken.get(me, []))
    _centre(svg, info, reveal, width, height)
    return svg.done()


def _seat_point(r: int, n: int, width: int, height: int, scale: float) -> tuple[float, float]:
    """Where the seat ``r`` places to the viewer's left sits (``scale`` < 1: towards the middle)."""
    cx, cy = width / 2, HEADER + (height - HEADER - BOTTOM) / 2
    rx, ry = width / 2 - PANEL_W / 2 - 14, (height - HEADER - BOTTOM) / 2 - 62
    angle = math.pi / 2 + 2 * math.pi * r / n
    return cx + scale * rx * math.cos(angle), cy + scale * ry * math.sin(angle)


def _header(svg: _Svg, info: InfoState, reveal: Revealed | None, width: int) -> None:
    n = len(info.match_scores)
    rules = info.rules
    title = (f"{rules_label(rules)} · {n} players · deal {info.deals_played + 1} · "
             f"dealer {seat_name(info.dealer)}")
    svg.text(14, 22, escape(title), 15, "#fff", weight="bold")
    svg.text(width - 14, 22, "all hands shown" if reveal is not None else f"{seat_name(info.seat)}'s view", 13,
             "#fff", "end", attrs='class="view-label"')
    if info.pass_count:
        passing = f"pass {info.pass_count} {info.pass_direction}"
    else:
        passing = "no pass this deal"
    if info.phase == PASS:
        phase = "passing"
    elif info.phase == DONE:
        phase = "deal over"
    elif info.phase == "play":
        phase = f"playing trick {len(info.tricks) + 1}"
    else:
        phase = info.phase
    broken = "hearts broken" if info.hearts_broken else "hearts not broken"
    better = "lower totals win" if rules.lower_wins else "higher totals win"
    svg.text(14, 42, escape(f"{passing} · {phase} · {broken} · {better}"), 13, "#e8efe9",
             attrs='class="status"')
    svg.text(14, 61, escape(_decision(info, reveal)), 13, ACTING, weight="bold", attrs='class="decision"')


def _decision(info: InfoState, reveal: Revealed | None) -> str:
    if info.to_act is None:
        if info.deal_scores is None:
            return "The deal is over."
        scores = ", ".join(f"{seat_name(s, info.seat)} {info.deal_scores[s]}" for s in info.seats)
        return f"Deal over. Deal scores: {scores}"
    verb = _VERBS.get(info.phase, info.phase)
    legal = reveal.legal if reveal is not None else info.legal
    shown = ", ".join(action_label(a) for a in legal) if len(legal) <= 13 else f"any of {len(legal)} cards"
    if info.to_act == info.seat and reveal is None:
        return f"Your turn to {verb}: legal {shown}"
    if reveal is not None:
        return f"{seat_name(info.to_act)} to {verb}: legal {shown}"
    return f"Waiting for {seat_name(info.to_act)} to {verb}"


def _badges(info: InfoState, s: int) -> str:
    marks = []
    if s == info.dealer:
        marks.append("dealer")
    if s == info.partner:
        marks.append("partner")
    if s not in info.seats:
        marks.append("sits out")
    return " · ".join(marks)


def _scores(svg: _Svg, info: InfoState, reveal: Revealed | None, s: int, x: float, y: float) -> None:
    svg.text(x, y, f"match {info.match_scores[s]}", 12, INK,
             attrs=f'class="match-score" data-seat="{s}" data-value="{info.match_scores[s]}"')
    points = reveal.points[s] if reveal is not None else info.points_taken[s]
    svg.text(x + 92, y, f"deal {points}", 12, INK, attrs=f'class="deal-points" data-seat="{s}" data-value="{points}"')
    if info.deal_scores is not None and s in info.seats:
        svg.text(x + 162, y, f"= {info.deal_scores[s]}", 12, RED, weight="bold",
                 attrs=f'class="deal-score" data-seat="{s}" data-value="{info.deal_scores[s]}"')


def _panel(svg: _Svg, info: InfoState, reveal: Revealed | None, s: int, cx: float, cy: float,
           taken: list[int]) -> None:
    """A seat's panel round the table: name, scores, hand (face down unless revealed), cards taken."""
    lines: list[tuple[str, str]] = []  # (class, SVG text content) below the hand
    if taken:
        lines += [("taken", "took " + g) for g in _wrapped_groups(taken, 9)]
    held = info.known_held.get(s, ())
    if reveal is None and held:
        lines.append(("known", "holds, from you: " + suit_groups(held)))
    if info.charged and info.charged[s]:
        lines.append(("charged", "charged: " + suit_groups(info.charged[s])))
    if s in info.passed_on:
        lines.append(("passed-on", "passed on unseen"))
    hand_lines = _wrapped_groups(reveal.hands[s], 9) if reveal is not None else []
    hand_h = 18 * len(hand_lines) if reveal is not None else SMALL[1] + 6
    height = 46 + hand_h + 15 * len(lines)
    x0, y0 = cx - PANEL_W / 2, cy - height / 2
    acting = info.to_act == s
    svg.add(f'<g class="seat" data-seat="{s}"><rect x="{x0:.0f}" y="{y0:.0f}" width="{PANEL_W}" height="{height}" '
            f'rx="8" fill="{PANEL}" stroke="{ACTING if acting else "#888"}" stroke-width="{4 if acting else 1}"/>')
    svg.text(x0 + 10, y0 + 18, seat_name(s), 14, INK, weight="bold")
    svg.text(x0 + PANEL_W - 10, y0 + 18, escape(_badges(info, s)), 11, MUTED, "end")
    _scores(svg, info, reveal, s, x0 + 10, y0 + 36)
    y = y0 + 46
    count = info.hand_sizes[s]
    if reveal is not None:
        for i, line in enumerate(hand_lines):
            svg.text(x0 + 10, y + 14 + 18 * i, line, 14, INK, attrs=f'class="hand-text" data-seat="{s}"')
    else:
        for i in range(min(count, 10)):
            svg.back(x0 + 10 + 7 * i, y, SMALL, s)
        svg.text(x0 + 100, y + 17, f"{count} card{'s' if count != 1 else ''}", 12, MUTED,
                 attrs=f'class="hand-count" data-seat="{s}" data-value="{count}"')
    y += hand_h
    for i, (cls, content) in enumerate(lines):
        svg.text(x0 + 10, y + 12 + 15 * i, content, 11, INK, attrs=f'class="{cls}" data-seat="{s}"')
    svg.add("</g>")


def _viewer(svg: _Svg, info: InfoState, reveal: Revealed | None, width: int, height: int, taken: list[int]) -> None:
    """The bottom strip: the viewer's name, scores, what it passed and received, its hand as big cards."""
    me = info.seat
    top = height - BOTTOM
    acting = info.to_act == me
    svg.add(f'<g class="seat viewer" data-seat="{me}"><rect x="8" y="{top}" width="{width - 16}" '
            f'height="{BOTTOM - 8}" rx="10" fill="{PANEL}" stroke="{ACTING if acting else "#888"}" '
            f'stroke-width="{4 if acting else 1}"/>')
    name = seat_name(me, None if reveal is not None else me)
    svg.text(22, top + 20, escape(name), 15, INK, weight="bold")
    svg.text(22, top + 38, escape(_badges(info, me)), 11, MUTED)
    notes = []
    if taken:
        notes.append("took " + suit_groups(taken))
    if info.passed:
        receivers = ", ".join(seat_name(t) for t in sorted({t for _, t in info.passed}))
        done = "passed" if info.phase != PASS else "picked to pass"
        notes.append(f"{done} to {receivers}: " + suit_groups([c for c, _ in info.passed]))
    if info.received:
        sender = seat_name(info.received_from) if info.received_from is not None else "the others"
        notes.append(f"received from {sender}: " + suit_groups(info.received))
    if info.kitty:
        notes.append("kitty: " + suit_groups(info.kitty))
    if info.discarded:
        notes.append("discarded face down: " + suit_groups(info.discarded))
    for i, note in enumerate(notes[:2]):
        svg.text(410 + 300 * i, top + 20, note, 12, INK, attrs='class="viewer-note"')
    for i, note in enumerate(notes[2:]):
        svg.text(410 + 300 * i, top + 38, note, 12, INK, attrs='class="viewer-note"')
    _scores(svg, info, reveal, me, 188, top + 20)
    hand = by_suit(reveal.hands[me] if reveal is not None else info.hand)
    legal = set(reveal.legal if reveal is not None else info.legal) if acting else set()
    received = set(info.received) if info.phase != PASS else set()
    w, h = BIG
    step = min(w + 6, (width - 60 - w) / max(len(hand) - 1, 1))
    x0 = (width - (step * (len(hand) - 1) + w)) / 2
    for i, c in enumerate(hand):
        lift = 14 if c in legal else 0
        dim = 'opacity="0.55"' if acting and legal and c not in legal else ""
        svg.card(c, x0 + i * step, height - h - 22 - lift, BIG, "hand-card" + (" legal" if lift else ""), me, dim)
        if c in received:
            svg.add(f'<circle class="received-mark" cx="{x0 + i * step + w - 7:.0f}" cy="{height - h - 15 - lift}" '
                    f'r="4" fill="#1e88e5"/>')
    if not hand and me not in info.seats:
        svg.text(width / 2, height - 60, "sits out this deal", 14, INK, "middle")
    svg.add("</g>")


def _centre(svg: _Svg, info: InfoState, reveal: Revealed | None, width: int, height: int) -> None:
    """The middle of the table: the trick (or the last one), the pass picks, the kitty and the deal's end."""
    n = len(info.match_scores)
    me = info.seat
    cx, cy = _seat_point(0, 1, width, height, 0.0)
    w, h = MID
    notes = []
    if info.phase == PASS:
        for r in range(n):
            s = (me + r) % n
            x, y = _seat_point(r, n, width, height, 0.42)
            if s == me and info.passed:
                picks = [c for c, _ in info.passed]
            elif reveal is not None:
                picks = list(reveal.picks[s])
            else:
                continue
            for i, c in enumerate(picks):
                svg.card(c, x - w / 2 + 24 * i - 12 * (len(picks) - 1), y - h / 2, MID, "pick-card", s)
        notes.append(f"passing {info.pass_count} to the {info.pass_direction}")
    elif info.current_trick or info.tricks:
        last = not info.current_trick
        if last:
            leader, cards, winner = info.tricks[-1]
            k = len(info.seats)
            start = info.seats.index(leader)
            plays = [(info.seats[(start + i) % k], c) for i, c in enumerate(cards)]
        else:
            plays = list(info.current_trick)
        seen: dict[int, int] = {}
        for s, c in plays:
            again = seen.get(s, 0)  # a boosted trick goes round more than once: offset the later cards
            seen[s] = again + 1
            x, y = _seat_point((s - me) % n, n, width, height, 0.42)
            svg.card(c, x - w / 2 + 12 * again, y - h / 2 + 8 * again, MID,
                     "last-trick-card" if last else "trick-card", s, 'opacity="0.6"' if last else "")
            if not again:  # who played it, under the card
                svg.text(x, y + h / 2 + 12, seat_name(s), 10, "#e8efe9", "middle")
        if last:
            viewer = me if reveal is None else None
            won = "stays on the table" if winner is None else f"won by {seat_name(winner, viewer)}"
            notes.append(f"trick {len(info.tricks)} {won}")
        else:
            notes.append(f"trick {len(info.tricks) + 1} · {SUIT_SYMBOLS[info.led_suit]} led")
    if info.pending:
        notes.append("on the table for the next winner: " + suit_groups(info.pending))
    if info.kitty_size:
        taker = "not taken yet" if info.kitty_taker is None else f"taken by {seat_name(info.kitty_taker)}"
        shown = f": {suit_groups(reveal.kitty)}" if reveal is not None and reveal.kitty else ""
        notes.append(f"kitty {info.kitty_size} card{'s' if info.kitty_size != 1 else ''}, {taker}{shown}")
    if info.moon_shooter is not None:
        notes.append(f"{seat_name(info.moon_shooter)} shot the moon")
    for i, note in enumerate(notes):
        shown = note if "<tspan" in note else escape(note)
        width_guess = 7.5 * len(re.sub(r"<[^>]+>", "", shown)) + 16  # DejaVu Sans at 13px: about 7.5px a character
        svg.add(f'<rect x="{cx - width_guess / 2:.0f}" y="{cy - 22 + 20 * i:.0f}" width="{width_guess:.0f}" '
                f'height="19" rx="5" fill="{PANEL}" opacity="0.9"/>')
        svg.text(cx, cy - 8 + 20 * i, shown, 13, INK, "middle", attrs='class="table-note"')
