"""The level data of a Lab2D raw-API script (one with ``advance``, ``observation`` and the
``*Actions`` callbacks instead of a ``world`` table): its specs and its start values.

The script's callbacks themselves are JAX functions made by ``compile_lua.lab2d.raw``; this is what
the env (``jaxlab.kernels.lab2d_raw``) needs besides them, as plain host data.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, Tuple

#: the observation types of Lab2D's ``observationSpec`` that compile, and their tensor kinds
OBSERVATION_KINDS = {"tensor.ByteTensor": "Byte", "tensor.Int32Tensor": "Int32", "tensor.Int64Tensor": "Int64",
                     "tensor.DoubleTensor": "Double", "Bytes": "Byte", "Int32s": "Int32", "Int64s": "Int64",
                     "Doubles": "Double"}


@dataclasses.dataclass(frozen=True)
class RawObservation:
    """One entry of ``observationSpec``: ``name``, tensor ``kind`` (``Byte``/``Int32``/``Int64``/
    ``Double``, see ``jaxlab.kernels.lab2d_tensor.kinds``) and ``shape`` (a tuple of ints)."""

    name: str
    kind: str
    shape: Tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class RawAction:
    """One entry of ``discreteActionSpec`` (integer bounds) or ``continuousActionSpec`` (float bounds):
    ``name`` and inclusive bounds ``minimum``..``maximum``."""

    name: str
    minimum: float
    maximum: float


@dataclasses.dataclass(frozen=True)
class RawSpec:
    """A raw-API level: ``name`` (its script), ``observations``, ``actions`` (discrete) and
    ``continuous`` (continuous actions) in the script's order, and ``start``: the script's play-time
    variables after ``init`` and ``start`` ran on the host (state key -> numpy array, see
    ``compile_lua.device``), where every episode begins."""

    name: str
    observations: Tuple[RawObservation, ...]
    actions: Tuple[RawAction, ...]
    continuous: Tuple[RawAction, ...]
    start: Dict[str, Any]
