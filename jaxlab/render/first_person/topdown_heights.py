"""The ground of a level with heights seen from above (host side, numpy only), for ``topdown``.

Each 50-unit height cell (``heights.HEIGHT_CELLS_PER_CELL`` per map cell and axis) takes the
colour of its height on a ramp from blue (the level's lowest ground) through green and yellow to
white (its highest), over the height cells one can stand on: ``NO_FLOOR`` cells and those under
wall cells are left out of the range. Where neighbouring height cells lie in different
``CONTOUR_UNITS`` bands (the height crosses a multiple of 20 units between them), the pixels on
the near side of the border are darkened: contour lines. ``NO_FLOOR`` cells (gaps, glass columns)
are near-black. Walls, doors, spawns and pickups are drawn over this by ``topdown.top_down``.
"""
from __future__ import annotations

import numpy as np

from jaxlab.levels.dmlab.heights import HEIGHT_CELLS_PER_CELL, NO_FLOOR
from jaxlab.levels.dmlab.map_parser import CELL_WALL

#: the ramp's colours (RGB 0..255) at heights 0, 1/3, 2/3 and 1 of the way from lowest to highest
RAMP = np.array([(40, 70, 190), (50, 160, 80), (225, 205, 60), (250, 250, 250)], np.float64)
RAMP_AT = np.linspace(0.0, 1.0, len(RAMP))
NO_FLOOR_RGB = np.array([18, 18, 22], np.uint8)
CONTOUR_UNITS = 20.0     # a contour line where the height crosses a multiple of this (units)
CONTOUR_SHADE = 0.6      # brightness of a contour line's pixels


def height_ramp(t) -> np.ndarray:
    """float64[..., 3] RGB (0..255) of the ramp at ``t`` (any shape; 0 lowest, 1 highest, clipped)."""
    t = np.clip(np.asarray(t, np.float64), 0.0, 1.0)
    return np.stack([np.interp(t, RAMP_AT, RAMP[:, k]) for k in range(3)], axis=-1)


def ground_image(floor_z, cells, cell_px: int) -> np.ndarray:
    """uint8[rows cell_px, cols cell_px, 3]: the ground of a level with heights seen from above.

    floor_z: float[2 rows, 2 cols] ground heights in units (``Level.floor_z``, cropped to the map);
    cells: int[rows, cols] CELL_* codes (wall cells' ground is left out of the ramp's range; the
    caller draws the walls over it); cell_px: pixels per map cell. Pixel (0, 0) is the top-left
    corner of map cell (0, 0), as in ``topdown``.
    """
    floor_z = np.asarray(floor_z, np.float64)
    cells = np.asarray(cells)
    rows, cols = cells.shape
    n = HEIGHT_CELLS_PER_CELL
    under_wall = np.repeat(np.repeat(cells == CELL_WALL, n, 0), n, 1)
    gap = floor_z <= NO_FLOOR
    ground = ~gap & ~under_wall
    lo, hi = (floor_z[ground].min(), floor_z[ground].max()) if ground.any() else (0.0, 0.0)
    t = (floor_z - lo) / (hi - lo) if hi > lo else np.zeros_like(floor_z)
    # Pixel -> height cell: map cell p // cell_px, its half (2 p // cell_px) for any cell_px.
    py = (n * np.arange(rows * cell_px)) // cell_px
    px = (n * np.arange(cols * cell_px)) // cell_px
    z = floor_z[np.ix_(py, px)]
    img = height_ramp(t[np.ix_(py, px)])
    band = np.floor(z / CONTOUR_UNITS)
    solid = ~gap[np.ix_(py, px)]
    line = np.zeros(z.shape, bool)
    line[:, :-1] |= (band[:, :-1] != band[:, 1:]) & solid[:, :-1] & solid[:, 1:]
    line[:-1, :] |= (band[:-1, :] != band[1:, :]) & solid[:-1, :] & solid[1:, :]
    img = np.where(line[..., None], img * CONTOUR_SHADE, img)
    img = np.where(solid[..., None], img, NO_FLOOR_RGB)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)
