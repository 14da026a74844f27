"""One rule for the values a public face takes: checked where they enter, refused in the same words.

The environment's arguments and reset options, the rules options, a :class:`~bm_env.engine.deal.Deal`'s
hands and the vector engine's arguments check what they are given with these functions before
anything changes, so a bad value is refused in one line that names it, shows what was given and
says what is allowed: ``render_seat must be a seat in 0..2, got 5``. The rule, for every face:

- a whole number (a count, a seat, a seed, a card id, a bit mask of cards) is an ``int`` or a
  numpy integer, and comes back a plain ``int``; a bool is not one (``True`` is not a count),
  nor is a float, even a whole one (``7.7`` is not card 7, and ``4.0`` is not read as 4 either);
  so NaN and infinities are never taken where a whole number is;
- a flag is ``True`` or ``False`` (or a numpy bool), never another value that happens to be
  truthy (``"no"``);
- a choice is one of its listed values, compared by type and value.

Every refusal is a ``ValueError``; a face passes its own subclass where it has one (the rules
pass :class:`RulesError`, defined here so that the rule systems of :mod:`bm_env.systems`
can raise it without the rules module). This module imports only numpy and the standard
library, like the rest of the engine. Numbers a person types (a command-line flag, a config key,
an agent spec's argument) arrive as text or as YAML's numbers and are read by
:func:`bm_env.config.number`, which takes its whole numbers from :func:`is_whole` here.
"""

from __future__ import annotations

import reprlib
from typing import Any, Iterable

import numpy as np

from .cards import NUM_CARDS

#: The largest bit mask of cards: every one of the 52 cards.
MAX_MASK = (1 << NUM_CARDS) - 1


class RulesError(ValueError):
    """A rules object or preset request that cannot be built, with the reason and the allowed values."""


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 6


def shown(value: Any) -> str:
    """``value`` as an error message shows it: its repr, on one line and cut short."""
    return " ".join(line.strip() for line in _SHORT.repr(value).splitlines())


def is_whole(value: Any) -> bool:
    """Whether ``value`` is a whole number by the rule above: an int or numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def whole(name: str, value: Any, low: int | None = None, high: int | None = None,
          error: type[ValueError] = ValueError, what: str | None = None) -> int:
    """``value`` as a plain int, or ``error`` unless it is a whole number in ``low..high``.

    ``what`` names the kind of number in the message (``"a seat"``); the default is "a whole
    number", followed by its range.
    """
    if not is_whole(value) or (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            span = f" in {low}..{high}"
        elif low is not None:
            span = f" of at least {low}"
        elif high is not None:
            span = f" of at most {high}"
        else:
            span = ""
        raise error(f"{name} must be {what or 'a whole number'}{span}, got {shown(value)}")
    return int(value)


def seat(name: str, value: Any, num_seats: int, error: type[ValueError] = ValueError) -> int:
    """A seat (or a deal's position) in ``0..num_seats - 1``, as a plain int."""
    return whole(name, value, 0, num_seats - 1, error, "a seat")


def card_id(name: str, value: Any, error: type[ValueError] = ValueError) -> int:
    """A card id in ``0..51``, as a plain int."""
    return whole(name, value, 0, NUM_CARDS - 1, error, "a card id")


def card_mask(name: str, value: Any, error: type[ValueError] = ValueError) -> int:
    """A bit mask of cards (bit ``c`` set: card ``c`` in the set), as a plain int."""
    if not is_whole(value) or not 0 <= value <= MAX_MASK:
        raise error(f"{name} must be a bit mask of cards, a whole number in 0..2**52 - 1, got {shown(value)}")
    return int(value)


def is_sequence(value: Any) -> bool:
    """Whether ``value`` is a list, a tuple or a numpy array of at least one dimension (not a string, not a 0-d array)."""
    return isinstance(value, (list, tuple)) or isinstance(value, np.ndarray) and value.ndim > 0


def flag(name: str, value: Any, error: type[ValueError] = ValueError) -> bool:
    """``True`` or ``False`` (a numpy bool too), as a plain bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def choice(name: str, value: Any, allowed: Iterable[Any], error: type[ValueError] = ValueError) -> Any:
    """The member of ``allowed`` that ``value`` is (same type, equal), or ``error`` listing them."""
    allowed = list(allowed)
    for a in allowed:
        if isinstance(value, type(a)) and not isinstance(value, np.ndarray) and value == a:
            return a
    raise error(f"{name}={shown(value)} is not allowed; allowed: {allowed}")


def plain(value: Any) -> Any:
    """``value`` with numpy scalars as the Python values they stand for (in lists, tuples and dicts too).

    A numpy integer is an int by the rule above, a numpy bool a bool; nothing else changes, so
    a numpy float stays a float and is refused wherever a whole number is wanted.
    """
    if isinstance(value, np.generic) and not isinstance(value, np.floating):
        return value.item()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    return value


def card_mask_array(name: str, value: Any, error: type[ValueError] = ValueError) -> np.ndarray:
    """An array of bit masks of cards as uint64, or ``error``: whole numbers in ``0..2**52 - 1`` only.

    A float array is refused rather than truncated, and a negative mask rather than wrapped.
    """
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as e:  # ragged nesting, an object numpy cannot hold
        raise error(f"{name} must be an array of bit masks of cards, got {shown(value)} ({e})") from None
    if a.dtype == object:  # Python ints beyond int64, or mixed values: each is checked
        items = [card_mask(f"{name} entries", v, error) for v in a.reshape(-1)]
        return np.array(items, dtype=np.uint64).reshape(a.shape)
    if a.dtype.kind not in "iu":
        raise error(f"{name} must hold whole-number bit masks of cards (uint64), got dtype {a.dtype}")
    if a.dtype.kind == "i" and (a < 0).any():
        raise error(f"{name} must hold bit masks of cards, whole numbers in 0..2**52 - 1, got {int(a[a < 0][0])}")
    a = a.astype(np.uint64)
    if (a >> np.uint64(NUM_CARDS)).any():
        raise error(f"{name} must hold bit masks of cards, whole numbers in 0..2**52 - 1, got {int(a[a > MAX_MASK][0])}")
    return a
