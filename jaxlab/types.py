"""Core value types shared by every jaxlab family: time steps and specs."""
from __future__ import annotations

from typing import Any, Dict, Tuple

import jax.numpy as jnp
import numpy as np
from flax import struct


class StepType:
    """dm_env step types as int32 codes (``ts.step_type``)."""

    FIRST = 0
    MID = 1
    LAST = 2


@struct.dataclass
class TimeStep:
    """One step's output, with dm_env meaning; every field is an array.

    step_type: int32[]  FIRST (0), MID (1) or LAST (2).
    reward:    float32[] reward summed over the step's repeated frames.
    discount:  float32[] 0 on termination, 1 otherwise (truncation keeps 1).
    observation: dict name -> array, only the observations asked for.
    extras:    dict with ``terminated`` and ``truncated`` (bool[]).
    """

    step_type: jnp.ndarray
    reward: jnp.ndarray
    discount: jnp.ndarray
    observation: Dict[str, jnp.ndarray]
    extras: Dict[str, jnp.ndarray]

    def first(self) -> jnp.ndarray:
        """bool[]: this step starts an episode."""
        return self.step_type == StepType.FIRST

    def mid(self) -> jnp.ndarray:
        """bool[]: this step is neither the first nor the last."""
        return self.step_type == StepType.MID

    def last(self) -> jnp.ndarray:
        """bool[]: this step ends an episode (terminated or truncated)."""
        return self.step_type == StepType.LAST


@struct.dataclass
class ArraySpec:
    """Shape, dtype and name of an array (static, host-side)."""

    shape: Tuple[int, ...] = struct.field(pytree_node=False)
    dtype: Any = struct.field(pytree_node=False)
    name: str = struct.field(pytree_node=False, default="")

    def as_dict(self) -> Dict[str, Any]:
        """DMLab-style ``{'name', 'shape', 'dtype'}`` description."""
        return {"name": self.name, "shape": tuple(self.shape), "dtype": np.dtype(self.dtype).type}

    def validate(self, value) -> np.ndarray:
        """Host check: raise ValueError unless ``value`` has this shape and dtype."""
        arr = np.asarray(value)
        if arr.shape != tuple(self.shape):
            raise ValueError(f"{self.name or 'value'}: expected shape {tuple(self.shape)}, got {arr.shape}")
        if arr.dtype != np.dtype(self.dtype):
            raise ValueError(f"{self.name or 'value'}: expected dtype {np.dtype(self.dtype).name}, got {arr.dtype.name}")
        return arr


@struct.dataclass
class BoundedArraySpec(ArraySpec):
    """An ArraySpec with inclusive per-element bounds ``minimum``/``maximum``."""

    minimum: Any = struct.field(pytree_node=False, default=None)
    maximum: Any = struct.field(pytree_node=False, default=None)
    element_names: Tuple[str, ...] = struct.field(pytree_node=False, default=())
    #: NaN is a meaningful value, not a fault (dm_memorytasks' "no new value: keep the held one")
    nan_allowed: bool = struct.field(pytree_node=False, default=False)

    def elements(self):
        """One ``{'name', 'min', 'max'}`` dict per element of a 1-D spec (DMLab's action_spec form)."""
        lo = np.broadcast_to(np.asarray(self.minimum), self.shape)
        hi = np.broadcast_to(np.asarray(self.maximum), self.shape)
        names = self.element_names or tuple(f"{self.name}[{i}]" for i in range(self.shape[0]))
        return [{"name": n, "min": lo[i].item(), "max": hi[i].item()} for i, n in enumerate(names)]

    def validate(self, value) -> np.ndarray:
        """Host check of shape, dtype and bounds; raises ValueError naming the element."""
        arr = super().validate(value)
        lo = np.broadcast_to(np.asarray(self.minimum), arr.shape)
        hi = np.broadcast_to(np.asarray(self.maximum), arr.shape)
        outside = (arr < lo) | (arr > hi)
        bad = np.argwhere(outside)
        if outside.any():
            i = tuple(bad[0]) if arr.ndim else ()
            raise ValueError(f"{self.element_label(i)} = {arr[i]} is outside [{lo[i]}, {hi[i]}]")
        return arr

    def element_label(self, index: Tuple[int, ...]) -> str:
        """The name of the element at ``index`` (a tuple of ints, () for a scalar spec): its
        ``element_names`` entry in a 1-D spec that has them, else ``name[i, j]`` (``name`` for a scalar)."""
        if not index:
            return self.name or "value"
        if self.element_names and len(index) == 1:
            return self.element_names[index[0]]
        return f"{self.name or 'value'}[{', '.join(map(str, index))}]"


@struct.dataclass
class DiscreteArraySpec(BoundedArraySpec):
    """A scalar int32 in ``[0, num_values)``."""

    num_values: int = struct.field(pytree_node=False, default=0)
