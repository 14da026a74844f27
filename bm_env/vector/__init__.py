"""The vector engine: many single deals as numpy arrays, stepped together for self-play.

:class:`VectorEngine` gives, for the acting player of every game, the observation and
mask of :mod:`bm_env.env.observation` (the environment's layout), and refuses at
construction any rules option it does not play (:func:`check_supported`). Rules with
the extension options (charging, boosts, the 10♣ multiplier, kitties, scatter and optional
passes, the moon choice and the sun, ``queen_when_safe``, teams, two decks) get its subclass
:class:`~bm_env.vector.extended.ExtendedEngine` from the same constructor, with the extra
decision ids in the masks. Its Gymnasium face for one learning seat, with the other seats'
players inside the step, is :func:`bm_env.learner.make_vector_env`.
"""

from .engine import VectorEngine
from .positions import Positions, positions_of
from .support import UnsupportedRulesError, check_supported

__all__ = ["Positions", "VectorEngine", "positions_of", "UnsupportedRulesError", "check_supported"]
