"""What an agent thought at a decision, carried by game records for the replay to show.

Agents that can say how they chose implement an optional ``explain()`` that returns a
:class:`Thought` about their last ``act`` (or None): a policy network its masked softmax
probabilities over the legal actions, pimc its mean playout value of each legal card. The
game's driver (the evaluation harness, ``bm-play``) keeps a :class:`ThoughtLog` and calls
:meth:`ThoughtLog.note` at every decision, agents without ``explain`` and people included,
so that the decision numbers count every action of the deal in the order the engine takes
them, which is the order a replay takes them too. A deal record then holds, only when
some agent explained itself::

    "thoughts": [{"decision": 12, "seat": 1, "agent": "pimc(...)", "kind": "value",
                  "values": {"QS": -3.25, "3H": -1.0}}]

Records without the field load and replay as before. :func:`read_thoughts` checks the
field (a malformed one raises :class:`~bm_env.engine.record.RecordError`) and returns it by
decision number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from .actions import action_str, parse_action
from .record import RecordError

#: kind -> what the numbers are, for charts and readers.
KINDS = {
    "probability": "probability of each legal action (the policy's masked softmax)",
    "value": "mean playout result of each legal action (higher is better)",
}


#: The fields of one thought in a record.
FIELDS = {"decision", "seat", "agent", "kind", "values"}


@dataclass(frozen=True)
class Thought:
    """An agent's numbers for each legal action at one decision."""

    kind: str  # a key of KINDS
    values: Mapping[int, float]  # action id -> number


def explain(agent: Any) -> Thought | None:
    """The agent's thought about its last action, or None when it has no ``explain``."""
    method = getattr(agent, "explain", None)
    return method() if method is not None else None


class ThoughtLog:
    """The thoughts of a game's agents, deal by deal, keyed by decision number."""

    def __init__(self) -> None:
        # id(deal) -> [deal, decisions so far, entries]; the deal is kept so its id stays its own.
        self._deals: dict[int, list[Any]] = {}

    def note(self, deal, agent: Any) -> None:
        """Count one decision of ``deal`` (call it after ``agent`` chose, before the action is
        applied; ``agent`` None for a person) and keep the agent's thought if it has one."""
        entry = self._deals.setdefault(id(deal), [deal, 0, []])
        thought = explain(agent)
        if thought is not None:
            entry[2].append({
                "decision": entry[1], "seat": deal.current_seat, "agent": getattr(agent, "name", "agent"),
                "kind": thought.kind, "values": {action_str(a): round(float(v), 4) for a, v in thought.values.items()},
            })
        entry[1] += 1

    def resume(self, deal, decisions: int, entries: list[dict[str, Any]]) -> None:
        """Carry on the log of ``deal`` from its record: ``decisions`` actions taken so far and the
        record's ``thoughts`` entries (a game rebuilt from its saved record keeps explaining itself)."""
        self._deals[id(deal)] = [deal, decisions, list(entries)]

    def of(self, deal) -> list[dict[str, Any]]:
        """The record entries of ``deal`` (empty when no agent explained itself in it)."""
        entry = self._deals.get(id(deal))
        return list(entry[2]) if entry is not None and entry[0] is deal else []


def read_thoughts(rec: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """A deal record's thoughts by decision number, values keyed by action id; {} when it has none."""
    raw = rec.get("thoughts", [])
    if not isinstance(raw, list):
        raise RecordError(f"thoughts: expected a list, got {type(raw).__name__}")
    out: dict[int, dict[str, Any]] = {}
    for i, t in enumerate(raw):
        where = f"thoughts[{i}]"
        if not isinstance(t, Mapping) or not {"decision", "seat", "kind", "values"} <= set(t) <= FIELDS:
            shown = repr(t) if len(repr(t)) <= 200 else repr(t)[:197] + "..."
            raise RecordError(f"{where}: needs decision, seat, kind and values (and may name the agent), "
                              f"nothing else; got {shown}")
        d = t["decision"]
        if isinstance(d, bool) or not isinstance(d, int) or d < 0:
            raise RecordError(f"{where}: decision must be a whole number >= 0, got {d!r}")
        if d in out:
            raise RecordError(f"{where}: decision {d} has two thoughts")
        if t["kind"] not in KINDS:
            raise RecordError(f"{where}: kind {t['kind']!r} is not one of {list(KINDS)}")
        if not isinstance(t["values"], Mapping) or not t["values"]:
            raise RecordError(f"{where}: values must map actions to numbers, got {t['values']!r}")
        values = {}
        for key, v in t["values"].items():
            try:
                a = parse_action(key)
            except ValueError as e:
                raise RecordError(f"{where}: {e}") from None
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise RecordError(f"{where}: the value of {key} must be a finite number, got {v!r}")
            values[a] = float(v)
        out[d] = {"seat": t["seat"], "agent": str(t.get("agent", "agent")), "kind": t["kind"], "values": values}
    return out
