"""Keep renderers to one fused loop over the pixels.

XLA fuses elementwise producers into their consumers, so a value computed
per image column ([W]) and broadcast over the rows would be recomputed for
every pixel of the fused frame loop. ``materialise`` computes such values
once into memory: a reduction is not fused into its consumers (and
``jax.lax.optimization_barrier`` is dropped by XLA on CPU), so the values'
bits are stacked on a leading axis with zeros and OR-reduced over that axis,
which returns them exactly (bit for bit). XLA's own reduction loop takes the
stacking in as one fused pass (a max reduction goes to a library kernel that
reads a separately written stack: 1.3x slower over the whole frame). The
values go in groups of a few (``_GROUP``) per reduction. On a GPU XLA fuses
such a small reduction into its consumers after all (a heights frame then
recomputed its columns' ground colours and sprites per pixel: 1.9 ms of a
2.6 ms step at batch 1024 on an H200), so the result also passes through
``optimization_barrier``, which the GPU compiler keeps.
``words_to_bytes`` splits packed colours into RGB bytes at the very end, so
the pixel loop runs once per pixel, not once per channel.
"""
from __future__ import annotations

from typing import Sequence, TypeVar

import jax
import jax.numpy as jnp

T = TypeVar("T")
#: values stacked per reduction: XLA's CPU concatenate of many operands is slow, and one
#: reduction per value adds a buffer per value to the frame loop (4 measured fastest)
_GROUP = 4


def materialise(values: T) -> T:
    """The same arrays (a tuple or NamedTuple of one shape), computed once into memory.

    uint32 arrays stay uint32 (e.g. packed colours); anything else comes back as float32.
    """
    values_list: Sequence = [jnp.asarray(v) for v in values]
    words = [v.dtype == jnp.uint32 for v in values_list]
    bits = [v if w else jax.lax.bitcast_convert_type(v.astype(jnp.float32), jnp.uint32)
            for v, w in zip(values_list, words)]
    parts = []
    for start in range(0, len(bits), _GROUP):
        group = jnp.stack(bits[start:start + _GROUP], axis=0)  # [G, ...]
        group = jax.lax.reduce(jnp.stack([group, jnp.zeros_like(group)], axis=0), jnp.uint32(0),
                               jax.lax.bitwise_or, (0,))
        parts += [group[i] for i in range(group.shape[0])]
    parts = jax.lax.optimization_barrier(parts)
    parts = [p if w else jax.lax.bitcast_convert_type(p, jnp.float32) for p, w in zip(parts, words)]
    return type(values)(*parts) if hasattr(values, "_fields") else type(values)(parts)


def words_to_bytes(words: jnp.ndarray, n: int) -> jnp.ndarray:
    """uint32[...] -> uint8[..., n] with byte k = bits 8k..8k+7 (independent of byte order)."""
    shifts = jnp.arange(n, dtype=jnp.uint32) * 8
    return ((words[..., None] >> shifts) & 0xFF).astype(jnp.uint8)

