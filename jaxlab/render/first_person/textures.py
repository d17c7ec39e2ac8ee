"""Procedural wall, door, floor and ceiling looks: palettes plus cheap patterns.

Nothing is sampled from images. A wall's look is fixed per image column (one
small table lookup per column: colour and pattern sizes of the cell's colour
theme), and each pixel only evaluates a few arithmetic ops: horizontal mortar
lines every ``course`` units of height, vertical joints every ``width`` units
along the wall, staggered by ``stagger`` of a brick per course. Floor and
ceiling are square tiles in a checkerboard with thin joint lines, computed
from the per-row distance and the per-column ray.
"""
from __future__ import annotations

import colorsys
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.object_catalogue import KEY_RGB
from jaxlab.levels.dmlab.themes import LEVEL_THEME_NAMES, NUM_LEVEL_THEMES, NUM_THEMES

DOOR_STYLE = NUM_THEMES  # row of STYLE_TABLE used for door cells

# Brick layouts cycled through by the themes: (course height, brick width,
# stagger) in units / fraction of a brick.
_LAYOUTS = (
    (25.0, 50.0, 0.5),        # running-bond bricks
    (50.0, 50.0, 0.0),        # square tiles
    (100.0 / 3, 100.0, 0.5),  # large blocks
    (100.0, 25.0, 0.0),       # vertical panels
)
_JOINT_UNITS = 2.2            # mortar joint thickness, units


