"""``bm-replay``'s page: one self-contained HTML file that steps through a game record.

The record (a deal or a whole match, :mod:`bm_env.engine.record`) is replayed through the engine,
which checks it, and at every decision the position is drawn by :func:`~.svg.table_svg`:
frame ``k`` of a deal is the table before its decision ``k``, with a caption naming the
decision and what was chosen, and where the record carries the deciding agent's thought
(:mod:`bm_env.engine.thoughts`), its bar chart (:mod:`.chart`); a last frame shows the deal's end.
The page steps with the arrow keys and buttons (Page Up / Page Down jump a deal), and needs
no server, network or other file: the frames are embedded, deflate-compressed (a match is
hundreds of pictures) and opened by the browser's own ``DecompressionStream``.

Hidden information. A file is made either for one seat (``seat=K``) or for a spectator:

* ``seat=K`` embeds only what seat K may know at each step: its own pictures (drawn from
  its information state), captions that name other seats' pass picks and face-down
  discards without the card, and only K's own thoughts (another agent's probabilities
  over its legal cards would show its hand). There is no selector, because there is
  nothing else in the file to select: reading its source reveals no more than the page.
  Two records that differ only in cards K has not seen give byte-identical files.
* the default file is for a spectator: it embeds every view, "all hands" and each seat's,
  and a selector switches between them. It holds every hand by design, so hand it only to
  people who may see them all.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import zlib
from dataclasses import dataclass
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from ..engine.actions import CHARGE_CARD, CHARGE_DONE, MOON_SUBTRACT, PASS_ON
from ..engine.deal import CHARGE, DISCARD, MOON, PASS, Deal
from ..engine.infostate import information_state
from ..engine.record import DEAL_FORMAT, MATCH_FORMAT, RecordError, replay_deal, replay_match
from ..engine.rules import Rules, RulesError
from ..engine.thoughts import read_thoughts
from .chart import thought_svg
from .svg import action_label, revealed, rules_label, seat_name, table_svg

ALL = "all"


@dataclass(frozen=True)
class Frame:
    """One step of the page: which deal, what is decided, the picture, the chart (or None)."""

    deal: int
    caption: str
    svg: str
    chart: str | None


def _caption(deal: Deal, action: int, viewer: int | None) -> str:
    """The decision about to be taken, as ``viewer`` (None: a spectator) may know it."""
    seat = deal.current_seat
    who = seat_name(seat, viewer)
    sees = viewer is None or viewer == seat
    if deal.phase == PASS:
        if action == PASS_ON:
            return f"{who} passes on, unseen, the cards passed to them"
        return f"{who} picks {action_label(action)} to pass" if sees else f"{who} picks a card to pass"
    if deal.phase == CHARGE:
        return f"{who} ends charging" if action == CHARGE_DONE else f"{who} charges {action_label(CHARGE_CARD[action])}"
    if deal.phase == DISCARD:
        return f"{who} discards {action_label(action)} face down" if sees else f"{who} discards a card face down"
    if deal.phase == MOON:
        return f"{who} shot the moon and chooses to {'subtract' if action == MOON_SUBTRACT else 'add to the others'}"
    return f"{who} plays {action_label(action)}"


def _end_caption(deal: Deal, viewer: int | None) -> str:
    if deal.scores is None:
        return "The record ends here (the deal is unfinished)."
    head = (f"Renege by {seat_name(deal.seats[deal.renege[0]], viewer)}: the deal ends. " if deal.renege is not None
            else "The deal is over. ")
    return head + "Deal scores: " + ", ".join(f"{seat_name(s, viewer)} {x}" for s, x in zip(deal.seats, deal.scores))


class _Walk:
    """Collects one view's frames while the engine replays a record (``before_step`` hook)."""

    def __init__(self, deal_records: list[Mapping[str, Any]], num_seats: int, totals: list[int] | None,
                 viewer: int | None) -> None:
        self.records = deal_records
        self.n = num_seats
        self.totals = totals  # match totals by seat, for seats outside a tie-break deal
        self.viewer = viewer
        self.frames: list[Frame] = []
        self.deal: Deal | None = None
        self.index = -1
        self.decision = 0
        self.thoughts: dict[int, dict[str, Any]] = {}

    def before_step(self, deal: Deal, action: int) -> None:
        if deal is not self.deal:
            self.finish()
            self.deal, self.index, self.decision = deal, self.index + 1, 0
            self.thoughts = read_thoughts(self.records[self.index])
        chart = None
        thought = self.thoughts.get(self.decision)
        if thought is not None:
            legal = set(deal.legal_actions())
            if thought["seat"] != deal.current_seat or not set(thought["values"]) <= legal:
                raise RecordError(
                    f"deals[{self.index}].thoughts: decision {self.decision} is player_{deal.current_seat}'s with "
                    f"legal actions {sorted(legal)}; the thought is player_{thought['seat']}'s over "
                    f"{sorted(thought['values'])}")
            if self.viewer is None or self.viewer == deal.current_seat:
                chart = thought_svg(thought["agent"], thought["kind"], thought["values"], action)
        caption = f"Deal {self.index + 1}, decision {self.decision + 1}. Next: {_caption(deal, action, self.viewer)}"
        self.frames.append(Frame(self.index, caption, self._picture(deal), chart))
        self.decision += 1

    def finish(self) -> None:
        """The last frame of the deal being walked, if any."""
        if self.deal is not None:
            caption = f"Deal {self.index + 1}. {_end_caption(self.deal, self.viewer)}"
            self.frames.append(Frame(self.index, caption, self._picture(self.deal), None))

    def _picture(self, deal: Deal) -> str:
        scores = list(self.totals) if self.totals is not None else [0] * self.n
        for pos, s in enumerate(deal.seats):
            scores[s] = deal.totals_before[pos]
        seat = 0 if self.viewer is None else self.viewer
        info = information_state(deal, seat, scores, deal.deals_before)
        return table_svg(info, revealed(deal, self.n) if self.viewer is None else None)


