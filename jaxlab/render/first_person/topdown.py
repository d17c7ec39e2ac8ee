"""Top-down overview image of a Level (host side, numpy only).

Pixel (0, 0) is the top-left corner of text-map cell (0, 0); world y grows
upwards, so it is flipped with ``level.rows``.
"""
from __future__ import annotations

import colorsys

import numpy as np

from jaxlab.levels.dmlab import language_objects as lang
from jaxlab.levels.dmlab import object_catalogue as cat
from jaxlab.levels.dmlab.heights import HEIGHT_CELLS_PER_CELL, has_heights
from jaxlab.levels.dmlab.level import CELL_SIZE
from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_WALL
from jaxlab.render.first_person import sprites as sp
from jaxlab.render.first_person.silhouettes import GRID, MASKS
from jaxlab.render.first_person.topdown_heights import ground_image

FLOOR = np.array([205, 200, 190], np.uint8)
WALL = np.array([70, 70, 78], np.float32)
DOOR = np.array([150, 95, 40], np.uint8)
DOOR_SHUT = np.array([70, 45, 25], np.uint8)      # a door that never opens
SPAWN = np.array([40, 160, 90], np.uint8)
TRAJ_START = np.array([0, 190, 255], np.float32)
TRAJ_END = np.array([255, 0, 200], np.float32)
# Wall tint of variations 'A'..'Z': hues spread around the colour wheel.
VARIATION_TINT = np.array([colorsys.hsv_to_rgb((i * 0.382) % 1.0, 0.65, 0.75) for i in range(26)]) * 255


def _map_size(level) -> tuple:
    """(rows, cols) of the level's map: padding rows below ``rows`` and all-wall
    padding columns (a bank pads with walls) are dropped."""
    cells = np.asarray(level.cells)[: int(np.asarray(level.rows))]
    open_cols = np.flatnonzero((cells != CELL_WALL).any(0))
    cols = min(cells.shape[1], open_cols[-1] + 2) if len(open_cols) else cells.shape[1]
    return cells.shape[0], int(cols)


def world_to_pixel(xy, rows: int, cell_px: int) -> np.ndarray:
    """World (x, y) units -> float pixel (col, row) coordinates; [..., 2]."""
    xy = np.asarray(xy, np.float64)
    return np.stack([xy[..., 0], rows * CELL_SIZE - xy[..., 1]], -1) * (cell_px / CELL_SIZE)


def _disc(img: np.ndarray, center, radius: float, color, ring: bool = False) -> None:
    """Fill (or outline, if ring) a disc of ``radius`` pixels at pixel ``center``."""
    x0, y0 = (max(int(v - radius) - 1, 0) for v in center)
    x1, y1 = (max(int(v + radius) + 2, 0) for v in center)
    yy, xx = np.mgrid[y0:min(y1, img.shape[0]), x0:min(x1, img.shape[1])]
    d = np.hypot(xx + 0.5 - center[0], yy + 0.5 - center[1])
    inside = (d <= radius) & ((d >= radius - 1.5) if ring else True)
    img[yy[inside], xx[inside]] = color


def _door_colour(lock: int) -> np.ndarray:
    """Bar colour of a door with lock code ``lock`` (0 plain, k >= 1 key colour k, -1 shut)."""
    if lock < 0:
        return DOOR_SHUT
    if lock > 0:
        return np.asarray(cat.KEY_RGB[min(lock, cat.NUM_KEY_COLOURS) - 1], np.uint8)
    return DOOR


