"""The phases of a deal, by name: the deal's ``phase`` and the information state's hold one.

They sit apart from :mod:`bm_env.engine.deal` so that the rule systems whose phases they are
(charging, the kitty's discards, the moon choice: :mod:`bm_env.systems`) can name them too.
"""

PASS, CHARGE, PLAY, DISCARD, MOON, DONE = "pass", "charge", "play", "discard", "moon", "done"
