"""A policy checkpoint as a self-contained model file: ONNX or TorchScript, usable without this package.

The exported model is the whole greedy agent, masking included, so a user needs only the
observation vector and the legal-action mask the environment already gives (both int8):

    inputs   ``observation`` int8 ``[batch, obs_size]``, ``action_mask`` int8 ``[batch, num_actions]``
    outputs  ``logits`` float32 ``[batch, num_actions]`` (illegal actions at float32's lowest value)
             ``action`` int64 ``[batch]`` (the best legal action, as ``policy:PATH`` picks it)

The batch size is free. What the model was made for travels inside the file, as the
checkpoint's own metadata (``metadata`` below): the rules (``Rules.to_dict()``), the
observation layout version and size, the number of actions and the training step; in ONNX
as metadata properties (JSON strings), in TorchScript as the extra file ``metadata.json``.
A consumer should check ``layout_version`` and the rules before trusting the actions.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
import warnings
from typing import Any

import torch
from torch import nn

from ..engine.files import write_atomic
from .checkpoint import PolicyNet, load_checkpoint, masked_logits

class ExportError(RuntimeError):
    """An export that cannot be done here (a missing optional package), with what to install."""


#: The name of the metadata file inside a TorchScript export.
TORCHSCRIPT_METADATA = "metadata.json"


class MaskedGreedyPolicy(nn.Module):
    """The network with the mask applied and the argmax taken, so the file is a complete player."""

    def __init__(self, net: PolicyNet) -> None:
        super().__init__()
        self.net = net.requires_grad_(False)  # an inference file: outputs carry no autograd graph
        self.eval()

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = masked_logits(self.net(observation.to(torch.float32)), action_mask != 0)
        return logits, logits.argmax(dim=1)


def metadata(meta: dict[str, Any]) -> dict[str, str]:
    """The checkpoint's description as string key/values (what ONNX metadata properties hold)."""
    return {
        "format": "black-maria-policy-export",
        "rules": json.dumps(meta["rules"].to_dict(), sort_keys=True),
        "layout_version": str(meta["layout_version"]),
        "obs_size": str(meta["obs_size"]),
        "num_actions": str(meta["arch"]["num_actions"]),
        "step": str(meta.get("step", 0)),
        "inputs": "observation int8 [batch, obs_size], action_mask int8 [batch, num_actions]",
        "outputs": "logits float32 [batch, num_actions], action int64 [batch]",
    }


def _example_inputs(net: PolicyNet) -> tuple[torch.Tensor, torch.Tensor]:
    obs = torch.zeros(2, net.arch["obs_size"], dtype=torch.int8)
    mask = torch.ones(2, net.arch["num_actions"], dtype=torch.int8)
    return obs, mask


@contextlib.contextmanager
def _quiet_exporter():
    """Torch's ONNX exporter logs about torchvision and its own deprecations; none of it concerns an MLP."""
    registry = logging.getLogger("torch.onnx._internal.exporter._registration")
    level = registry.level
    registry.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            warnings.filterwarnings("ignore", message=".*axis name.*")
            yield
    finally:
        registry.setLevel(level)


def export_torchscript(checkpoint: str | os.PathLike, out: str | os.PathLike) -> None:
    """Write ``checkpoint`` as a TorchScript module (``torch.jit.load(out)``) with its metadata inside."""
    net, meta = load_checkpoint(checkpoint)
    # Traced, not scripted: the forward pass has no branches, and tracing keeps masked_logits shared.
    module = torch.jit.trace(MaskedGreedyPolicy(net), _example_inputs(net))
    extra = {TORCHSCRIPT_METADATA: json.dumps(metadata(meta), sort_keys=True)}
    write_atomic(out, lambda f: torch.jit.save(module, f, _extra_files=extra), binary=True)


def export_onnx(checkpoint: str | os.PathLike, out: str | os.PathLike) -> None:
    """Write ``checkpoint`` as one ONNX file (weights inside) with a free batch dimension and its metadata.

    Needs the ``export`` extras (``onnx``, ``onnxscript``; ``onnxruntime`` to run the file).
    """
    try:
        import onnx  # noqa: F401  (torch's exporter needs it; fail here with the install line)
        import onnxscript  # noqa: F401
    except ImportError as e:
        raise ExportError(f"ONNX export needs the export extras: pip install 'black-maria[export]' ({e})") from None
    if "dynamo" not in inspect.signature(torch.onnx.export).parameters:
        raise ExportError(f"ONNX export needs torch's dynamo exporter (tested with torch 2.13); torch "
                          f"{torch.__version__}'s torch.onnx.export has no dynamo option. --torchscript works with it")
    net, meta = load_checkpoint(checkpoint)
    batch = torch.export.Dim("batch", min=1)
    with _quiet_exporter():
        program = torch.onnx.export(
            MaskedGreedyPolicy(net), _example_inputs(net), dynamo=True, external_data=False, verbose=False,
            input_names=["observation", "action_mask"], output_names=["logits", "action"],
            dynamic_shapes={"observation": {0: batch}, "action_mask": {0: batch}},
        )
    model = program.model_proto
    for key, value in metadata(meta).items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, value
    write_atomic(out, lambda f: f.write(model.SerializeToString()), binary=True)
