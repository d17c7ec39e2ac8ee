"""Per-episode looks of generated levels: a visual theme and distinct object looks (jit-safe)."""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.object_catalogue import (NUM_OBJECT_COLOURS, NUM_OBJECT_PATTERNS, NUM_OBJECT_SHAPES,
                                                  object_kind)
from jaxlab.levels.dmlab.themes import NUM_LEVEL_THEMES


def episode_theme(key: jax.Array, shape: Tuple[int, int]):
    """A random level theme: (theme int32[] in [1, NUM_LEVEL_THEMES), variation int8[H, W] all 0,
    so the walls take the theme's own look)."""
    theme = jax.random.randint(key, (), 1, NUM_LEVEL_THEMES, dtype=jnp.int32)
    return theme, jnp.zeros(shape, jnp.int8)


def category_looks(key: jax.Array, n: int) -> jnp.ndarray:
    """int32[n] PICKUP_TYPES kinds of ``n`` (static) objects that differ in shape or colour (each
    (shape, colour) pair at most once), with a random pattern each."""
    pairs = NUM_OBJECT_SHAPES * NUM_OBJECT_COLOURS
    if n > pairs:
        raise ValueError(f"at most {pairs} distinct object looks, asked for {n}")
    k_pair, k_pattern = jax.random.split(key)
    pair = jax.random.permutation(k_pair, pairs)[:n]
    pattern = jax.random.randint(k_pattern, (n,), 0, NUM_OBJECT_PATTERNS)
    return object_kind(pair // NUM_OBJECT_COLOURS, pair % NUM_OBJECT_COLOURS, pattern).astype(jnp.int32)
