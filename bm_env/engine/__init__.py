"""The rules engine: the Hearts family as plain rules, importing only numpy and the standard library.

Everything else in the project stands on this layer, and nothing here knows that the
environment, the vector engine, the agents or the trainer exist (a test imports every
module of it with torch, PettingZoo and Gymnasium blocked).

- :mod:`.cards`: cards as ints 0..51, suit-major, and sets of cards as 52-bit masks;
- :mod:`.actions`: the action ids, the 52 cards then the decisions that are not a card;
- :mod:`.rules`: the frozen rules object, its options and the named presets;
- :mod:`.deal`: one deal (passing, the extra decisions, the tricks), the reference engine, calling
  the rule systems' hooks (:mod:`bm_env.systems`) for the mechanics beyond the classic game;
- :mod:`.phases`: the names of a deal's phases;
- :mod:`.scoring`: a deal's scores from what each player captured;
- :mod:`.match`: deals in turn until the rules' end and a winner;
- :mod:`.infostate`: what one player may know at a decision;
- :mod:`.record`: deals and matches as JSON records that replay to the identical result;
- :mod:`.explain`: why an action is illegal, in words (the engine's error messages use it);
- :mod:`.files`: writing a file atomically (records here, checkpoints in the layers above).

The package itself imports none of them; the common names are exported by :mod:`bm_env`.
"""
