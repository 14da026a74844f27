"""Partnerships in the incremental observation: nothing to follow.

The partner sits across for the whole match, so the opening rows of every deal (the reference
encoding of its start) hold the partner's cell, and no decision changes it.
"""

from ...env.faces import TrackerFace

FACE = TrackerFace
