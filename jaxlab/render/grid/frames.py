"""Observations of a grid world: WORLD.RGB, WORLD.LAYER, per-player windows, WORLD.TEXT.

Sprites are composited layer by layer in render order (later layers on top;
transparent pixels show what lies below, black where nothing does). A
player's window is rotated so that its avatar faces up; cells beyond a bounded
world's edge are black.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.lab2d.compiled import CompiledGrid, locate


def _visible_layers(world: CompiledGrid):
    """Indices of layers that hold at least one visible state."""
    return [l for l in range(len(world.layers)) if world.visible[world.state_layer == l].any()]


def _paint(world: CompiledGrid, cells: jnp.ndarray, rotation) -> jnp.ndarray:
    """uint8[h·s, w·s, 3]: sprites of ``cells`` (int32[L, h, w] state ids),
    rotated by ``rotation`` (int, or int32[] orientation) quarter turns.

    With an Appearance table a cell's layers are one look, and the image is
    one gather of sprite pixel rows; otherwise layers are composited here.
    """
    _, h, w = cells.shape
    s = world.spec.sprite_size
    look = world.appearance
    if look is not None:
        combo = sum(jnp.asarray(look.local[i])[cells[l]] * int(look.stride[i]) for i, l in enumerate(look.layers))
        first = rotation * (look.rows.shape[0] // 4) + combo if look.layers else jnp.zeros((h, w), jnp.int32)
        image = jnp.asarray(look.rows)[first[:, None, :], jnp.arange(s)[None, :, None]]   # [h, s, w, 3s]
        return image.reshape(h * s, w * s, 3)
    sprites = jnp.asarray(world.sprites)[rotation]      # [S, s, s, 3]
    alpha = jnp.asarray(world.alpha)[rotation]          # [S, s, s]
    image = jnp.zeros((h, w, s, s, 3), jnp.uint8)
    for l in _visible_layers(world):
        ids = cells[l]
        image = jnp.where(alpha[ids][..., None], sprites[ids], image)
    return image.transpose(0, 2, 1, 3, 4).reshape(h * s, w * s, 3)


def world_rgb(world: CompiledGrid, grid: jnp.ndarray) -> jnp.ndarray:
    """WORLD.RGB: uint8[H·s, W·s, 3] of the whole grid (s = sprite size)."""
    return _paint(world, grid, 0)


def world_layer(grid: jnp.ndarray) -> jnp.ndarray:
    """WORLD.LAYER: int32[H, W, L] state ids per cell and layer."""
    return jnp.moveaxis(grid, 0, -1)


def player_rgb(world: CompiledGrid, grid: jnp.ndarray, pos: jnp.ndarray, orient: jnp.ndarray) -> jnp.ndarray:
    """n.RGB: uint8[V_h·s, V_w·s, 3], one player's egocentric window (pos
    int32[2] row/column, orient int32[])."""
    cells, inside = locate(world, pos + jnp.asarray(world.view_offsets)[orient])
    window = jnp.where(inside[None], grid[:, cells[..., 0], cells[..., 1]], 0)
    return _paint(world, window, orient)


def world_text(world: CompiledGrid, grid) -> str:
    """WORLD.TEXT (host): one line per row, each ended by a newline; a cell
    shows the character of its top visible state (later layers first), ' '
    when none shows (Lab2D's format)."""
    grid = np.asarray(grid)
    chars = np.array([" "] + [c or " " for c in world.state_char[1:]])
    out = np.full(grid.shape[1:], " ", dtype="<U1")
    for l in range(len(world.layers)):
        ids = grid[l]
        show = world.visible[ids]
        out = np.where(show, chars[ids], out)
    return "".join("".join(row) + "\n" for row in out)
