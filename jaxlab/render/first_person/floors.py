"""Coloured floors: the floor of a room painted in its own colour (DMLab's custom floors, which
the language levels use so that "the blue room" can be seen).

A level with ``Level.floor_coloured`` (V > 0) paints the floor of every cell whose wall variation
v has ``floor_coloured[v]`` in ``floor_rgb[v]``, with the theme floor's tiles, joints and
distance shading; other cells keep the theme's floor. Each floor pixel finds its cell (two
divisions and a gather from the small variation grid), so only such levels pay for it.
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab.level import CELL_SIZE, Level


def floor_paint(level: Level, wx, wy, on_floor, brightness):
    """Where and how the floor is painted.

    wx, wy: float32[H, W] world position (units) of each pixel's floor point; on_floor: bool[H, W]
    the pixel shows the floor (not the ceiling); brightness: float32[H, W] the theme floor's
    brightness there (distance shade times the tile's checker or joint level, 0..1).
    Returns (painted bool[H, W], r, g, b float32[H, W] 0..255 before packing).
    """
    rows, cols = level.variation.shape
    col = jnp.clip(jnp.floor(wx * (1.0 / CELL_SIZE)).astype(jnp.int32), 0, cols - 1)
    row = jnp.clip(level.rows - 1 - jnp.floor(wy * (1.0 / CELL_SIZE)).astype(jnp.int32), 0, rows - 1)
    code = level.variation[row, col].astype(jnp.int32)
    painted = on_floor & level.floor_coloured[code]
    rgb = level.floor_rgb.astype(jnp.float32)[code]
    return painted, rgb[..., 0] * brightness, rgb[..., 1] * brightness, rgb[..., 2] * brightness
