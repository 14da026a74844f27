"""black-maria: reinforcement-learning environments for Black Maria and the Hearts family.

The package is in layers, each standing only on those before it (``tests/test_layers.py`` reads
every import, lazy ones included, and holds the order):

- :mod:`bm_env.engine`: the rules engine (cards, rules and presets, deals, matches,
  information states, records and the thoughts they carry), numpy and the standard library only,
  with :mod:`bm_env.systems`, the rule systems whose options and checks the rules object is made of;
- :mod:`bm_env.package_data` and :mod:`bm_env.config`: the shipped agents' and configs' files,
  and the typed YAML configs of ``bm-eval`` and of the trainer;
- :mod:`bm_env.pictures`: tables and replays drawn from game records;
- :mod:`bm_env.env`: the PettingZoo environment, with the observation and rewards it
  defines; :mod:`bm_env.black_maria_v0` is its public entry, named the PettingZoo way;
- :mod:`bm_env.vector`: the batch engine, many deals as numpy arrays, in the environment's
  observation layout; :mod:`bm_env.soak` plays random deals through both engines, checking
  invariants;
- :mod:`bm_env.agents`: agents by name (random, rule-based, search, a network; torch is
  imported only where a network is used);
- :mod:`bm_env.learner`: one learning seat, the others played by agents (the Gymnasium
  ``SingleAgentEnv`` and ``VectorEnv``);
- :mod:`bm_env.evaluation`: measuring agents;
- :mod:`bm_env.training` and ``bm_env.integrations``: the trainer, and the RL libraries' faces;
- :mod:`bm_env.bench`: timing the engines, the agents and the trainer;
- ``bm_env.web``: the browser table;
- :mod:`bm_env.cli`: the ``bm-*`` commands.

The names below are the engine's everyday API, importable from ``bm_env`` itself; importing
``bm_env`` loads only the engine.
"""

from .engine.cards import card_pretty, card_str, format_hand, parse_card
from .engine.deal import Deal, IllegalActionError
from .engine.infostate import InfoState, information_state
from .engine.match import Match
from .engine.record import RecordError, deal_record, match_record, replay_deal, replay_match, write_record
from .engine.rules import PRESETS, Rules, RulesError, make_rules

__version__ = "0.1.0"

__all__ = [
    "Deal", "IllegalActionError", "InfoState", "Match", "PRESETS", "RecordError", "Rules", "RulesError",
    "card_pretty", "card_str", "deal_record", "format_hand", "information_state", "make_rules", "match_record",
    "parse_card", "replay_deal", "replay_match", "write_record",
]