def record_frames(rec: Mapping[str, Any], viewer: int | None = None) -> list[Frame]:
    """Every frame of a deal or match record as ``viewer`` (a seat, or None for all hands) sees it.

    Raises :class:`~bm_env.engine.record.RecordError` for a record that does not replay, or whose
    thoughts do not fit its decisions.
    """
    n = _rules(rec).num_players
    fmt = rec.get("format")
    if fmt == MATCH_FORMAT:
        deals = list(rec.get("deals") or [])
        totals = rec.get("totals")
    elif fmt == DEAL_FORMAT:
        deals, totals = [rec], None
    else:
        raise RecordError(f"record: format {fmt!r} is neither {DEAL_FORMAT!r} nor {MATCH_FORMAT!r}")
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise RecordError(f"seat {viewer!r} is not a seat of this record (0..{n - 1})")
    walk = _Walk(deals, n, None if totals is None else list(totals), viewer)
    if fmt == MATCH_FORMAT:
        replay_match(rec, walk.before_step)
    else:
        replay_deal(rec, walk.before_step)
    walk.finish()
    return walk.frames


def _pack(frames: list[Frame]) -> str:
    """Frames as base64 of deflate-compressed JSON: ``[[deal, caption, svg, chart], ...]``."""
    data = json.dumps([[f.deal, f.caption, f.svg, f.chart] for f in frames], ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(zlib.compress(data.encode("utf-8"), 9)).decode("ascii")


def replay_html(rec: Mapping[str, Any], seat: int | None = None) -> str:
    """The self-contained HTML page of a record: ``seat`` K's view only, or (None) every view."""
    rules = _rules(rec)
    views = [(str(seat), f"{seat_name(seat)}'s view")] if seat is not None else (
        [(ALL, "all hands")] + [(str(s), f"{seat_name(s)}'s view") for s in range(rules.num_players)])
    blobs = []
    for key, _ in views:
        frames = record_frames(rec, None if key == ALL else int(key))
        blobs.append(f'<script type="application/octet-stream" id="frames-{key}">{_pack(frames)}</script>')
    kind = "match" if rec.get("format") == MATCH_FORMAT else "deal"
    title = f"{rules_label(rules)}, {rules.num_players} players: a {kind}" + (
        f", {seat_name(seat)}'s view" if seat is not None else ", all hands")
    meta = json.dumps({"views": [{"id": k, "label": label} for k, label in views]}).replace("<", "\\u003c")
    page = resources.files(__package__)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)}</title><style>{page.joinpath('replay.css').read_text(encoding='utf-8')}</style>"
        f"</head><body>\n<header><h1>{escape(title)}</h1><nav>"
        '<button id="first" title="first (Home)">first</button>'
        '<button id="prev-deal" title="previous deal (Page Up)">« deal</button>'
        '<button id="prev" title="back (←)">◀</button>'
        '<button id="next" title="forward (→)">▶</button>'
        '<button id="next-deal" title="next deal (Page Down)">deal »</button>'
        '<button id="last" title="last (End)">last</button>'
        '<span id="position"></span>'
        + ('<label>view <select id="view"></select></label>' if len(views) > 1 else "")
        + '</nav><p id="caption"></p></header>\n<main><div id="board"></div><aside id="chart"></aside></main>\n'
        f'<script type="application/json" id="replay-meta">{meta}</script>\n'
        + "\n".join(blobs)
        + f"\n<script>{page.joinpath('replay.js').read_text(encoding='utf-8')}</script>\n</body></html>\n"
    )


def write_replay(path: str | os.PathLike, rec: Mapping[str, Any], seat: int | None = None) -> Path:
    """Write :func:`replay_html` of ``rec`` to ``path`` atomically (a temporary file renamed into place)."""
    page = replay_html(rec, seat)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(page)
    os.chmod(tmp, 0o644)  # a page to share, unlike mkstemp's private default
    os.replace(tmp, path)
    return path


def _rules(rec: Mapping[str, Any]) -> Rules:
    if not isinstance(rec, Mapping):
        raise RecordError(f"record: expected a JSON object, got {type(rec).__name__}")
    try:
        return Rules.from_dict(rec["rules"])
    except (KeyError, RulesError, TypeError) as e:
        raise RecordError(f"record rules: {e}") from None
