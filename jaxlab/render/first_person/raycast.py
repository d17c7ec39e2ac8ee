"""Per-column wall casting: a fixed-length DDA walk through the cell grid.

The walk works in cell units with y up (cell ``j = floor(y / 100)`` is text
row ``rows - 1 - j``) and keeps a flat index into the [Hm, Wm] grid. Padding
cells are walls, so ``Hm + Wm`` steps always reach a wall in an enclosed map;
a ray that has hit stays put, and the loop ends once all rays have hit.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.level import CELL_SIZE
from jaxlab.levels.dmlab.map_parser import CELL_WALL

_BIG = 1e30


class WallHits(NamedTuple):
    """What each image column's ray hits (all [W]).

    dist:  float32 perpendicular (view-plane) distance to the wall, units.
    u:     float32 position of the hit along the wall face, units (the
           world y of an x-facing face, the world x of a y-facing face).
    y_face: bool True when the face hit is perpendicular to y (a north or
           south face), False for east/west faces.
    row, col: int32 text-map cell of the hit (clipped to the grid).
    front_row, front_col: int32 cell the ray was in just before the hit.
    """

    dist: jnp.ndarray
    u: jnp.ndarray
    y_face: jnp.ndarray
    row: jnp.ndarray
    col: jnp.ndarray
    front_row: jnp.ndarray
    front_col: jnp.ndarray


def solid_cells(cells: jnp.ndarray, door_index: jnp.ndarray, door_closed: jnp.ndarray) -> jnp.ndarray:
    """bool[Hm, Wm]: walls, plus door cells whose door is closed.

    cells: int8[Hm, Wm] CELL_* codes; door_index: int32[Hm, Wm] (-1: no
    door); door_closed: bool[D].
    """
    door_closed = jnp.asarray(door_closed, bool)
    is_door = door_index >= 0
    closed = door_closed[jnp.clip(door_index, 0, door_closed.shape[0] - 1)]
    return (cells == CELL_WALL) | (is_door & closed)


def cast_walls(solid: jnp.ndarray, rows: jnp.ndarray, pos: jnp.ndarray, ray: jnp.ndarray) -> WallHits:
    """Cast one ray per column through ``solid``.

    solid: bool[Hm, Wm]; rows: int32[] number of text rows (for the y flip);
    pos: float32[2] ray origin (x, y) in units; ray: float32[W, 2] directions
    whose component along the view direction is 1 (then the ray parameter is
    the perpendicular distance). Returns WallHits of [W] arrays.
    """
    hm, wm = solid.shape
    f32, i32 = jnp.float32, jnp.int32
    flat = solid.reshape(-1)
    ox, oy = pos[0] / CELL_SIZE, pos[1] / CELL_SIZE
    dx, dy = ray[:, 0], ray[:, 1]
    cx0 = jnp.floor(ox).astype(i32)
    cy0 = jnp.floor(oy).astype(i32)
    step_x = jnp.where(dx < 0, -1, 1).astype(i32)
    step_y = jnp.where(dy < 0, -1, 1).astype(i32)
    inv_dx = jnp.where(dx == 0, f32(_BIG), jnp.abs(1.0 / jnp.where(dx == 0, 1.0, dx)))
    inv_dy = jnp.where(dy == 0, f32(_BIG), jnp.abs(1.0 / jnp.where(dy == 0, 1.0, dy)))
    # Ray parameter at which the next x / y cell boundary is crossed.
    next_x = jnp.where(dx < 0, ox - cx0, cx0 + 1 - ox) * inv_dx
    next_y = jnp.where(dy < 0, oy - cy0, cy0 + 1 - oy) * inv_dy
    width = ray.shape[0]
    top = rows.astype(i32) - 1
    # Walk a flat cell index: a step in x moves it by +-1, a step up (y+1) by
    # -Wm because text rows grow downwards.
    idx0 = (top - cy0) * wm + cx0
    idx_step_x = step_x
    idx_step_y = -step_y * wm
    n_steps = hm + wm

    def advance(state):
        idx, next_x, next_y, hit, y_face = state
        go_x = next_x < next_y
        move = ~hit
        idx = jnp.where(move, idx + jnp.where(go_x, idx_step_x, idx_step_y), idx)
        next_x = jnp.where(move & go_x, next_x + inv_dx, next_x)
        next_y = jnp.where(move & ~go_x, next_y + inv_dy, next_y)
        y_face = jnp.where(move, ~go_x, y_face)
        hit = hit | jnp.take(flat, idx, mode="clip")
        return idx, next_x, next_y, hit, y_face

    init = (jnp.broadcast_to(idx0, (width,)), next_x, next_y,
            jnp.zeros((width,), bool), jnp.zeros((width,), bool))
    # Stop as soon as every ray has hit (under vmap: every ray of the batch);
    # Hm + Wm steps bound the walk. Faster on CPU than a fixed-count loop.
    def cond(carry):
        i, state = carry
        return (i < n_steps) & ~jnp.all(state[3])

    _, state = jax.lax.while_loop(cond, lambda c: (c[0] + 1, advance(c[1])), (0, init))
    idx, next_x, next_y, _, y_face = state
    t = jnp.where(y_face, next_y - inv_dy, next_x - inv_dx)
    dist = jnp.maximum(t, 1e-4) * CELL_SIZE
    u = jnp.where(y_face, pos[0] + dist * dx, pos[1] + dist * dy)
    idx = jnp.clip(idx, 0, hm * wm - 1)
    front = jnp.clip(idx - jnp.where(y_face, idx_step_y, idx_step_x), 0, hm * wm - 1)
    return WallHits(
        dist=dist.astype(f32),
        u=u.astype(f32),
        y_face=y_face,
        row=idx // wm,
        col=idx % wm,
        front_row=front // wm,
        front_col=front % wm,
    )
