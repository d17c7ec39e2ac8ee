"""Coloured floors: the floor of a room painted in its own colour (DMLab's custom floors, which
the language levels use so that "the blue room" can be seen).

A level with ``Level.floor_rect`` (F > 0) paints the floor inside each rectangle in its
``floor_rect_rgb``, with the theme floor's tiles, joints and distance shading; elsewhere the
theme's floor stays. Each floor pixel tests its point against the F rectangles (four compares
each, fused into the pixel loop): no per-pixel gather, and only such levels pay for it.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab.level import Level


def floor_paint(level: Level, wx, wy, on_floor, brightness):
    """Where and how the floor is painted.

    wx, wy: float32[H, W] world position (units) of each pixel's floor point; on_floor: bool[H, W]
    the pixel shows the floor (not the ceiling); brightness: float32[H, W] the theme floor's
    brightness there (distance shade times the tile's checker or joint level, 0..1).
    Returns (painted bool[H, W], r, g, b float32[H, W] 0..255 before packing).
    """
    rect, rgb = jnp.asarray(level.floor_rect, jnp.float32), level.floor_rect_rgb.astype(jnp.float32)
    painted = jnp.zeros(wx.shape, bool)
    r = g = b = jnp.zeros(wx.shape, jnp.float32)
    for f in range(rect.shape[0]):   # static: a level's few rooms
        inside = (wx >= rect[f, 0]) & (wx < rect[f, 2]) & (wy >= rect[f, 1]) & (wy < rect[f, 3])
        painted = painted | inside
        r, g, b = (jnp.where(inside, rgb[f, k], c) for k, c in enumerate((r, g, b)))
    painted = painted & on_floor
    return painted, r * brightness, g * brightness, b * brightness
