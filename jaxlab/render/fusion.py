"""Keep renderers to one fused loop over the pixels.

XLA fuses elementwise producers into their consumers, so a value computed
per image column ([W]) and broadcast over the rows would be recomputed for
every pixel of the fused frame loop. ``materialise`` computes such values
once into memory: a reduction is not fused into its consumers (and
``jax.lax.optimization_barrier`` is dropped by XLA on CPU), so the values
are stacked on a leading axis with a copy of -inf and reduced with max over
that axis, which returns them exactly (bit for bit); reducing a leading axis
is one contiguous vectorised pass (a trailing pair axis was ~10x slower).
``words_to_bytes`` splits packed colours into RGB bytes at the very end, so
the pixel loop runs once per pixel, not once per channel.
"""
from __future__ import annotations

from typing import Sequence, TypeVar

import jax.numpy as jnp

T = TypeVar("T")


def materialise(values: T) -> T:
    """The same float32 arrays (a tuple or NamedTuple of one shape), computed once into memory."""
    values_list: Sequence = list(values)
    fields = jnp.stack([jnp.asarray(v, jnp.float32) for v in values_list], axis=0)  # [F, ...]
    out = jnp.max(jnp.stack([fields, jnp.full_like(fields, -jnp.inf)], axis=0), axis=0)
    parts = [out[i] for i in range(len(values_list))]
    return type(values)(*parts) if hasattr(values, "_fields") else type(values)(parts)


def words_to_bytes(words: jnp.ndarray, n: int) -> jnp.ndarray:
    """uint32[...] -> uint8[..., n] with byte k = bits 8k..8k+7 (independent of byte order)."""
    shifts = jnp.arange(n, dtype=jnp.uint32) * 8
    return ((words[..., None] >> shifts) & 0xFF).astype(jnp.uint8)
