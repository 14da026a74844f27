"""An agent's thought at one decision as a bar chart (SVG): one bar per legal action.

Probabilities run from 0 to 1; values (pimc's mean playout results) from the lowest to the
highest, with a line at zero when the range crosses it. The action taken is outlined.
Bars carry ``data-action``, ``data-value`` and ``data-chosen`` so tests read them back.
"""

from __future__ import annotations

from html import escape
from typing import Mapping

from ..engine.actions import action_str
from ..engine.cards import NUM_CARDS
from ..engine.thoughts import KINDS
from .svg import ACTING, FONT, INK, action_label, card_colour

WIDTH = 360
ROW = 20


def _shorten(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def thought_svg(agent: str, kind: str, values: Mapping[int, float], chosen: int) -> str:
    """The chart of ``agent``'s numbers for each legal action; ``chosen`` is the action taken."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {list(KINDS)}")
    order = sorted(values, key=lambda a: (-values[a], a))
    top = 62
    height = top + ROW * len(order) + 12
    lo = 0.0 if kind == "probability" else min(0.0, min(values.values()))
    hi = 1.0 if kind == "probability" else max(0.0, max(values.values()))
    span = (hi - lo) or 1.0
    x0, bar_w = 58, WIDTH - 58 - 66

    def x(v: float) -> float:
        return x0 + bar_w * (v - lo) / span

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="thought" width="{WIDTH}" height="{height}" '
             f'viewBox="0 0 {WIDTH} {height}" font-family="{FONT}" data-kind="{kind}">',
             f'<rect width="{WIDTH}" height="{height}" rx="8" fill="#fff"/>',
             f'<text x="10" y="20" font-size="12" font-weight="bold" fill="{INK}">{escape(_shorten(agent, 52))}</text>',
             f'<text x="10" y="38" font-size="10" fill="{INK}">{escape(KINDS[kind])}</text>']
    zero = x(0.0)
    for i, a in enumerate(order):
        y = top + ROW * i
        v = values[a]
        left, right = sorted((zero, x(v)))
        colour = card_colour(a) if a < NUM_CARDS else INK
        mine = a == chosen
        bold = ' font-weight="bold"' if mine else ""
        outline = f' stroke="{ACTING}" stroke-width="3"' if mine else ""
        number = f"{v:.1%}" if kind == "probability" else f"{v:+.2f}"
        parts.append(
            f'<g class="bar" data-action="{action_str(a)}" data-value="{v:g}" data-chosen="{str(mine).lower()}">'
            f'<text x="{x0 - 8}" y="{y + 14}" font-size="13" text-anchor="end" fill="{colour}"{bold}>'
            f'{escape(action_label(a))}</text>'
            f'<rect x="{left:.1f}" y="{y + 3}" width="{max(right - left, 1):.1f}" height="{ROW - 6}" '
            f'fill="{"#2e7d4f" if v >= 0 else "#b0413e"}"{outline}/>'
            f'<text x="{WIDTH - 8}" y="{y + 14}" font-size="12" text-anchor="end" fill="{INK}">{number}</text></g>'
        )
    if lo < 0 < hi:
        parts.append(f'<line x1="{zero:.1f}" y1="{top - 2}" x2="{zero:.1f}" y2="{height - 10}" stroke="{INK}"/>')
    parts.append("</svg>")
    return "".join(parts)
