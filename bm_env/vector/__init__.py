"""The vector engine: many single deals as numpy arrays, stepped together for self-play.

:func:`make_engine` builds the engine for the rules: a :class:`VectorEngine`, which gives, for
the acting player of every game, the observation and mask of :mod:`bm_env.env.observation`
(the environment's layout), and refuses at construction any rules option it does not play
(:func:`check_supported`); for rules with the extension options (charging, boosts, the 10♣
multiplier, kitties, scatter and optional passes, the moon choice and the sun,
``queen_when_safe``, teams, two decks) its subclass
:class:`~bm_env.vector.extended.ExtendedEngine`, with the extra decision ids in the masks, which
calls the systems' kernels (``bm_env/systems/<name>/vector.py``, found by :mod:`.kernel`). Its
Gymnasium face for one learning seat, with the other seats' players inside the step, is
:func:`bm_env.learner.make_vector_env`.
"""

from .engine import VectorEngine
from .factory import make_engine
from .positions import Positions, positions_of
from .support import UnsupportedRulesError, check_supported, plays

__all__ = ["Positions", "VectorEngine", "make_engine", "positions_of", "UnsupportedRulesError", "check_supported",
           "plays"]
