"""Cheap counter-based random words for generators (pure jnp uint32 arithmetic).

Generators draw a couple of seed words per episode with ``jax.random.bits``
and derive every other random number from them here: a 32-bit avalanche hash
of (seed, stream, counter). On a CPU, threefry for every node of every loop
iteration would cost more than the rest of a maze generator; this is a few
fused integer ops. Deterministic: the same seed words give the same numbers,
jitted or not, at any batch size.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

_GOLDEN = 0x9E3779B9


def _avalanche(x: jnp.ndarray) -> jnp.ndarray:
    """uint32 -> uint32 bijection in which every input bit flips about half the output bits."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def hash_words(seed: jnp.ndarray, stream: int, counter: jnp.ndarray) -> jnp.ndarray:
    """Random uint32 words, one per counter value.

    seed: uint32[2] (from ``jax.random.bits(key, (2,), jnp.uint32)``);
    stream: a static int naming the use (different streams are independent);
    counter: uint32[...] distinct per draw within a stream. Returns uint32[...].
    """
    seed = jnp.asarray(seed, jnp.uint32)
    counter = jnp.asarray(counter, jnp.uint32)
    base = seed[0] + jnp.uint32((stream * _GOLDEN) & 0xFFFFFFFF)
    return _avalanche(_avalanche(counter + base) ^ seed[1])


def uniform_below(words: jnp.ndarray, n) -> jnp.ndarray:
    """int32[...] in [0, n) from uint32 words (n: int or int array, 1 <= n <= 65535)."""
    n = jnp.asarray(n).astype(jnp.uint32)
    return (((words >> 16) * n) >> 16).astype(jnp.int32)


def unit_interval(words: jnp.ndarray) -> jnp.ndarray:
    """float32[...] in [0, 1) from uint32 words (their top 24 bits)."""
    return (words >> 8).astype(jnp.float32) * jnp.float32(1.0 / (1 << 24))


def key_words(key) -> jnp.ndarray:
    """uint32[2]: the words of a PRNG ``key`` (typed or raw uint32[2]), to seed ``hash_words`` with no
    threefry call (a key's words are as random as the words ``jax.random.bits`` would draw from it)."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return jax.random.key_data(key)
    return jnp.asarray(key, jnp.uint32)


def standard_normal(first: jnp.ndarray, second: jnp.ndarray) -> jnp.ndarray:
    """float32[...] standard normal draws from two uint32 word arrays of one shape (Box-Muller)."""
    radius = jnp.sqrt(-2.0 * jnp.log(1.0 - unit_interval(first)))
    return radius * jnp.cos(2.0 * jnp.pi * unit_interval(second))
