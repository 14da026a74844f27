"""black-maria: reinforcement-learning environments for Black Maria and the Hearts family.

The rules engine (:mod:`bm_env.rules`, :mod:`bm_env.deal`, :mod:`bm_env.match`) imports
only numpy and the standard library; the PettingZoo environment lives in
:mod:`bm_env.black_maria_v0`, the batch engine in :mod:`bm_env.vector`, agents in
:mod:`bm_env.agents`.
"""

from .cards import card_pretty, card_str, format_hand, parse_card
from .deal import Deal, IllegalActionError
from .infostate import InfoState, information_state
from .match import Match
from .record import RecordError, deal_record, match_record, replay_deal, replay_match, write_record
from .rules import PRESETS, Rules, RulesError, make_rules

__version__ = "0.1.0"

__all__ = [
    "Deal", "IllegalActionError", "InfoState", "Match", "PRESETS", "RecordError", "Rules", "RulesError",
    "card_pretty", "card_str", "deal_record", "format_hand", "information_state", "make_rules", "match_record",
    "parse_card", "replay_deal", "replay_match", "write_record",
]
