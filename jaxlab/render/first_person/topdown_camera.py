"""DMLab's ``DEBUG.CAMERA.TOP_DOWN`` on the device: the level seen from straight above, as a frame.

The whole map fits the frame (square cells, centred, black around it): walls, floor (by height where
the level has heights: dark low, light high), doors that are shut, the present pickups as discs in
their colour and size (at least a pixel across), and the player as a magenta disc (at least 5 pixels
across) with a white tick toward where it faces. Pixel
row 0 is the map's top (world y grows upward), as ``topdown.top_down`` draws it on the host.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.heights import HEIGHT_CELLS_PER_CELL, NO_FLOOR, has_heights
from jaxlab.levels.dmlab.level import CELL_SIZE, Level
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES
from jaxlab.render.first_person.topdown import DOOR, FLOOR, WALL

#: float32[K, 3] each pickup type's colour, and float32[K] its drawn radius (units)
_KIND_RGB = np.asarray([t.color for t in PICKUP_TYPES], np.float32)
_KIND_RADIUS = np.asarray([max(t.radius, 12.0) for t in PICKUP_TYPES], np.float32)
PLAYER_RGB = np.asarray([255, 0, 200], np.float32)
TICK_RGB = np.asarray([255, 255, 255], np.float32)
PLAYER_RADIUS = 30.0   # units (a little over the player's 16-unit body, so it shows at small frames)
GROUND_SPAN = 400.0    # units of height from dark to light on a level with heights


def render_top_down_camera(level: Level, pos, yaw, pickup_pos, pickup_present, door_closed, *, width: int,
                           height: int) -> jnp.ndarray:
    """uint8[height, width, 3]: ``level`` from above with the player at ``pos`` (float32[2] units) facing
    ``yaw`` (degrees), pickups at ``pickup_pos`` (float32[N, 2] units) where ``pickup_present`` (bool[N])
    and the doors ``door_closed`` (bool[D]) shut. ``width``/``height``: static pixels. Unbatched (vmap it)."""
    f32 = jnp.float32
    rows, cols = level.cells.shape
    scale = min(width / cols, height / rows)                      # pixels per cell (static)
    x0, y0 = (width - cols * scale) / 2.0, (height - rows * scale) / 2.0
    px = (jnp.arange(width, dtype=f32) + 0.5 - x0) / scale        # [W] cells from the map's left edge
    py = (jnp.arange(height, dtype=f32) + 0.5 - y0) / scale       # [H] cells from the map's top edge
    inside = ((px >= 0) & (px < cols))[None, :] & ((py >= 0) & (py < rows))[:, None]
    col = jnp.clip(jnp.floor(px).astype(jnp.int32), 0, cols - 1)[None, :]
    row = jnp.clip(jnp.floor(py).astype(jnp.int32), 0, rows - 1)[:, None]
    wall = level.cells[row, col] == CELL_WALL
    door = level.door_index[row, col]
    shut = (door >= 0) & jnp.asarray(door_closed)[jnp.maximum(door, 0)]
    floor = jnp.broadcast_to(jnp.asarray(FLOOR, f32), wall.shape + (3,))
    if has_heights(level):
        n = HEIGHT_CELLS_PER_CELL
        hr = jnp.clip(jnp.floor(py * n).astype(jnp.int32), 0, level.floor_z.shape[0] - 1)[:, None]
        hc = jnp.clip(jnp.floor(px * n).astype(jnp.int32), 0, level.floor_z.shape[1] - 1)[None, :]
        z = level.floor_z[hr, hc]
        light = 0.35 + 0.65 * jnp.clip(z / GROUND_SPAN + 0.5, 0.0, 1.0)
        ground = jnp.where((z > NO_FLOOR)[..., None], floor * light[..., None], 0.0)
        floor = jnp.where(level.sky > 0, ground, floor)
    rgb = jnp.where(wall[..., None], jnp.asarray(WALL, f32), floor)
    rgb = jnp.where(shut[..., None], jnp.asarray(DOOR, f32), rgb)
    rgb = jnp.where(inside[..., None], rgb, 0.0)

    # world (x, y) units of each pixel centre
    wx = (px * CELL_SIZE)[None, :]
    wy = ((rows - py) * CELL_SIZE)[:, None]
    kind = jnp.clip(level.pickup_kind, 0, len(PICKUP_TYPES) - 1)
    unit_px = CELL_SIZE / scale                                    # units per pixel
    radius = jnp.maximum(jnp.asarray(_KIND_RADIUS)[kind] * level.pickup_scale, 0.75 * unit_px)
    d2 = (wx[..., None] - pickup_pos[:, 0]) ** 2 + (wy[..., None] - pickup_pos[:, 1]) ** 2   # [H, W, N]
    hit = (d2 <= radius ** 2) & jnp.asarray(pickup_present, bool)
    nearest = jnp.argmin(jnp.where(hit, d2, jnp.inf), axis=-1)
    rgb = jnp.where(hit.any(-1)[..., None], jnp.asarray(_KIND_RGB)[kind[nearest]], rgb)

    dx, dy = wx - pos[0], wy - pos[1]
    body_radius = max(PLAYER_RADIUS, 2.5 * unit_px)
    body = dx ** 2 + dy ** 2 <= body_radius ** 2
    rad = jnp.deg2rad(yaw)
    along = dx * jnp.cos(rad) + dy * jnp.sin(rad)
    across = -dx * jnp.sin(rad) + dy * jnp.cos(rad)
    tick = (along >= 0) & (along <= 2.0 * body_radius) & (jnp.abs(across) <= max(0.6 * unit_px, 6.0))
    rgb = jnp.where(body[..., None], jnp.asarray(PLAYER_RGB), rgb)
    rgb = jnp.where((tick & ~body)[..., None], jnp.asarray(TICK_RGB), rgb)
    return jnp.clip(jnp.round(rgb), 0, 255).astype(jnp.uint8)
