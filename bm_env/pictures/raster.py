"""The SVG picture as pixels: an ``H×W×3`` uint8 array, for ``render_mode="rgb_array"``.

The SVG is rasterised by resvg (the ``resvg-py`` wheel bundles it: nothing to install on
the system, no display), so the array is the same picture as the SVG, not a second
drawing of it. resvg is given the DejaVu Sans fonts that matplotlib ships and no system
font, so the pixels do not depend on the machine's fonts; DejaVu Sans has the suit
symbols.
"""

from __future__ import annotations

import io
import os
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=1)
def _fonts() -> tuple[str, ...]:
    import matplotlib

    folder = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    return tuple(os.path.join(folder, f) for f in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"))


def svg_to_rgb(svg: str) -> np.ndarray:
    """Rasterise ``svg`` at its own size into a ``(height, width, 3)`` uint8 array."""
    import resvg_py
    from PIL import Image

    png = resvg_py.svg_to_bytes(svg_string=svg, skip_system_fonts=True, font_files=list(_fonts()),
                                font_family="DejaVu Sans", sans_serif_family="DejaVu Sans")
    with Image.open(io.BytesIO(bytes(png))) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)
