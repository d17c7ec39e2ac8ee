"""Small gymnax-style spaces: ``Discrete``, ``Box`` and ``Dict``.

They describe actions and observations for ``GymnaxAdapter`` with the
attributes PureJaxRL-style code reads (``n``, ``shape``, ``dtype``,
``low``/``high``, ``spaces``) and jit-safe ``sample(key)``/``contains(x)``.
"""
from __future__ import annotations

from typing import Any, Dict as TDict, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.types import ArraySpec, BoundedArraySpec, DiscreteArraySpec


class Discrete:
    """The integers ``0 .. n-1`` as an int32[] scalar."""

    def __init__(self, n: int, dtype=jnp.int32):
        if int(n) < 1:
            raise ValueError(f"Discrete needs n >= 1, got {n}")
        self.n = int(n)
        self.shape: Tuple[int, ...] = ()
        self.dtype = dtype

    def sample(self, key: jax.Array) -> jnp.ndarray:
        """A uniformly random element: int32[]."""
        return jax.random.randint(key, self.shape, 0, self.n).astype(self.dtype)

    def contains(self, x) -> jnp.ndarray:
        """bool[]: ``x`` is an integer in ``[0, n)``."""
        x = jnp.asarray(x)
        integral = jnp.issubdtype(x.dtype, jnp.integer)
        return jnp.logical_and(jnp.bool_(integral), (x >= 0) & (x < self.n))

    def __repr__(self) -> str:
        return f"Discrete({self.n})"


class Box:
    """An array of ``shape`` and ``dtype`` with elementwise bounds ``low``..``high`` (inclusive).

    ``low``/``high`` are scalars or arrays broadcastable to ``shape``; infinite
    bounds mean unbounded (floats only).
    """

    def __init__(self, low, high, shape: Tuple[int, ...], dtype=jnp.float32):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.low = np.broadcast_to(np.asarray(low), self.shape)
        self.high = np.broadcast_to(np.asarray(high), self.shape)

    def sample(self, key: jax.Array) -> jnp.ndarray:
        """A random element: uniform over the bounds (integers inclusive of
        ``high``); a standard normal on unbounded float axes."""
        if jnp.issubdtype(self.dtype, jnp.integer):
            value = jax.random.randint(key, self.shape, self.low.astype(np.int64),
                                       self.high.astype(np.int64) + 1, dtype=jnp.int32)
            return value.astype(self.dtype)
        k_uniform, k_normal = jax.random.split(key)
        finite = np.isfinite(self.low) & np.isfinite(self.high)
        low = np.where(finite, self.low, 0.0).astype(np.float32)
        high = np.where(finite, self.high, 1.0).astype(np.float32)
        uniform = jax.random.uniform(k_uniform, self.shape, jnp.float32, low, high)
        normal = jax.random.normal(k_normal, self.shape, jnp.float32)
        return jnp.clip(jnp.where(finite, uniform, normal), self.low, self.high).astype(self.dtype)

    def contains(self, x) -> jnp.ndarray:
        """bool[]: ``x`` has this shape and every element lies within the bounds."""
        x = jnp.asarray(x)
        if x.shape != self.shape:
            return jnp.bool_(False)
        return jnp.all((x >= self.low) & (x <= self.high))

    def __repr__(self) -> str:
        return f"Box(shape={self.shape}, dtype={np.dtype(self.dtype).name})"


class Dict:
    """A dict of named spaces; samples and elements are dicts with the same keys."""

    def __init__(self, spaces: TDict[str, Any]):
        self.spaces = dict(spaces)

    def sample(self, key: jax.Array) -> TDict[str, jnp.ndarray]:
        """One sample per sub-space, each from its own split of ``key``."""
        keys = jax.random.split(key, len(self.spaces))
        return {name: space.sample(k) for (name, space), k in zip(self.spaces.items(), keys)}

    def contains(self, x) -> jnp.ndarray:
        """bool[]: ``x`` has exactly these keys and every entry is in its sub-space."""
        if not isinstance(x, dict) or set(x) != set(self.spaces):
            return jnp.bool_(False)
        return jnp.all(jnp.stack([self.spaces[name].contains(x[name]) for name in self.spaces]))

    def __repr__(self) -> str:
        return f"Dict({self.spaces!r})"


def space_from_spec(spec: ArraySpec):
    """The space of a jaxlab spec: Discrete for DiscreteArraySpec, a bounded
    Box for BoundedArraySpec, for uint8 arrays Box(0, 255), else an unbounded Box."""
    if isinstance(spec, DiscreteArraySpec):
        return Discrete(spec.num_values, spec.dtype)
    if isinstance(spec, BoundedArraySpec):
        return Box(spec.minimum, spec.maximum, spec.shape, spec.dtype)
    dtype = np.dtype(spec.dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return Box(info.min, info.max, spec.shape, spec.dtype)
    return Box(-np.inf, np.inf, spec.shape, spec.dtype)
