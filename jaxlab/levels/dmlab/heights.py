"""A first-person world with heights: the ground under each point, as level data.

A ``Level`` with heights stores ``floor_z`` float32[2 Hm, 2 Wm]: the ground's
height in units over each *height cell*, a 50 × 50 unit quarter of a map
cell (``HEIGHT_CELLS_PER_CELL`` per axis). Height cell (hr, hc) spans x in
[50 hc, 50 hc + 50) and y in [50 (2 rows - 1 - hr), 50 (2 rows - hr)), the
map cells' layout at twice the resolution. ``NO_FLOOR`` marks height cells
with nothing to stand on (skymaze's gaps between platforms): nothing is drawn
there and nothing can enter them (DMLab's invisible glass columns). A flat
level stores shape (0, 0) and never reads it, so its step is the flat one.

In a level with heights the map's wall cells are invisible solid columns
(the playing area's bounds), drawn neither as walls nor as ground; the look
is ``Level.sky`` (``SKY_NAMES``): a sky, far terrain and the time of day's
light, instead of a ceiling. Height cells, these lookups and the constants
are shared by the kernel (``kernels.first_person.heights``) and the renderer
(``render.first_person.height_view``).
"""
from __future__ import annotations

import jax.numpy as jnp

from jaxlab.levels.dmlab.units import CELL_SIZE, PLAYER_RADIUS

#: height cells per map cell along each axis, and their size in units
HEIGHT_CELLS_PER_CELL = 2
HEIGHT_CELL = CELL_SIZE / HEIGHT_CELLS_PER_CELL
#: ``floor_z`` of a height cell with no ground: invisible and solid
NO_FLOOR = -4096.0
#: the looks of ``Level.sky``: 0 the flat look (ceiling and walls, no heights drawn), then skies
SKY_NAMES = ("ceiling", "sky", "desert_day", "desert_dawn", "desert_night")
NUM_SKIES = len(SKY_NAMES)
SKY_INDEX = {name: i for i, name in enumerate(SKY_NAMES)}
#: what a generator's levels stand on, known before tracing (``LevelGenerator.ground``): skymaze's
#: floating platform slabs, natlab's solid terrain, or None (either, or flat: decided per level)
GROUND_SLABS, GROUND_TERRAIN = "slabs", "terrain"


def has_heights(level) -> bool:
    """Whether ``level`` (unbatched or batched) stores heights: a static Python bool read from the
    shape of ``floor_z`` at trace time (flat levels store shape (0, 0))."""
    return level.floor_z.shape[-1] > 0


def height_cell_of(floor_z, rows, x, y):
    """(row, col) int32 of the height cell holding world point (x, y) units, clipped to the grid.

    floor_z: float32[Zh, Zw]; rows: int32[] map rows of the level (``Level.rows``)."""
    zh, zw = floor_z.shape
    col = jnp.clip(jnp.floor(x / HEIGHT_CELL).astype(jnp.int32), 0, zw - 1)
    row = jnp.clip(HEIGHT_CELLS_PER_CELL * rows - 1 - jnp.floor(y / HEIGHT_CELL).astype(jnp.int32), 0, zh - 1)
    return row, col


def ground_at(floor_z, rows, x, y):
    """float32 ground height (units) of the height cell under world point (x, y) (any shape)."""
    return floor_z[height_cell_of(floor_z, rows, x, y)]


def footprint_ground(floor_z, rows, x, y):
    """float32[]: the highest ground under the player's box (±PLAYER_RADIUS) centred on (x, y).

    The box is at most one height cell wide (30 < 50 units), so its four corners see every height
    cell it covers."""
    r = PLAYER_RADIUS - 0.01
    corners = jnp.stack([ground_at(floor_z, rows, x + dx, y + dy) for dx in (-r, r) for dy in (-r, r)])
    return corners.max()
