"""Grid utilities for on-device level generators (pure jnp; jit- and vmap-safe).

Grids are ``[H, W]`` arrays with row 0 at the top (text-map layout). Cells
are addressed as int32 ``(row, col)`` pairs. Neighbourhoods are 4-connected.
Every function works on one grid; ``jax.vmap`` adds a batch axis.
"""
from __future__ import annotations

from typing import Tuple

import jax
import jax.numpy as jnp

from jaxlab.levels.dmlab.level import CELL_SIZE

# Directions as (d_row, d_col): up, down, left, right. OPPOSITE[d] is the reverse of d.
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))
OPPOSITE = (DOWN, UP, RIGHT, LEFT)

# Dilation steps per while-loop iteration (the loop test costs a reduction).
_STEPS_PER_ITERATION = 4


def neighbour(x: jnp.ndarray, direction: int, fill=False) -> jnp.ndarray:
    """The value of each cell's neighbour in ``direction`` (UP/DOWN/LEFT/RIGHT).

    x: [H, W] any dtype; direction: a static int. Returns [H, W] of x's dtype:
    ``out[r, c] = x[r + dr, c + dc]``, and ``fill`` where that is off the grid.
    """
    dr, dc = DIRECTIONS[direction]
    h, w = x.shape
    padded = jnp.pad(x, ((1, 1), (1, 1)), constant_values=jnp.asarray(fill, x.dtype))
    return padded[1 + dr:1 + dr + h, 1 + dc:1 + dc + w]


def dilate(mask: jnp.ndarray) -> jnp.ndarray:
    """bool[H, W]: ``mask`` or any of its 4 neighbours."""
    out = mask
    for d in range(4):
        out = out | neighbour(mask, d)
    return out


def flood_fill(open_: jnp.ndarray, start_mask: jnp.ndarray) -> jnp.ndarray:
    """Cells reachable from ``start_mask`` through 4-connected ``open_`` cells.

    open_: bool[H, W] passable cells; start_mask: bool[H, W] (starts outside
    ``open_`` are dropped). Returns bool[H, W]. Iterated dilation in a
    ``lax.while_loop`` until nothing changes.
    """
    open_ = jnp.asarray(open_, bool)
    start = jnp.asarray(start_mask, bool) & open_

    def body(carry):
        reached, _ = carry
        new = reached
        for _ in range(_STEPS_PER_ITERATION):
            new = dilate(new) & open_
        return new, jnp.any(new != reached)

    reached, _ = jax.lax.while_loop(lambda c: c[1], body, (start, jnp.array(True)))
    return reached


def sample_cells(key: jax.Array, mask: jnp.ndarray, k: int) -> Tuple[jnp.ndarray, jnp.ndarray]:
    """``k`` distinct cells drawn uniformly without replacement from the True cells of ``mask``.

    key: a PRNG key; mask: bool[H, W]; k: static int, 0 <= k <= H*W.
    Returns (rc int32[k, 2] (row, col), valid bool[k]); when the mask has
    fewer than k cells the rows past them are invalid (their rc is some
    masked-out cell). Gumbel top-k, so the order is random too.
    """
    mask = jnp.asarray(mask, bool)
    h, w = mask.shape
    if not 0 <= k <= h * w:
        raise ValueError(f"sample_cells: k={k} must be in [0, {h * w}] for a {h}x{w} grid")
    scores = jnp.where(mask, jax.random.gumbel(key, mask.shape), -jnp.inf).reshape(-1)
    values, index = jax.lax.top_k(scores, k)
    rc = jnp.stack([index // w, index % w], -1).astype(jnp.int32)
    return rc, jnp.isfinite(values)


def cell_centre_xy(rc: jnp.ndarray, rows) -> jnp.ndarray:
    """World (x, y) in units of the centres of cells ``rc``.

    rc: int[..., 2] (row, col); rows: the map's row count (int or int32[]).
    Returns float32[..., 2]: x = (col + 0.5) * 100, y = (rows - 1 - row + 0.5) * 100
    (the same as ``level.cell_center``, in jnp).
    """
    rc = jnp.asarray(rc)
    x = (rc[..., 1].astype(jnp.float32) + 0.5) * CELL_SIZE
    y = (jnp.asarray(rows, jnp.float32) - 1.0 - rc[..., 0].astype(jnp.float32) + 0.5) * CELL_SIZE
    return jnp.stack([x, y], -1)