def shape_mask(shape: str, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Whether points (u right, v down; in half-widths / half-heights of the
    object's box) lie inside silhouette ``shape`` (a SHAPE_CODES name, or a
    language object's ``SHAPE_PREFIX + shape``: its mask); the same shapes
    as the first-person sprites draw."""
    if shape.startswith(lang.SHAPE_PREFIX):
        mask = MASKS[lang.LANGUAGE_SHAPES.index(shape[len(lang.SHAPE_PREFIX):])]
        col, row = (np.floor((np.asarray(t) + 1.0) * (GRID / 2)).astype(int) for t in (u, v))
        on = (col >= 0) & (col < GRID) & (row >= 0) & (row < GRID)
        return on & mask[np.clip(row, 0, GRID - 1), np.clip(col, 0, GRID - 1)]
    au, av = np.abs(u), np.abs(v)
    r2 = u * u + v * v
    if shape in ("ball", "pad"):
        return r2 < 1.0
    if shape == "box":
        return np.maximum(au, av) < 0.8
    if shape == "diamond":
        return au + av < 1.0
    if shape == "triangle":
        return (v < 0.85) & (v > -0.95 + 1.8 * au)
    if shape == "pillar":
        return (au < 1.0) & (av < 0.95)
    if shape == "ring":
        return (r2 < 1.0) & (r2 >= 0.3)
    if shape == "cross":
        return (np.maximum(au, av) < 0.95) & (np.minimum(au, av) < 0.3)
    if shape == "key":   # sideways: a ring bow on the left, shaft and two teeth to the right
        bow = (((u + 8.5 / 15) * 15 / 8) ** 2 + v * v)
        on_bow = u < -2 / 15
        tooth = (((u >= 5 / 15) & (u < 8 / 15)) | ((u >= 10.5 / 15) & (u < 13.5 / 15))) & (v > 0) & (v < 0.75)
        return np.where(on_bow, (bow >= (3 / 8) ** 2) & (bow < (6.5 / 8) ** 2), (av < 1.8 / 8) | tooth)
    raise ValueError(f"unknown shape {shape!r}; known: {cat.SHAPE_CODES}")


def pattern_mask(pattern: str, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Where pattern ``pattern`` puts the second colour (u, v as in shape_mask;
    the same bands as the first-person sprites)."""
    def frac(x):
        return x - np.floor(x)

    def parity_phase(x):    # 0 or 1/2 for even / odd cells along x
        return 0.5 * (np.floor(x + 8.0) % 2)

    def centred(x):         # offset from the middle of x's cell, -1/2 .. 1/2
        return frac(x + 8.0) - 0.5

    if pattern == "plain":
        return np.zeros(np.broadcast(u, v).shape, bool)
    if pattern == "stripes":
        return np.abs(frac(v * 2.0) - 0.5) < 0.25
    if pattern == "checks":
        return np.abs(frac(v * 1.5 + parity_phase(u * 1.5)) - 0.5) < 0.25
    if pattern == "spots":
        return (frac(v * 1.25 + parity_phase(u * 1.25)) - 0.5) ** 2 + (frac(u * 1.25 + 8.0) - 0.5) ** 2 < 0.1
    if pattern == "belt":
        return np.abs(v) < 0.35
    if pattern == "crosses":
        cx, cy = np.abs(centred(u * sp.CROSS_FREQ)), np.abs(centred(v * sp.CROSS_FREQ))
        return (np.minimum(cx, cy) < sp.CROSS_ARM_HALF) & (np.maximum(cx, cy) < sp.CROSS_HALF)
    if pattern == "diagonal_stripe":
        return np.abs(frac((v + u) * sp.DIAGONAL_FREQ) - 0.5) < 0.25
    if pattern == "discs":
        return centred(u * sp.DISC_FREQ) ** 2 + (frac(v * sp.DISC_FREQ) - 0.5) ** 2 < sp.DISC_R2
    if pattern == "hex":
        hex_h = sp.HEX_HALF * np.clip((0.5 - np.abs(centred(u * sp.HEX_FREQ))) / (0.5 - sp.HEX_FLAT), 0.0, 1.0)
        return np.abs(frac(v * sp.HEX_FREQ + parity_phase(u * sp.HEX_FREQ) + 0.5) - 0.5) < 0.5 - hex_h
    if pattern == "pinstripe":
        return np.abs(centred(u * sp.PIN_FREQ)) < sp.PIN_HALF + np.zeros_like(v)
    if pattern == "swirls":
        return np.abs(frac(v * sp.SWIRL_FREQ + sp.SWIRL_AMP * np.sin(u * sp.SWIRL_WAVE)) - 0.5) < 0.25
    raise ValueError(f"unknown pattern {pattern!r}; known: {cat.OBJECT_PATTERNS + lang.NEW_PATTERNS}")


def _object(img: np.ndarray, centre, kind, cell_px: int) -> None:
    """Draw a catalogue object, key or teleport pad: its silhouette seen from the side,
    in its colour and pattern, about 0.8 cell wide (a dark outline keeps it readable)."""
    scale = 0.42 * cell_px / cat.OBJECT_RADIUS
    half_w = min(max(kind.radius * scale, 2.0), 0.48 * cell_px)
    half_h = min(max(kind.half_height * scale, 2.0), 0.48 * cell_px)
    if kind.shape == "pad":        # seen from above: a flat disc
        half_h = half_w
    x0, y0 = int(centre[0] - half_w) - 2, int(centre[1] - half_h) - 2
    x1, y1 = int(centre[0] + half_w) + 3, int(centre[1] + half_h) + 3
    yy, xx = np.mgrid[max(y0, 0):min(y1, img.shape[0]), max(x0, 0):min(x1, img.shape[1])]
    u = (xx + 0.5 - centre[0]) / half_w
    v = (yy + 0.5 - centre[1]) / half_h
    inside = shape_mask(kind.shape, u, v)
    grow = shape_mask(kind.shape, u * half_w / (half_w + 1.0), v * half_h / (half_h + 1.0))
    outline = grow & ~inside
    img[yy[outline], xx[outline]] = (30, 30, 34)
    second = pattern_mask(kind.pattern, u, v)
    if kind.shape == "pad":
        second = (u * u + v * v) > 0.5
    colour = np.where(second[..., None], np.asarray(kind.pattern_color, np.uint8), np.asarray(kind.color, np.uint8))
    img[yy[inside], xx[inside]] = colour[inside]


def _polyline(img: np.ndarray, pts: np.ndarray) -> None:
    """Draw a 2-pixel polyline through pixel points, colour fading start -> end."""
    seg_len = np.hypot(*np.diff(pts, axis=0).T)
    n = np.maximum(np.ceil(seg_len * 2).astype(int), 1)        # samples per segment
    seg = np.repeat(np.arange(len(n)), n)
    t = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n, n)
    p = pts[seg] + (pts[seg + 1] - pts[seg]) * t[:, None]
    frac = (seg + t) / max(len(n), 1)
    colors = (TRAJ_START + (TRAJ_END - TRAJ_START) * frac[:, None]).astype(np.uint8)
    h, w = img.shape[:2]
    for dx, dy in ((0, 0), (-1, 0), (0, -1), (-1, -1)):
        px = np.clip(np.floor(p[:, 0] + 0.5).astype(int) + dx, 0, w - 1)
        py = np.clip(np.floor(p[:, 1] + 0.5).astype(int) + dy, 0, h - 1)
        img[py, px] = colors


def top_down(level, trajectory=None, pickup_present=None, cell_px: int = 12,
             goal_pos=None, door_lock=None) -> np.ndarray:
    """uint8[rows*cell_px, cols*cell_px, 3] image of a (single, unbatched) Level.

    Draws walls (tinted by their variation letter), floor (rooms with a coloured floor,
    ``Level.floor_rect``, in their colour), doors (a bar across
    the passage: wood, the key colour of a locked door, or dark wood for a
    door that never opens, as ``door_lock`` int[D] (default: the level's own) says; see
    render_first_person), spawn points (green rings) and pickups (fruit and
    goals as dots in their PICKUP_TYPES colour and size; catalogue objects,
    keys and teleport pads as their silhouette in colour and pattern; only
    ``pickup_valid`` ones, and only present ones if ``pickup_present`` bool[N]
    is given). Pickups with
    ``pickup_follows_goal`` sit at the episode's goal: they are drawn at
    ``goal_pos`` float[2] (world x, y) if given, else left out.
    ``trajectory`` float[T, 2] world (x, y) is drawn as a polyline fading from
    cyan to magenta, with a filled start marker and a ringed end marker.
    Accepts numpy or jax arrays; a level padded in a bank is cropped back to
    its map (trailing all-wall columns are dropped). A level with heights
    (``heights.has_heights``) shows its ground by height instead of the
    floor colour: a colour ramp with contour lines, its gaps near-black
    (``topdown_heights``).
    """
    rows, cols = _map_size(level)
    cells = np.asarray(level.cells)[:rows, :cols]
    variation = np.asarray(level.variation)[:rows, :cols].astype(int)

    wall = np.where(variation[..., None] > 0, 0.55 * WALL + 0.45 * VARIATION_TINT[variation - 1], WALL)
    floor = np.broadcast_to(np.asarray(FLOOR, np.float64), wall.shape).copy()
    centre_x = (np.arange(cols) + 0.5) * CELL_SIZE
    centre_y = (int(level.rows) - 1 - np.arange(rows) + 0.5) * CELL_SIZE
    for rect, rgb in zip(np.asarray(level.floor_rect), np.asarray(level.floor_rect_rgb)):   # coloured rooms
        inside = (((centre_y >= rect[1]) & (centre_y < rect[3]))[:, None]
                  & ((centre_x >= rect[0]) & (centre_x < rect[2]))[None, :])
        floor[inside] = 0.8 * rgb
    grid = np.where((cells == CELL_WALL)[..., None], wall, floor).astype(np.uint8)
    img = np.repeat(np.repeat(grid, cell_px, 0), cell_px, 1)
    if has_heights(level):   # the ground by height (``topdown_heights``), the walls as they are
        n = HEIGHT_CELLS_PER_CELL
        heights = ground_image(np.asarray(level.floor_z)[:n * rows, :n * cols], cells, cell_px)
        on_wall = np.repeat(np.repeat(cells == CELL_WALL, cell_px, 0), cell_px, 1)
        img = np.where(on_wall[..., None], img, heights)

    bar = max(cell_px // 5, 1)
    lo, hi = (cell_px - bar) // 2, (cell_px - bar) // 2 + bar
    door_index = np.asarray(level.door_index)[:rows, :cols]
    if door_lock is None:
        door_lock = getattr(level, "door_lock", None)
    locks = None if door_lock is None else np.asarray(door_lock).astype(int).reshape(-1)
    for (r, c) in np.argwhere((cells == CELL_DOOR_I) | (cells == CELL_DOOR_H)):
        block = img[r * cell_px:(r + 1) * cell_px, c * cell_px:(c + 1) * cell_px]
        colour = _door_colour(0 if locks is None or door_index[r, c] < 0 else locks[door_index[r, c]])
        if cells[r, c] == CELL_DOOR_I:      # crossed left-right: the panel stands up-down
            block[:, lo:hi] = colour
        else:
            block[lo:hi, :] = colour

    spawn_ok = np.asarray(level.spawn_allowed).any(0)
    for xy in np.asarray(level.spawn_pos)[spawn_ok]:
        _disc(img, world_to_pixel(xy, rows, cell_px), 0.4 * cell_px, SPAWN, ring=True)

    show = np.asarray(level.pickup_valid).copy()
    if pickup_present is not None:
        show &= np.asarray(pickup_present, bool)
    pos = np.asarray(level.pickup_pos, np.float64).copy()
    follows = np.asarray(level.pickup_follows_goal)
    if goal_pos is None:
        show &= ~follows
    else:
        pos[follows] = np.asarray(goal_pos, np.float64)
    for i in np.flatnonzero(show):
        kind = PICKUP_TYPES[int(np.asarray(level.pickup_kind)[i])]
        centre = world_to_pixel(pos[i], rows, cell_px)
        if int(np.asarray(level.pickup_kind)[i]) < cat.FIRST_OBJECT_KIND:   # fruit and goals: dots
            radius = max(kind.radius / CELL_SIZE * cell_px * 1.6, 1.5)
            _disc(img, centre, radius, kind.color)
        else:
            _object(img, centre, kind, cell_px)

    if trajectory is not None:
        pts = world_to_pixel(np.asarray(trajectory, np.float64).reshape(-1, 2), rows, cell_px)
        if len(pts) > 1:
            _polyline(img, pts)
        if len(pts):
            _disc(img, pts[0], max(0.2 * cell_px, 2), TRAJ_START.astype(np.uint8))
            _disc(img, pts[-1], max(0.3 * cell_px, 2.5), TRAJ_END.astype(np.uint8), ring=True)
    return img
