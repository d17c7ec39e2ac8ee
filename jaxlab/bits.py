"""Flags packed 32 to a 32-bit word on device, and what population counts read off them.

On the CPU, a cumulative sum costs a dozen elementwise ops per element and a reduction along the
last axis is not vectorized; packed words and population counts give prefix counts, and the
positions of set flags, for a few vectorized ops each. Packing sums over a leading axis of bits
(``packed_words``), which the CPU vectorizes across the words.
"""
from __future__ import annotations

from typing import Tuple

import jax.numpy as jnp
import numpy as np
from jax import lax


def packed_words(flags: jnp.ndarray, spare: bool = True) -> jnp.ndarray:
    """uint32[..., W]: ``flags`` (bool[..., N]) packed along the last axis, flag i in bit i % 32 of
    word i // 32; W = N // 32 + 1 with ``spare`` (the last word always has room, so position N can
    be read too), else ceil(N / 32)."""
    n = flags.shape[-1]
    words = n // 32 + 1 if spare else -(-n // 32)
    pad = [(0, 0)] * (flags.ndim - 1) + [(0, 32 * words - n)]
    bits = jnp.swapaxes(jnp.pad(flags, pad).reshape(flags.shape[:-1] + (words, 32)), -1, -2).astype(jnp.uint32)
    return jnp.sum(bits << jnp.arange(32, dtype=jnp.uint32)[:, None], axis=-2, dtype=jnp.uint32)


def counts_before(flag: jnp.ndarray) -> jnp.ndarray:
    """int32[N]: the count of ``flag`` (bool[N]) before each position. The flags are packed 32 to a word
    and counted with a population count."""
    n = flag.shape[0]
    packed = packed_words(flag, spare=False)
    per_word = lax.population_count(packed).astype(jnp.int32)
    lower = np.uint32((1 << np.arange(32)) - 1)   # the bits of a word below each position
    in_word = lax.population_count(packed[:, None] & lower).astype(jnp.int32)
    return ((jnp.cumsum(per_word) - per_word)[:, None] + in_word).reshape(-1)[:n]


def set_bits(flag: jnp.ndarray, m: int) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """(int32[m]: the positions of the first m set flags of ``flag`` (bool[N]) in order, 0 past the
    last; int32[]: how many are set). Flags are packed into words; slot j finds its word by the
    words' counts, and its bit in the word by a binary search on population counts: elementwise
    work on m slots, no scatter."""
    packed = packed_words(flag, spare=False)
    words = packed.shape[0]
    counts = lax.population_count(packed).astype(jnp.int32)
    j = jnp.arange(m, dtype=jnp.int32)
    word, rank, before = jnp.zeros(m, jnp.uint32), j, 0
    index = jnp.zeros(m, jnp.int32)
    for w in range(words):  # slot j lies in word w when the words before hold at most j set flags
        here = j >= before
        word, rank = jnp.where(here, packed[w], word), jnp.where(here, j - before, rank)
        index = jnp.where(here, w, index)
        before = before + counts[w]
    bit = jnp.zeros(m, jnp.uint32)
    for step in (16, 8, 4, 2, 1):  # the highest bit position with at most ``rank`` set flags below it
        probe = bit + step
        below = lax.population_count(word & ((jnp.uint32(1) << probe) - jnp.uint32(1))).astype(jnp.int32)
        bit = jnp.where(below <= rank, probe, bit)
    found = j < before
    return jnp.where(found, index * 32 + bit.astype(jnp.int32), 0), before
