"""What the hand-built rooms_* maps need beyond ``procedural.cells``: text rows to cell arrays,
lettered walls, and masks of rectangular regions (for ``cells.sample_cells``)."""
from __future__ import annotations

from typing import Sequence

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.map_parser import CELL_WALL, parse_text_map


def cells_from_rows(rows: Sequence[str]) -> np.ndarray:
    """int8[R, C] CELL_* codes of a map given as text rows ('*' wall, ' ' floor, 'I'/'H' doors)."""
    return parse_text_map("\n".join(rows), require_spawn=False).cells.astype(np.int8)


def wall_variation(cells, letter_code) -> jnp.ndarray:
    """int8[R, C]: variation ``letter_code`` (int 0..26, may be traced) on the wall cells of
    ``cells`` (int8[R, C]), 0 elsewhere."""
    return jnp.where(jnp.asarray(cells) == CELL_WALL, jnp.asarray(letter_code, jnp.int32), 0).astype(jnp.int8)


def region_mask(cells: np.ndarray, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """bool[R, C]: the non-wall cells of ``cells`` (int8[R, C]) in rows [r0, r1) and columns [c0, c1)."""
    mask = np.zeros(cells.shape, bool)
    mask[r0:r1, c0:c1] = True
    return mask & (cells != CELL_WALL)
