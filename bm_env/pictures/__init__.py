"""Seeing the game: an SVG of any position, its pixels, and a browser replay of a record.

* :func:`table_svg` draws the table from one seat's view (or, with :func:`revealed`, with
  every hand shown); :func:`save_svg` writes it; :func:`svg_to_rgb` turns it into the
  ``H×W×3`` uint8 array of the environment's ``render_mode="rgb_array"``.
* :func:`replay_html` makes one self-contained HTML page that steps through a game record
  (``bm-replay``), with the agents' recorded thoughts as bar charts; :func:`write_replay`
  writes it, :func:`record_frames` gives its frames (for a seat, or with all hands).

Hidden information holds for all of them: a seat's picture, array or replay is made from
that seat's information state only.
"""

from .raster import svg_to_rgb
from .replay import record_frames, replay_html, write_replay
from .svg import Revealed, revealed, table_svg


def save_svg(path, info, reveal=None) -> None:
    """Write :func:`table_svg` of ``info`` (and ``reveal``) to ``path`` (pgx's ``save_svg``)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(table_svg(info, reveal))


__all__ = ["Revealed", "record_frames", "replay_html", "revealed", "save_svg", "svg_to_rgb", "table_svg",
           "write_replay"]
