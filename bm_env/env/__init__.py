"""The RL-facing layer: the PettingZoo environment ``bm_env.black_maria_v0`` and what it shows agents.

The environment's contract with an agent lives here, because the environment defines it
and everything else copies it:

- :mod:`.observation`: the observation vector (one int8 layout of named parts) built from
  an :class:`~bm_env.engine.infostate.InfoState`;
- :mod:`.rewards`: a deal's rewards from its scores (``score`` or ``zero_sum``);
- :mod:`.playthrough`: one seeded deal through the environment written out as text, the
  golden files of ``tests/golden/``.

The vector engine (:mod:`bm_env.vector`) reproduces the observation and the rewards over
arrays and imports these two modules as its reference; this package's ``__init__`` imports
nothing, so that costs it no PettingZoo. The rest is the environment itself: the AEC adapter
(:mod:`.aec`), the incremental observation trackers (:mod:`.tracker`,
:mod:`.feature_tracker`, which calls the rule systems' faces of :mod:`.faces`), the thin
order-enforcing wrapper (:mod:`.order`) and the text renderer (:mod:`.render`). The
Gymnasium single-agent view, whose other seats agents play, stands above the agents:
:class:`bm_env.learner.SingleAgentEnv`.
"""
