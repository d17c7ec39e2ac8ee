"""Lab2D's ``tile.Scene``: sprite ids of a layer view painted with a tile set's images.

A tile set is an atlas: ``rgb`` uint8[N, h, w, 3] and ``alpha`` uint8[N, h, w] per sprite id (id 0 and
any id without an image: fully transparent). A cell's layers are blended in order over black, each
pixel as Lab2D does it: ``(below * (255 - a) + above * a + 127) // 255``.
"""
from __future__ import annotations

import jax.numpy as jnp


def render(ids: jnp.ndarray, rgb: jnp.ndarray, alpha: jnp.ndarray) -> jnp.ndarray:
    """``scene:render(ids)``: uint8[H * h, W * w, 3] of ids int32[H, W, L] (ids outside the atlas are
    skipped, as Lab2D skips them)."""
    height, width, layers = ids.shape
    n, h, w, _ = rgb.shape
    out = jnp.zeros((height, width, h, w, 3), jnp.uint32)
    for layer in range(layers):
        k = ids[:, :, layer]
        valid = (k >= 0) & (k < n)
        k = jnp.clip(k, 0, n - 1)
        a = jnp.where(valid[:, :, None, None], alpha[k].astype(jnp.uint32), 0)[..., None]
        out = (out * (255 - a) + rgb[k].astype(jnp.uint32) * a + 127) // 255
    return out.astype(jnp.uint8).transpose(0, 2, 1, 3, 4).reshape(height * h, width * w, 3)
