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

NUM_THEMES = 27          # variation 0 (default) and 'A'..'Z'
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


def _style_table() -> np.ndarray:
    """float32[NUM_THEMES + 1, 8]: r, g, b, 1/course, joint_h, 1/width, joint_v, stagger."""
    rows = []
    for k in range(NUM_THEMES):
        course, width, stagger = _LAYOUTS[(k + 3) % len(_LAYOUTS)] if k else _LAYOUTS[0]
        rows.append(_theme_rgb(k) + (1.0 / course, _JOINT_UNITS / course,
                                     1.0 / width, _JOINT_UNITS / width, stagger))
    # Doors: wooden planks 12.5 units wide, with a dark band at the floor.
    rows.append((150.0, 88.0, 38.0, 1.0 / 100.0, 0.05, 1.0 / 12.5, 0.16, 0.0))
    return np.asarray(rows, np.float32)


STYLE_TABLE = _style_table()
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
               u: jnp.ndarray, dist: jnp.ndarray) -> WallStyle:
    """Per-column wall look.

    theme: int32[W] variation 0..26 of the wall's room; is_door: bool[W];
    y_face: bool[W] north/south face; u: float32[W] hit position along the
    face, units; dist: float32[W] perpendicular distance, units.
    """
    idx = jnp.where(is_door, DOOR_STYLE, jnp.clip(theme, 0, NUM_THEMES - 1))
    s = jnp.asarray(STYLE_TABLE)[idx]  # [W, 8]
    shade = distance_shade(dist) * jnp.where(y_face, Y_FACE_SHADE, 1.0)
    return WallStyle(r=s[:, 0] * shade, g=s[:, 1] * shade, b=s[:, 2] * shade,
                     inv_course=s[:, 3], joint_h=s[:, 4], u_scaled=u * s[:, 5],
                     joint_v=s[:, 6], stagger=s[:, 7])


def wall_pattern(course, joint_h, u_scaled, joint_v, stagger) -> jnp.ndarray:
    """Brightness factor of wall pixels (arrays broadcasting to [H, W]).

    course: height in courses (z / course height); joint_h, joint_v: joint
    thickness as fractions of a course / brick; u_scaled: position along
    the wall in bricks; stagger: brick offset per course (fraction).
    """
    n = jnp.floor(course)
    cu = u_scaled + n * stagger
    joint = ((course - n) < joint_h) | ((cu - jnp.floor(cu)) < joint_v)
    return jnp.where(joint, JOINT_SHADE, 1.0)


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


def flat_rows(row_up: jnp.ndarray, focal: jnp.ndarray, eye_z: jnp.ndarray, wall_height: float) -> FlatRows:
    """Floor (rows below the horizon) and ceiling (above) parameters per row.

    row_up: float32[H] pixels above the horizon at each row centre; focal:
    float32[] pixels; eye_z: float32[] units; wall_height: ceiling height.
    """
    ceiling = row_up > 0
    above = jnp.where(ceiling, wall_height - eye_z, eye_z)
    dist = jnp.minimum(focal * jnp.maximum(above, 0.5) / jnp.maximum(jnp.abs(row_up), 0.25), 4.0e4)
    shade = distance_shade(dist)
    rgb = jnp.where(ceiling[:, None], jnp.asarray(CEILING_RGB), jnp.asarray(FLOOR_RGB)) * shade[:, None]

    def pick(c, f):
        return jnp.where(ceiling, jnp.float32(c), jnp.float32(f))

    return FlatRows(dist=dist, r=rgb[:, 0], g=rgb[:, 1], b=rgb[:, 2],
                    scale=pick(1.0 / CEILING_TILE, 1.0 / FLOOR_TILE),
                    line=pick(CEILING_LINE, FLOOR_LINE),
                    checker=pick(CEILING_CHECKER, FLOOR_CHECKER),
                    line_shade=pick(CEILING_LINE_SHADE, FLOOR_LINE_SHADE))


def flat_pattern(gx, gy, line, lo, step, line_shade) -> jnp.ndarray:
    """Brightness factor of floor/ceiling pixels (arrays broadcasting to [H, W]).

    gx, gy: world position in tiles; line: joint width (fraction of a
    tile); lo: brightness of the darker tiles; step: brightness step of the
    lighter ones (2 x checker); line_shade: joint brightness.
    """
    ix, iy = jnp.floor(gx), jnp.floor(gy)
    half = (ix + iy) * 0.5
    odd = half - jnp.floor(half)  # 0 or 0.5
    joint = ((gx - ix) < line) | ((gy - iy) < line)
    return jnp.where(joint, line_shade, lo + odd * step)
