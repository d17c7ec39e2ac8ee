"""Pickup billboards: camera-facing shapes, one sprite chosen per image column.

Each column keeps the nearest present sprite whose box covers the column and
that is nearer than the column's wall; pixels then only test whether they lie
inside that one sprite (so a far sprite overlapping a near one in a column is
not drawn in that column). Sprites are shaded like a lit ball; goals are
drawn bigger (their radius) with a bright ring.

Shapes and patterns cost the pixels almost nothing: in one column a
sprite's cover is a band ``lo2 <= (dy - c)^2 + e < hi2`` of its rows (dy: the
row's offset from the sprite centre in half-heights), where c, e, lo2 and hi2
are per-column values worked out from the shape and the column's offset dx
(a disc: c = 0, e = dx^2, hi2 = 1; a diamond: e = 0, hi2 = (1 - |dx|)^2;
a ring: lo2 > 0; ...). Likewise the second (pattern) colour covers rows where
``(frac(dy * ky + ph) - 1/2)^2 + ex < thr`` with per-column ky, ph, ex, thr
(stripes, checks as stripes whose phase flips every few columns, spots, a
belt; for the language objects also crosses, diagonal stripes (stripes whose
phase shifts with the column), discs, a honeycomb, pinstripes (whole
columns) and swirls (stripes whose phase is a sine of the column)).

The language objects' silhouettes are bit masks (``silhouettes``): their
band is the whole box, and a pixel also tests its row's bit in the word its
column gathered (``bits``; all ones for the other shapes).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab import language_objects as lang
from jaxlab.levels.dmlab import object_catalogue as cat
from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES
from jaxlab.render.first_person.silhouettes import GRID, MASK_BITS
from jaxlab.render.fusion import materialise

FLOAT_UNITS = 6.0      # gap between the floor and the bottom of a sprite, units
PAD_FLOAT_UNITS = 0.5  # the teleport pad lies on the floor
NEAR_UNITS = 4.0       # sprites nearer than this are not drawn
_FAR_ROW = -1.0e6      # centre row that puts "no sprite" far off-screen
RING = (0.42, 0.62)    # a goal's ring, as squared fractions of its radius
PAD_RING = (0.5, 1.0)  # the teleport pad's glowing rim

SHAPE = {name: code for code, name in enumerate(cat.SHAPE_CODES)}
MASK_SHAPE = len(cat.SHAPE_CODES)     # the code of every language object's shape (drawn from its mask)
PATTERN = {name: code for code, name in enumerate(cat.OBJECT_PATTERNS + lang.NEW_PATTERNS)}


def _ring(p) -> tuple:
    if p.is_goal:
        return RING
    if p.shape == "pad":
        return PAD_RING
    return (2.0, 2.0)


def _silhouette(p) -> int:
    """Row of SILHOUETTE_BITS of a pickup type: its language shape, or the all-ones row."""
    if p.shape.startswith(lang.SHAPE_PREFIX):
        return lang.LANGUAGE_SHAPES.index(p.shape[len(lang.SHAPE_PREFIX):])
    return lang.NUM_LANGUAGE_SHAPES


SPRITE_RGB = np.asarray([p.color for p in PICKUP_TYPES], np.float32)            # [K, 3]
SPRITE_RGB2 = np.asarray([p.pattern_color for p in PICKUP_TYPES], np.float32)   # [K, 3]
SPRITE_RADIUS = np.asarray([p.radius for p in PICKUP_TYPES], np.float32)        # [K] half-width
SPRITE_HEIGHT = np.asarray([p.half_height for p in PICKUP_TYPES], np.float32)   # [K] half-height
SPRITE_FLOAT = np.asarray([PAD_FLOAT_UNITS if p.shape == "pad" else FLOAT_UNITS for p in PICKUP_TYPES], np.float32)
SPRITE_IS_GOAL = np.asarray([p.is_goal for p in PICKUP_TYPES], bool)            # [K]
SPRITE_SHAPE = np.asarray([MASK_SHAPE if p.shape.startswith(lang.SHAPE_PREFIX) else SHAPE[p.shape]
                           for p in PICKUP_TYPES], np.int32)                    # [K]
SPRITE_SILHOUETTE = np.asarray([_silhouette(p) for p in PICKUP_TYPES], np.int32)  # [K]
# uint32[(NUM_LANGUAGE_SHAPES + 1) * GRID]: the masks' column words, then a row of all ones, flattened
SILHOUETTE_BITS = np.concatenate([MASK_BITS, np.full((1, GRID), 0xFFFFFFFF, np.uint32)]).reshape(-1)
SPRITE_PATTERN = np.asarray([PATTERN[p.pattern] for p in PICKUP_TYPES], np.int32)  # [K]
SPRITE_RING = np.asarray([_ring(p) for p in PICKUP_TYPES], np.float32)          # [K, 2]

# Shape geometry, in half-widths (x) and half-heights (y, growing downwards).
BOX_HALF = 0.8
TRIANGLE = (-0.95, 0.85, 1.8)     # apex row, base row, apex-to-base rows per unit |dx|
RING_INNER2 = 0.3
CROSS_ARM = 0.3
PILLAR_HALF = 0.95
# The key (half-width 15, half-height 8 units) lies sideways: a ring bow on
# the left, a shaft to the right and two teeth hanging below it.
_KEY_W, _KEY_H = 15.0, 8.0
KEY_BOW = (-8.5 / _KEY_W, 3.0 / _KEY_H, 6.5 / _KEY_H, (_KEY_W / _KEY_H) ** 2)  # centre x, inner, outer, x-to-y scale^2
KEY_SHAFT = (-2.0 / _KEY_W, 1.8 / _KEY_H)           # shaft start x, half-thickness
KEY_TEETH = ((5.0 / _KEY_W, 8.0 / _KEY_W), (10.5 / _KEY_W, 13.5 / _KEY_W), 6.0 / _KEY_H)  # x ranges, tooth bottom
# Patterns: rows-per-half-height frequency of the second colour's bands.
STRIPE_FREQ = 2.0
CHECK_FREQ = 1.5
SPOT_FREQ = 1.25
SPOT_R2 = 0.1
BELT_HALF = 0.35
CROSS_FREQ, CROSS_ARM_HALF, CROSS_HALF = 1.25, 0.1, 0.36  # crosses: cell frequency, arm half-width, half-length
DIAGONAL_FREQ = 2.0
DISC_FREQ, DISC_R2 = 0.9, 0.14
HEX_FREQ, HEX_HALF, HEX_FLAT = 1.4, 0.4, 0.22     # honeycomb: cells, cell half-height, half-width of its flat top
PIN_FREQ, PIN_HALF = 3.0, 0.11                     # pinstripes: lines per half-width, half-width of a line
SWIRL_FREQ, SWIRL_AMP, SWIRL_WAVE = 1.6, 0.35, 5.0  # wavy stripes: rows, phase amplitude, radians per half-width
# A language object's pixels are lit like a ball of this squashing across.
MASK_ROUND = 0.5


class SpriteColumns(NamedTuple):
    """The sprite drawn in each column (all float32[W]).

    dist: perpendicular distance, units (+inf where none); a, b: a pixel row
    centre ``y`` lies ``dy = y * a + b`` half-heights below the sprite
    centre (b puts "none" far away); r, g, b_: colour 0..255
    and r2, g2, b2: pattern colour (both distance-shaded); ring_lo, ring_hi:
    squared-radius band drawn bright (empty for most kinds); c, e, lo2, hi2:
    the shape's cover in this column, rows with ``lo2 <= (dy - c)^2 + e <
    hi2``; ky, ph, ex, thr: the pattern colour covers rows with
    ``(frac(dy * ky + ph) - 0.5)^2 + ex < thr``; bits: uint32[W], a covered
    row must also have bit ``floor((dy + 1) * GRID / 2)`` set (None: no masks drawn).
    """

    dist: jnp.ndarray
    a: jnp.ndarray
    b: jnp.ndarray
    r: jnp.ndarray
    g: jnp.ndarray
    b_: jnp.ndarray
    ring_lo: jnp.ndarray
    ring_hi: jnp.ndarray
    c: jnp.ndarray
    e: jnp.ndarray
    lo2: jnp.ndarray
    hi2: jnp.ndarray
    r2: jnp.ndarray
    g2: jnp.ndarray
    b2: jnp.ndarray
    ky: jnp.ndarray
    ph: jnp.ndarray
    ex: jnp.ndarray
    thr: jnp.ndarray
    bits: jnp.ndarray


def _by_code(code, options, shape):
    """float32[shape]: ``options[code]`` per element (code int32[shape]; options: a value per code,
    each a scalar or float32[shape])."""
    out = jnp.broadcast_to(options[0], shape)
    for k in range(1, len(options)):
        out = jnp.where(code == k, options[k], out)
    return out


def _shape_cover(shape, dx, masks: bool = True):
    """(c, e, lo2, hi2), each float32[W], of shape codes int32[W] at offsets dx float32[W] (``masks``
    static: the language objects' mask code is among them)."""
    f32 = jnp.float32
    ax = jnp.abs(dx)
    never = f32(-1.0)
    zero = jnp.zeros_like(dx)
    dx2 = dx * dx
    # Triangle: rows from the slanted edge down to the base.
    top = f32(TRIANGLE[0]) + f32(TRIANGLE[2]) * ax
    tri_c = 0.5 * (top + f32(TRIANGLE[1]))
    tri_h = 0.5 * (f32(TRIANGLE[1]) - top)
    # Cross: the full height within the vertical arm, the arm thickness elsewhere.
    cross_h = jnp.where(ax < CROSS_ARM, f32(0.95), f32(CROSS_ARM))
    # Key: bow ring, shaft, teeth.
    bow_e = (dx - f32(KEY_BOW[0])) ** 2 * f32(KEY_BOW[3])
    on_bow = dx < KEY_SHAFT[0]
    tooth = (((dx >= KEY_TEETH[0][0]) & (dx < KEY_TEETH[0][1]))
             | ((dx >= KEY_TEETH[1][0]) & (dx < KEY_TEETH[1][1])))
    tooth_c = 0.5 * (KEY_TEETH[2] - KEY_SHAFT[1])
    tooth_h = 0.5 * (KEY_TEETH[2] + KEY_SHAFT[1])
    key_c = jnp.where(on_bow, zero, jnp.where(tooth, f32(tooth_c), zero))
    key_e = jnp.where(on_bow, bow_e, zero)
    key_lo = jnp.where(on_bow, f32(KEY_BOW[1] ** 2), never)
    key_hi = jnp.where(on_bow, f32(KEY_BOW[2] ** 2),
                       jnp.where(tooth, f32(tooth_h ** 2), f32(KEY_SHAFT[1] ** 2)))

    # Per shape code (ball, box, diamond, triangle, pillar, ring, cross, key, pad, mask).
    c = [zero, zero, zero, tri_c, zero, zero, zero, key_c, zero, zero]
    e = [dx2, zero, zero, zero, zero, dx2, zero, key_e, dx2, MASK_ROUND * dx2]
    lo2 = [never, never, never, never, never, f32(RING_INNER2), never, key_lo, never, never]
    hi2 = [f32(1.0),
           jnp.where(ax < BOX_HALF, f32(BOX_HALF ** 2), never),
           jnp.where(ax < 1.0, (1.0 - ax) ** 2, never),
           jnp.where(tri_h > 0, tri_h * tri_h, never),
           f32(PILLAR_HALF ** 2),
           f32(1.0),
           jnp.where(ax < 0.95, cross_h * cross_h, never),
           key_hi,
           f32(1.0),
           1.0 + MASK_ROUND * dx2]

    codes = len(c) if masks else MASK_SHAPE
    return tuple(_by_code(shape, options[:codes], dx.shape) for options in (c, e, lo2, hi2))


def _pattern_bands(pattern, dx, masks: bool = True):
    """(ky, ph, ex, thr), each float32[W], of pattern codes int32[W] at offsets dx float32[W] (``masks``
    static: the language objects' patterns are among them)."""
    f32 = jnp.float32
    zero = jnp.zeros_like(dx)
    check_cell = jnp.floor(dx * CHECK_FREQ + 8.0)               # +8: floor of positives only
    check_ph = 0.5 * (check_cell - 2.0 * jnp.floor(0.5 * check_cell))
    spot_u = dx * SPOT_FREQ + 8.0
    spot_cell = jnp.floor(spot_u)
    spot_ph = 0.5 * (spot_cell - 2.0 * jnp.floor(0.5 * spot_cell))
    spot_ex = (spot_u - spot_cell - 0.5) ** 2

    def centred(freq):       # offset from the middle of the column's cell, -1/2 .. 1/2
        u = dx * freq + 8.0
        return u - jnp.floor(u) - 0.5

    cross_x = jnp.abs(centred(CROSS_FREQ))
    cross_thr = jnp.where(cross_x < CROSS_ARM_HALF, CROSS_HALF ** 2,
                          jnp.where(cross_x < CROSS_HALF, CROSS_ARM_HALF ** 2, -1.0))
    hex_cell = jnp.floor(dx * HEX_FREQ + 8.0)
    hex_h = HEX_HALF * jnp.clip((0.5 - jnp.abs(centred(HEX_FREQ))) / (0.5 - HEX_FLAT), 0.0, 1.0)
    # plain, stripes, checks, spots, belt, crosses, diagonal_stripe, discs, hex (the lines between
    # hexagons: the complement of each column's hexagon), pinstripe, swirls. Stripes and checks
    # cover the middle half of each band (|frac - 1/2| < 1/4).
    ky = [zero, f32(STRIPE_FREQ), f32(CHECK_FREQ), f32(SPOT_FREQ), f32(0.5), f32(CROSS_FREQ), f32(DIAGONAL_FREQ),
          f32(DISC_FREQ), f32(HEX_FREQ), zero, f32(SWIRL_FREQ)]
    ph = [zero, zero, check_ph, spot_ph, f32(0.5), zero, dx * DIAGONAL_FREQ, zero,
          0.5 * (hex_cell - 2.0 * jnp.floor(0.5 * hex_cell)) + 0.5, f32(0.5), SWIRL_AMP * jnp.sin(dx * SWIRL_WAVE)]
    ex = [zero, zero, zero, spot_ex, zero, zero, zero, centred(DISC_FREQ) ** 2, zero, centred(PIN_FREQ) ** 2, zero]
    thr = [f32(-1.0), f32(0.0625), f32(0.0625), f32(SPOT_R2), f32((0.5 * BELT_HALF) ** 2), cross_thr, f32(0.0625),
           f32(DISC_R2), (0.5 - hex_h) ** 2, f32(PIN_HALF ** 2), f32(0.0625)]

    codes = len(ky) if masks else len(cat.OBJECT_PATTERNS)
    return tuple(_by_code(pattern, options[:codes], dx.shape) for options in (ky, ph, ex, thr))


def _nearest_in_turn(col, wall_dist, centre_x, key, inv_w):
    """(float32[W] depth, int32[W] index or -1) of the nearest sprite covering each column nearer than
    ``wall_dist`` (float32[W]); col: float32[W] column centres; centre_x, key (depth, inf when not drawn),
    inv_w: float32[N] per sprite. A scan over the sprites, each step a few [W] ops: on a CPU an [N, W]
    argmin is several times slower. Ties go to the lowest index."""
    def step(best, sprite):
        i, cx, s_key, s_inv = sprite
        take = (jnp.abs((col - cx) * s_inv) < 1.0) & (s_key < best[0])
        return (jnp.where(take, s_key, best[0]), jnp.where(take, i, best[1])), None

    init = (wall_dist, jnp.full(col.shape, -1, jnp.int32))
    (dist, idx), _ = jax.lax.scan(step, init, (jnp.arange(key.shape[0], dtype=jnp.int32), centre_x, key, inv_w))
    return dist, idx


def _nearest_at_once(col, wall_dist, centre_x, key, inv_w):
    """``_nearest_in_turn``'s result from one [N, W] min: on a GPU each step of a scan is a loop trip
    of its own, which costs far more than the whole [N, W] table."""
    covered = jnp.abs((col[None, :] - centre_x[:, None]) * inv_w[:, None]) < 1.0
    depth = jnp.where(covered, key[:, None], jnp.inf)                  # [N, W]
    first = jnp.argmin(depth, axis=0).astype(jnp.int32)               # the lowest index among the nearest
    nearest = jnp.min(depth, axis=0)
    take = nearest < wall_dist
    return jnp.where(take, nearest, wall_dist), jnp.where(take, first, -1)


def sprite_columns(pos: jnp.ndarray, eye_z: jnp.ndarray, forward: jnp.ndarray,
                   focal: jnp.ndarray, horizon: jnp.ndarray, width: int,
                   wall_dist: jnp.ndarray, pickup_pos: jnp.ndarray,
                   pickup_kind: jnp.ndarray, pickup_present: jnp.ndarray,
                   shade_fn, base_z=None, scale=None, masks: bool = True) -> SpriteColumns:
    """Choose, per column, the nearest visible sprite nearer than the wall.

    pos: float32[2] camera (x, y) units; eye_z: float32[]; forward: float32[2]
    unit view direction; focal, horizon: float32[] pixels / image row;
    wall_dist: float32[W] wall distance per column, units; pickup_pos:
    float32[N, 2]; pickup_kind: int32[N]; pickup_present: bool[N];
    shade_fn: distance (units) -> brightness factor; base_z: optional
    float32[N] height of the ground under each pickup (None: the floor at 0,
    and ``eye_z`` is over it); scale: optional float32[N] size factors
    (None: the types' sizes); masks (static): draw the language objects'
    silhouettes (False: no pickup is one, ``bits`` is None and pixels skip
    the bit test, as before they existed). The returned fields
    are not materialised (``render.fusion``): the caller keeps the ones it
    reads.
    """
    f32 = jnp.float32
    kind = jnp.clip(pickup_kind, 0, len(PICKUP_TYPES) - 1)
    radius = jnp.asarray(SPRITE_RADIUS)[kind]
    height = jnp.asarray(SPRITE_HEIGHT)[kind]
    lift = jnp.asarray(SPRITE_FLOAT)[kind]
    if scale is not None:
        radius, height = radius * scale, height * scale
    if base_z is not None:
        lift = lift + base_z
    rel = pickup_pos.astype(f32) - pos[None, :]
    depth = rel[:, 0] * forward[0] + rel[:, 1] * forward[1]           # [N]
    lateral = rel[:, 0] * forward[1] - rel[:, 1] * forward[0]         # [N], to the right
    scale = focal / jnp.maximum(depth, NEAR_UNITS)                    # [N] pixels per unit
    inv_w = 1.0 / (radius * scale)                                    # [N] half-widths per pixel
    inv_h = 1.0 / (height * scale)                                    # [N] half-heights per pixel
    centre_x = f32(width / 2.0) + lateral * scale                     # [N] image column
    centre_row = horizon - (height + lift - eye_z) * scale            # [N] image row
    shade = shade_fn(jnp.maximum(depth, 0.0))                        # [N]
    # Computed once per sprite: XLA would otherwise fuse them into every
    # per-column consumer of the gathers below.
    inv_w, inv_h, centre_x, centre_row, shade = materialise((inv_w, inv_h, centre_x, centre_row, shade))
    # Sprites that are absent or behind the eye get an infinite depth.
    key = jnp.where(pickup_present & (depth > NEAR_UNITS), depth, jnp.inf)
    col = jnp.arange(width, dtype=f32) + f32(0.5)

    dist, idx = jax.lax.platform_dependent(col, wall_dist.astype(f32), centre_x, key, inv_w,
                                           cpu=_nearest_in_turn, default=_nearest_at_once)
    found = idx >= 0
    j = jnp.maximum(idx, 0)
    k = kind[j]
    shade = shade[j]
    inv_h_c, inv_w_c = inv_h[j], inv_w[j]
    dx = (col - centre_x[j]) * inv_w_c
    rgb = jnp.asarray(SPRITE_RGB)[k] * shade[:, None]
    rgb2 = jnp.asarray(SPRITE_RGB2)[k] * shade[:, None]
    ring = jnp.asarray(SPRITE_RING)[k]
    c, e, lo2, hi2 = _shape_cover(jnp.asarray(SPRITE_SHAPE)[k], dx, masks)
    bits = None
    if masks:   # static: levels without language objects skip the masks
        mask_col = jnp.clip(jnp.floor((dx + 1.0) * (GRID / 2)), 0, GRID - 1).astype(jnp.int32)
        bits = jnp.asarray(SILHOUETTE_BITS)[jnp.asarray(SPRITE_SILHOUETTE)[k] * GRID + mask_col]
    ky, ph, ex, thr = _pattern_bands(jnp.asarray(SPRITE_PATTERN)[k], dx, masks)
    sc = SpriteColumns(
        dist=jnp.where(found, dist, jnp.inf),
        a=jnp.where(found, inv_h_c, 0.0), b=jnp.where(found, -centre_row[j] * inv_h_c, f32(_FAR_ROW)),
        r=rgb[:, 0], g=rgb[:, 1], b_=rgb[:, 2],
        ring_lo=ring[:, 0], ring_hi=ring[:, 1],
        c=c, e=e, lo2=lo2, hi2=jnp.where(found, hi2, -1.0),
        r2=rgb2[:, 0], g2=rgb2[:, 1], b2=rgb2[:, 2],
        ky=ky, ph=ph, ex=ex, thr=thr, bits=bits)
    return sc


def sprite_pixels(row_centre, sc: SpriteColumns):
    """Per-pixel sprite cover, brightness and pattern, each [H, W].

    row_centre: float32[H, 1] pixel row centres; sc: SpriteColumns whose
    fields are [1, W] (broadcast over rows). Returns (inside bool,
    brightness float32, second bool: the pixel takes the pattern colour).
    """
    dy = row_centre * sc.a + sc.b
    q = dy - sc.c
    t = q * q + sc.e          # a disc's squared radius
    # The row's bit moved to the sign bit (a count past 31, dy <= -1, shifts every bit out).
    inside = (t < sc.hi2) & (t >= sc.lo2)
    if sc.bits is not None:   # static: only where language objects are drawn
        to_sign = (GRID / 2 - dy * (GRID / 2)).astype(jnp.int32).astype(jnp.uint32)   # 31 - the row's bit
        inside = inside & ((sc.bits << to_sign).view(jnp.int32) < 0)
    # Lit from above: brighter at the centre and towards the top.
    shade = 1.1 - 0.35 * t - 0.15 * dy
    ring = (t > sc.ring_lo) & (t < sc.ring_hi)
    u = dy * sc.ky + sc.ph
    v = u - jnp.floor(u) - 0.5
    second = v * v + sc.ex < sc.thr
    return inside, jnp.where(ring, 1.6, shade), second
