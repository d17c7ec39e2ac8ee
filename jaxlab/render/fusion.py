"""Keep renderers to one fused loop over the pixels.

XLA fuses elementwise producers into their consumers, so a value computed
per image column ([W]) and broadcast over the rows would be recomputed for
every pixel of the fused frame loop. ``materialise`` computes such values
once into memory: a reduction is not fused into its consumers (and
``jax.lax.optimization_barrier`` is dropped by XLA on CPU), so the values'
bits are stacked on a leading axis with zeros and OR-reduced over that axis,
which returns them exactly (bit for bit). XLA's own reduction loop takes the
stacking in as one fused pass (a max reduction goes to a library kernel that
reads a separately written stack: 1.3x slower over the whole frame).
``words_to_bytes`` splits packed colours into RGB bytes at the very end, so
the pixel loop runs once per pixel, not once per channel.
"""
from __future__ import annotations

from typing import Sequence, TypeVar

import jax
import jax.numpy as jnp

T = TypeVar("T")


def materialise(values: T) -> T:
    """The same arrays (a tuple or NamedTuple of one shape), computed once into memory.

    uint32 arrays stay uint32 (e.g. packed colours); anything else comes back as float32.
    """
    values_list: Sequence = [jnp.asarray(v) for v in values]
    words = [v.dtype == jnp.uint32 for v in values_list]
    bits = jnp.stack([v if w else jax.lax.bitcast_convert_type(v.astype(jnp.float32), jnp.uint32)
                      for v, w in zip(values_list, words)], axis=0)  # [F, ...]
    bits = jax.lax.reduce(jnp.stack([bits, jnp.zeros_like(bits)], axis=0), jnp.uint32(0), jax.lax.bitwise_or, (0,))
    parts = [bits[i] if w else jax.lax.bitcast_convert_type(bits[i], jnp.float32) for i, w in enumerate(words)]
    return type(values)(*parts) if hasattr(values, "_fields") else type(values)(parts)


def words_to_bytes(words: jnp.ndarray, n: int) -> jnp.ndarray:
    """uint32[...] -> uint8[..., n] with byte k = bits 8k..8k+7 (independent of byte order)."""
    shifts = jnp.arange(n, dtype=jnp.uint32) * 8
    return ((words[..., None] >> shifts) & 0xFF).astype(jnp.uint8)