def _theme_rgb(k: int) -> tuple:
    """Wall colour (0..255 floats) of variation ``k`` (0 default, 1..26 'A'..'Z')."""
    if k == 0:
        return (170.0, 156.0, 134.0)  # sandstone
    hue = (0.07 + 0.381966 * k) % 1.0
    sat = 0.38 + 0.14 * (k % 3)
    val = 0.66 + 0.08 * ((k // 3) % 3)
    return tuple(255.0 * c for c in colorsys.hsv_to_rgb(hue, sat, val))


# Level themes (``jaxlab.levels.dmlab.themes`` names them): a per-level look of the floor, ceiling and
# default walls. Each row: name, floor RGB, ceiling RGB, (floor tile, ceiling tile) units,
# (floor checker, ceiling checker) brightness steps, default wall RGB (walls
# of variation 0), default wall layout (index into _LAYOUTS) and the offset
# added to the variations 'A'..'Z' (so lettered rooms change colour too).
# Theme 0 is the classic look, exactly as without a theme.
_THEME_LOOKS = {
    "classic": ((118, 108, 92), (92, 94, 108), (100.0, 50.0), (0.25, 0.07), (170, 156, 134), 0, 0),
    "sandstone": ((196, 168, 120), (150, 185, 225), (50.0, 100.0), (0.12, 0.03), (214, 180, 122), 2, 5),
    "night": ((44, 52, 84), (14, 16, 38), (100.0, 50.0), (0.30, 0.10), (64, 84, 150), 1, 11),
    "garden": ((72, 132, 52), (150, 200, 240), (25.0, 100.0), (0.18, 0.02), (120, 150, 96), 3, 17),
    "brick": ((92, 86, 80), (126, 104, 92), (50.0, 50.0), (0.20, 0.08), (168, 64, 46), 0, 3),
    "lab": ((205, 210, 216), (236, 238, 242), (25.0, 50.0), (0.08, 0.04), (226, 230, 234), 1, 21),
    "industrial": ((62, 62, 58), (38, 40, 44), (25.0, 100.0), (0.35, 0.12), (86, 90, 96), 3, 8),
    "ice": ((196, 224, 240), (120, 150, 190), (100.0, 100.0), (0.10, 0.05), (150, 200, 230), 2, 14),
}
LEVEL_THEMES = tuple((name,) + _THEME_LOOKS[name] for name in LEVEL_THEME_NAMES)


def _style_row(rgb, layout) -> tuple:
    course, width, stagger = layout
    return tuple(float(c) for c in rgb) + (1.0 / course, _JOINT_UNITS / course,
                                           1.0 / width, _JOINT_UNITS / width, stagger)


def _door_row(rgb, course: float = 100.0, band: float = 0.05) -> tuple:
    # Wooden planks 12.5 units wide, with a dark band at the floor (and every
    # ``course`` units above it).
    return tuple(float(c) for c in rgb) + (1.0 / course, band, 1.0 / 12.5, 0.16, 0.0)


def _style_table() -> np.ndarray:
    """float32[rows, 8]: r, g, b, 1/course, joint_h, 1/width, joint_v, stagger.

    Rows: the wall variations 0..NUM_THEMES-1, the door (DOOR_STYLE), the
    shut door (DOOR_SHUT_STYLE), doors locked for key colours 1..6
    (DOOR_KEY_STYLE + k - 1), then the default walls of level themes
    1..NUM_LEVEL_THEMES-1 (THEME_WALL_STYLE + theme - 1).
    """
    rows = []
    for k in range(NUM_THEMES):
        layout = _LAYOUTS[(k + 3) % len(_LAYOUTS)] if k else _LAYOUTS[0]
        rows.append(_style_row(_theme_rgb(k), layout))
    rows.append(_door_row((150.0, 88.0, 38.0)))
    # A door that never opens: dark wood with two wide bars across it.
    rows.append(_door_row((92.0, 60.0, 34.0), course=50.0, band=0.22))
    # Locked doors: planks painted the key colour.
    for rgb in KEY_RGB:
        rows.append(_door_row(tuple(0.9 * c + 0.1 * w for c, w in zip(rgb, (150.0, 88.0, 38.0)))))
    for _, _, _, _, _, wall_rgb, layout, _ in LEVEL_THEMES[1:]:
        rows.append(_style_row(wall_rgb, _LAYOUTS[layout]))
    return np.asarray(rows, np.float32)


DOOR_SHUT_STYLE = DOOR_STYLE + 1
DOOR_KEY_STYLE = DOOR_STYLE + 2
THEME_WALL_STYLE = DOOR_KEY_STYLE + len(KEY_RGB)
STYLE_TABLE = _style_table()
# Per level theme: the STYLE_TABLE row of variation-0 walls, and the offset of
# variations 1..26.
THEME_DEFAULT_WALL = np.asarray([0] + [THEME_WALL_STYLE + t for t in range(NUM_LEVEL_THEMES - 1)], np.int32)
THEME_VARIATION_OFFSET = np.asarray([t[7] for t in LEVEL_THEMES], np.int32)
JOINT_SHADE = 0.55            # brightness of mortar / plank gaps
Y_FACE_SHADE = 0.78           # north/south faces are darker than east/west ones

FLOOR_RGB = np.array([118.0, 108.0, 92.0], np.float32)
CEILING_RGB = np.array([92.0, 94.0, 108.0], np.float32)
FLOOR_TILE, CEILING_TILE = 100.0, 50.0     # tile sizes, units
FLOOR_CHECKER, CEILING_CHECKER = 0.25, 0.07  # brightness step between tiles
FLOOR_LINE, CEILING_LINE = 0.02, 0.05        # joint width, fraction of a tile
FLOOR_LINE_SHADE, CEILING_LINE_SHADE = 0.7, 0.75


def distance_shade(dist: jnp.ndarray) -> jnp.ndarray:
    """Brightness factor in (0.45, 1] for a surface ``dist`` units away (any shape)."""
    return 0.45 + 0.55 / (1.0 + dist * (1.0 / 900.0))


class WallStyle(NamedTuple):
    """Per-column wall look (all float32[W]).

    r, g, b: shaded colour 0..255 (theme, face orientation and distance);
    inv_course: 1 / course height (1/units); joint_h: joint thickness as a
    fraction of a course; u_scaled: position along the wall in bricks;
    joint_v: joint thickness as a fraction of a brick; stagger: brick offset
    per course, fraction of a brick.
    """

    r: jnp.ndarray
    g: jnp.ndarray
    b: jnp.ndarray
    inv_course: jnp.ndarray
    joint_h: jnp.ndarray
    u_scaled: jnp.ndarray
    joint_v: jnp.ndarray
    stagger: jnp.ndarray


def wall_style(theme: jnp.ndarray, is_door: jnp.ndarray, y_face: jnp.ndarray,
               u: jnp.ndarray, dist: jnp.ndarray, door_lock=None, level_theme=None) -> WallStyle:
    """Per-column wall look.

    theme: int32[W] variation 0..26 of the wall's room; is_door: bool[W];
    y_face: bool[W] north/south face; u: float32[W] hit position along the
    face, units; dist: float32[W] perpendicular distance, units; door_lock:
    optional int32[W] lock of the door hit (0 plain, k >= 1 locked for key
    colour k, -1 never opens); level_theme: optional int32[] level theme
    (None or 0: the classic look).
    """
    var = jnp.clip(theme, 0, NUM_THEMES - 1)
    if level_theme is not None:
        lt = jnp.clip(jnp.asarray(level_theme, jnp.int32), 0, NUM_LEVEL_THEMES - 1)
        shifted = 1 + (var - 1 + jnp.asarray(THEME_VARIATION_OFFSET)[lt]) % (NUM_THEMES - 1)
        var = jnp.where(var > 0, shifted, jnp.asarray(THEME_DEFAULT_WALL)[lt])
    door = DOOR_STYLE
    if door_lock is not None:
        lock = jnp.asarray(door_lock, jnp.int32)
        door = jnp.where(lock < 0, DOOR_SHUT_STYLE,
                         jnp.where(lock > 0, DOOR_KEY_STYLE - 1 + jnp.minimum(lock, len(KEY_RGB)), DOOR_STYLE))
    idx = jnp.where(is_door, door, var)
    s = jnp.asarray(STYLE_TABLE)[idx]  # [W, 8]
    shade = distance_shade(dist) * jnp.where(y_face, Y_FACE_SHADE, 1.0)
    return WallStyle(r=s[:, 0] * shade, g=s[:, 1] * shade, b=s[:, 2] * shade,
                     inv_course=s[:, 3], joint_h=s[:, 4], u_scaled=u * s[:, 5],
                     joint_v=s[:, 6], stagger=s[:, 7])


def wall_joints(course, joint_h, u_scaled, joint_v, stagger) -> jnp.ndarray:
    """bool: wall pixels on a mortar joint (drawn JOINT_SHADE bright), arrays broadcasting to [H, W].

    course: height in courses (z / course height); joint_h, joint_v: joint
    thickness as fractions of a course / brick; u_scaled: position along
    the wall in bricks; stagger: brick offset per course (fraction).
    """
    n = jnp.floor(course)
    cu = u_scaled + n * stagger
    return ((course - n) < joint_h) | ((cu - jnp.floor(cu)) < joint_v)


class FlatRows(NamedTuple):
    """Per-row floor/ceiling parameters (all float32[H]).

    dist: perpendicular distance of the row's floor or ceiling point, units;
    r, g, b: shaded base colour; scale: 1 / tile size; line: joint width as a
    fraction of a tile; checker: brightness step between tiles; line_shade:
    joint brightness.
    """

    dist: jnp.ndarray
    r: jnp.ndarray
    g: jnp.ndarray
    b: jnp.ndarray
    scale: jnp.ndarray
    line: jnp.ndarray
    checker: jnp.ndarray
    line_shade: jnp.ndarray


def _theme_flat_table() -> np.ndarray:
    """float32[NUM_LEVEL_THEMES, 10]: floor rgb, ceiling rgb, 1/floor tile,
    1/ceiling tile, floor checker, ceiling checker."""
    return np.asarray([tuple(fl) + tuple(ce) + (1.0 / tiles[0], 1.0 / tiles[1]) + tuple(checker)
                       for _, fl, ce, tiles, checker, _, _, _ in LEVEL_THEMES], np.float32)


THEME_FLAT_TABLE = _theme_flat_table()
assert tuple(LEVEL_THEMES[0][1]) == tuple(FLOOR_RGB) and tuple(LEVEL_THEMES[0][2]) == tuple(CEILING_RGB)
assert LEVEL_THEMES[0][3] == (FLOOR_TILE, CEILING_TILE) and LEVEL_THEMES[0][4] == (FLOOR_CHECKER, CEILING_CHECKER)


def flat_rows(row_up: jnp.ndarray, focal: jnp.ndarray, eye_z: jnp.ndarray, wall_height: float,
              theme=None) -> FlatRows:
    """Floor (rows below the horizon) and ceiling (above) parameters per row.

    row_up: float32[H] pixels above the horizon at each row centre; focal:
    float32[] pixels; eye_z: float32[] units; wall_height: ceiling height;
    theme: optional int32[] level theme (None or 0: the classic look).
    """
    ceiling = row_up > 0
    above = jnp.where(ceiling, wall_height - eye_z, eye_z)
    dist = jnp.minimum(focal * jnp.maximum(above, 0.5) / jnp.maximum(jnp.abs(row_up), 0.25), 4.0e4)
    shade = distance_shade(dist)
    if theme is None:
        floor_rgb, ceiling_rgb = jnp.asarray(FLOOR_RGB), jnp.asarray(CEILING_RGB)
        f_scale, c_scale = jnp.float32(1.0 / FLOOR_TILE), jnp.float32(1.0 / CEILING_TILE)
        f_check, c_check = jnp.float32(FLOOR_CHECKER), jnp.float32(CEILING_CHECKER)
    else:
        t = jnp.asarray(THEME_FLAT_TABLE)[jnp.clip(jnp.asarray(theme, jnp.int32), 0, NUM_LEVEL_THEMES - 1)]
        floor_rgb, ceiling_rgb = t[0:3], t[3:6]
        f_scale, c_scale, f_check, c_check = t[6], t[7], t[8], t[9]
    rgb = jnp.where(ceiling[:, None], ceiling_rgb, floor_rgb) * shade[:, None]

    def pick(c, f):
        return jnp.where(ceiling, jnp.float32(c), jnp.float32(f))

    return FlatRows(dist=dist, r=rgb[:, 0], g=rgb[:, 1], b=rgb[:, 2],
                    scale=pick(c_scale, f_scale),
                    line=pick(CEILING_LINE, FLOOR_LINE),
                    checker=pick(c_check, f_check),
                    line_shade=pick(CEILING_LINE_SHADE, FLOOR_LINE_SHADE))


def flat_tiles(gx, gy, line):
    """(joint, odd), each bool, of floor/ceiling pixels (arrays broadcasting to [H, W]).

    gx, gy: world position in tiles; line: joint width (fraction of a
    tile). joint: on a joint line (drawn line_shade bright); odd: on a
    lighter tile of the checkerboard (1 - checker + 2 checker x 1/2 bright;
    the darker ones are 1 - checker).
    """
    ix, iy = jnp.floor(gx), jnp.floor(gy)
    half = (ix + iy) * 0.5
    joint = ((gx - ix) < line) | ((gy - iy) < line)
    return joint, half != jnp.floor(half)
