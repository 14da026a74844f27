"""A rule system's face in the incremental observation: the cells it follows, event by event.

The tracker of rules with extension systems (:class:`~bm_env.env.feature_tracker.FeatureTracker`)
writes what every system shares (card planes that count copies, each pass pick to its receiver,
the trick, the points as each row knows them, the phase) and hands each event of a deal to the
faces of the systems in use. A system's face is the class ``FACE`` of its module
``bm_env.systems.<name>.tracker`` (on the environment's layer, beside the system's registration),
a :class:`TrackerFace` that overrides the events it follows:

- ``started(tracker, deal)``: a deal has begun; its rows hold the opening (the reference encoding of
  the deal's start, built once per seating, dealer, phase and pass) and the hands;
- ``trick_over(tracker, deal)``: a trick has left the table (won, or left there for the next winner);
- ``passes_moved(tracker, deal)``: every player has passed and the cards have reached their receivers;
- ``phase_changed(tracker, deal)``: the deal has entered ``deal.phase``;
- ``decided(tracker, deal, p, phase, action)``: position ``p`` took ``action`` in ``phase``, one of
  the face's ``decided_in``; it comes after the decision's other events;
- ``deal_over(tracker, deal)``: the deal has ended, after its last decision or by a renege (which
  has no other event).

The tracker calls a face only at the events it overrides, so a system pays for what it follows.
A face's constructor works out, once per rules, where its cells are (``tracker.at``,
``tracker.about``, ``tracker.plane``, ``tracker.offsets``); at an event it writes them through
``tracker.cells`` (``tracker.view`` for runs) and the tracker's helpers (``write_plane``,
``write_hand`` for cards that enter or leave a hand outside a card played or a pass,
``sync_points`` for points taken outside a trick). Copies of a tracker share its faces (they are
tables, like the cell positions), so a face keeps no state of its own: what it has shown is in
the rows, which it may read back.

A system in use that writes state cells (its ``encode_state``) and has no tracker module gets
:class:`Reencoded`, which rewrites its parts from the reference encoder at a deal's start, after
every decision and at its end: slow (an information state and an encoding per seat and
decision), but right from the first version of a new system, and a reference to write its own
face against (``tests/test_env_faces.py`` plays it in place of each face). A system whose cells
are all rules (in the opening rows of every deal) has nothing to follow and needs no face.
"""

from __future__ import annotations

import importlib

from ..engine.deal import Deal
from ..engine.infostate import information_state
from ..systems import component  # RuleSystem by its module: the reference documents it there and re-exported
from .feature_tracker import FeatureTracker
from .observation import encode, features, offsets


class TrackerFace:
    """A rule system's part in the incremental observation (see the module docstring). The events
    do nothing here: a face overrides those it follows."""

    #: Whether the system lets a hand hold two copies of a card: card planes count copies (0, 1 or 2),
    #: so that a hand plane cannot serve as the legal-action mask.
    holds_copies = False
    #: The phases whose decisions the face follows with :meth:`decided`.
    decided_in: tuple[str, ...] = ()

    def __init__(self, tracker: FeatureTracker, system: component.RuleSystem) -> None:
        """Work out where the face's cells are in ``tracker``'s rows (``system``: the face's own)."""

    def __eq__(self, other: object) -> bool:
        # A face is its tables: two built for the same rules are the same face (a tracker's copy
        # takes its faces from a fresh tracker of those rules).
        return type(other) is type(self) and vars(other) == vars(self)

    def started(self, tracker: FeatureTracker, deal: Deal) -> None:
        """A deal has begun: its rows hold the opening and the hands."""

    def trick_over(self, tracker: FeatureTracker, deal: Deal) -> None:
        """A trick has left the table."""

    def passes_moved(self, tracker: FeatureTracker, deal: Deal) -> None:
        """Every player has passed: the cards are with their receivers, whose planes the tracker has rewritten."""

    def phase_changed(self, tracker: FeatureTracker, deal: Deal) -> None:
        """The deal has entered ``deal.phase``."""

    def decided(self, tracker: FeatureTracker, deal: Deal, p: int, phase: str, action: int) -> None:
        """Position ``p`` took ``action`` in ``phase`` (one of :attr:`decided_in`)."""

    def deal_over(self, tracker: FeatureTracker, deal: Deal) -> None:
        """The deal has ended (after its last decision's events, or by a renege, without them)."""


def follows(face: TrackerFace, event: str) -> bool:
    """Whether ``face`` overrides ``event``: the tracker calls a face only where it does something."""
    return getattr(type(face), event) is not getattr(TrackerFace, event)


class Reencoded(TrackerFace):
    """A system's parts (and :attr:`also`, the classic parts it changes) rewritten from the reference
    encoder at a deal's start, after every decision and at its end: the face of a system without one
    of its own.

    A system's tracker module may name it as its ``FACE`` (a subclass listing :attr:`also`) while its
    own incremental face is to come.
    """

    #: Classic parts of the deal the system changes too (a hand plane, the points), rewritten with its own.
    also: tuple[str, ...] = ()

    def __init__(self, tracker: FeatureTracker, system: component.RuleSystem) -> None:
        rules = tracker.rules
        n = tracker.n
        feats = features(rules)
        o = offsets(n, feats)
        names = [name for name, _, _ in system.parts(n, feats)] + list(self.also)
        #: Per observer, (where each part starts in the flat rows, the part's slice of a vector).
        self._spans = tuple(tuple((tracker.at(me, name), o[name]) for name in names) for me in range(n))
        self.decided_in = tracker.phases

    def _rewrite(self, tracker: FeatureTracker, deal: Deal) -> None:
        view = tracker.view
        for me, spans in enumerate(self._spans):
            vec = encode(information_state(deal, me))
            for start, part in spans:
                view[start:start + part.stop - part.start] = vec[part].tobytes()

    def started(self, tracker: FeatureTracker, deal: Deal) -> None:
        """The system's cells at the deal's start."""
        self._rewrite(tracker, deal)

    def decided(self, tracker: FeatureTracker, deal: Deal, p: int, phase: str, action: int) -> None:
        """The system's cells after any decision, in any phase."""
        self._rewrite(tracker, deal)

    def deal_over(self, tracker: FeatureTracker, deal: Deal) -> None:
        """The system's cells once the deal is over (a renege ends it without a decision's events)."""
        self._rewrite(tracker, deal)


def _writes_state(system: component.RuleSystem) -> bool:
    """Whether ``system`` has state cells (an ``encode_state`` of its own): without, its cells are rules."""
    return system.encode_state is not component.RuleSystem.encode_state


def face_class(system: component.RuleSystem) -> type[TrackerFace] | None:
    """The face of ``system``: the ``FACE`` of its tracker module (``bm_env.systems.<name>.tracker``, the
    package named as the system), else :class:`Reencoded` where the system writes state cells, else None
    (its cells are rules, in the opening rows, and never change)."""
    module = f"bm_env.systems.{system.name}.tracker"
    try:
        return importlib.import_module(module).FACE
    except ModuleNotFoundError as e:
        if not (module == e.name or module.startswith(f"{e.name}.")):  # it is there, but not what it imports
            raise
    return Reencoded if _writes_state(system) else None
