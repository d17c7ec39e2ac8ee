"""Small helpers shared by the hand-built rooms_* maps: text rows to cell arrays, cell
centres, wall looks, and drawing distinct slots on device."""
from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.level import cell_center
from jaxlab.levels.dmlab.map_parser import CELL_WALL, parse_text_map


def cells_from_rows(rows: Sequence[str]) -> np.ndarray:
    """int8[R, C] CELL_* codes of a map given as text rows ('*' wall, ' ' floor, 'I'/'H' doors)."""
    return parse_text_map("\n".join(rows), require_spawn=False).cells.astype(np.int8)


def wall_variation(cells, letter_code) -> jnp.ndarray:
    """int8[R, C]: variation ``letter_code`` (int, may be traced) on wall cells, 0 elsewhere."""
    return jnp.where(jnp.asarray(cells) == CELL_WALL, jnp.asarray(letter_code, jnp.int32), 0).astype(jnp.int8)


def centres(cells_rc, rows: int) -> np.ndarray:
    """float32[K, 2] world (x, y) of the centres of the (row, col) cells ``cells_rc`` int[K, 2]."""
    rc = np.asarray(cells_rc).reshape(-1, 2)
    return cell_center(rc[:, 0], rc[:, 1], rows).reshape(-1, 2)


def open_cells(cells: np.ndarray, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """int32[K, 2] (row, col) of the non-wall cells in rows [r0, r1) and columns [c0, c1), row-major."""
    rc = [(r, c) for r in range(r0, r1) for c in range(c0, c1) if cells[r, c] != CELL_WALL]
    return np.asarray(rc, np.int32).reshape(-1, 2)


def draw_distinct(key: jax.Array, n: int, k: int) -> jnp.ndarray:
    """int32[k]: k distinct indices in [0, n), uniformly (a random permutation's head)."""
    return jax.random.permutation(key, n)[:k].astype(jnp.int32)


def yaw_towards(frm, to) -> jnp.ndarray:
    """float32[...] yaw in degrees (counter-clockwise from +x) of the direction from ``frm`` to ``to``."""
    d = jnp.asarray(to, jnp.float32) - jnp.asarray(frm, jnp.float32)
    return jnp.degrees(jnp.arctan2(d[..., 1], d[..., 0]))
