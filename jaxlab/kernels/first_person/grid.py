"""Cell lookups shared by collision, doors and the renderer's callers."""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.levels.dmlab.map_parser import CELL_WALL


def cell_of(level: Level, x, y):
    """(row, col) int32 of the cell holding world point (x, y) units, clipped to the grid."""
    hm, wm = level.cells.shape
    col = jnp.clip(jnp.floor(x / CELL_SIZE).astype(jnp.int32), 0, wm - 1)
    row = jnp.clip(level.rows - 1 - jnp.floor(y / CELL_SIZE).astype(jnp.int32), 0, hm - 1)
    return row, col


def door_closed(door_open: jnp.ndarray) -> jnp.ndarray:
    """bool[D]: doors that are not fully open (solid and drawn)."""
    return door_open < 1.0


def solid(level: Level, door_open: jnp.ndarray, row, col) -> jnp.ndarray:
    """bool: cell (row, col) blocks movement (a wall, or a door not fully open)."""
    door = level.door_index[row, col]
    closed = door_closed(door_open)[jnp.maximum(door, 0)]
    return (level.cells[row, col] == CELL_WALL) | ((door >= 0) & closed)
