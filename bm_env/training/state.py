"""The training state: everything a killed run needs to go on as if it had not stopped.

One ``torch.save`` file per checkpoint (``RUN_DIR/states/state_000040.pt``), loadable with
``weights_only=True`` (no code runs when a file is opened): the networks, the optimiser,
the snapshot pool, the counters, every random generator (torch's, numpy's, the engine's),
the engine's games and the decisions carried between rollouts, the resolved config, the
rules and the observation layout. Numpy arrays are stored as tensors; uint64 arrays (the
engine's card masks) as their int64 view under the key ``"uint64"``, because torch before
2.3 has no uint64 tensors (states written as uint64 tensors still load). Files are written
atomically (a temporary file, then ``os.replace``), so a kill while writing leaves the
previous state whole; the last ``keep`` states are kept. Each state carries the ``digest``
of everything else in it (:func:`bm_env.agents.checkpoint.digest`), which loading checks:
damage that still unpickles (flipped bytes in a weight) is refused as damage. A state
without one (written before states carried it) loads with a warning. A resume refused
because the newest state is damaged names the intact older states it could start from
(:func:`intact_states`).
"""

from __future__ import annotations

import os
import re
import warnings
from typing import Any

import numpy as np
import torch

from bm_env.agents.checkpoint import digest
from bm_env.engine.files import write_atomic
from bm_env.env import observation

FORMAT = "black-maria-training-state"
FORMAT_VERSION = 1
_NAME = re.compile(r"state_(\d{6,})\.pt$")


class TrainingStateError(ValueError):
    """A training state that cannot be resumed here, with the reason."""


_UINT64 = "uint64"


def to_tensors(x: Any) -> Any:
    """Numpy arrays inside nested dicts and lists as tensors (``weights_only`` files hold tensors, not arrays)."""
    if isinstance(x, np.ndarray):
        x = np.ascontiguousarray(x)
        if x.dtype == np.uint64:
            return {_UINT64: torch.from_numpy(x.view(np.int64))}  # bit for bit; see the module docstring
        return torch.from_numpy(x)
    if isinstance(x, dict):
        return {k: to_tensors(v) for k, v in x.items()}
    if isinstance(x, list):
        return [to_tensors(v) for v in x]
    return x


def to_arrays(x: Any) -> Any:
    """The inverse of :func:`to_tensors` (state dicts of networks are left to the caller)."""
    if isinstance(x, torch.Tensor):
        return x.numpy()
    if isinstance(x, dict):
        if x.keys() == {_UINT64}:
            return x[_UINT64].numpy().view(np.uint64)
        return {k: to_arrays(v) for k, v in x.items()}
    if isinstance(x, list):
        return [to_arrays(v) for v in x]
    return x


def state_path(run_dir: str, update: int) -> str:
    return os.path.join(run_dir, "states", f"state_{update:06d}.pt")


def list_states(run_dir: str) -> list[str]:
    """The run's training states, oldest first."""
    folder = os.path.join(run_dir, "states")
    if not os.path.isdir(folder):
        return []
    return [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if _NAME.match(f)]


def save_state(run_dir: str, update: int, payload: dict, keep: int) -> str:
    """Write the state of ``update`` and drop all but the newest ``keep``; returns its path."""
    data = {"format": FORMAT, "format_version": FORMAT_VERSION, "layout_version": observation.LAYOUT_VERSION,
            **payload}
    data["digest"] = digest(data)
    path = state_path(run_dir, update)
    write_atomic(path, lambda f: torch.save(data, f), binary=True)
    for old in list_states(run_dir)[:-keep]:
        os.unlink(old)
    return path


def load_state(path: str) -> dict:
    """A training state, checked for format and layout; refused with a message otherwise."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # a truncated file, a foreign pickle, a file of another kind
        raise TrainingStateError(f"training state {path!r} is damaged or not a training state "
                                 f"({type(e).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TrainingStateError(f"{path!r} is not a {FORMAT} file")
    recorded = data.pop("digest", None)
    if recorded is None:
        warnings.warn(f"training state {path!r} has no digest (it was written before states carried one): damage to "
                      "it cannot be detected", stacklevel=2)
    elif recorded != digest(data):
        raise TrainingStateError(f"training state {path!r} is damaged: its contents do not match the digest they "
                                 "were saved with")
    if data.get("format_version") != FORMAT_VERSION:
        raise TrainingStateError(f"training state {path!r} has format version {data.get('format_version')}; "
                                 f"this version reads {FORMAT_VERSION}")
    if data.get("layout_version") != observation.LAYOUT_VERSION:
        raise TrainingStateError(f"training state {path!r} was made for observation layout "
                                 f"{data.get('layout_version')}; this code uses layout {observation.LAYOUT_VERSION}")
    return data


def latest_state(run_dir: str) -> str:
    """The newest training state of a run folder, or a clear error when there is none."""
    if not os.path.isdir(run_dir):
        raise TrainingStateError(f"run folder {run_dir!r} does not exist")
    states = list_states(run_dir)
    if not states:
        raise TrainingStateError(f"run folder {run_dir!r} holds no training state (states/state_*.pt); "
                                 "nothing to resume")
    return states[-1]


def intact_states(run_dir: str, but: str | None = None) -> list[str]:
    """The run's training states that load (oldest first), leaving out ``but``: where a resume could start
    when the newest state is damaged."""
    out = []
    for path in list_states(run_dir):
        if path == but:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                load_state(path)
        except TrainingStateError:
            continue
        out.append(path)
    return out
