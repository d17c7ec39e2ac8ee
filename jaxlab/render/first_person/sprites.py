"""Pickup billboards: camera-facing discs, one sprite chosen per image column.

Each column keeps the nearest present sprite whose disc covers the column and
that is nearer than the column's wall; pixels then only test whether they lie
inside that one disc (so a far sprite overlapping a near one in a column is
not drawn in that column). Reward pickups are shaded like a lit ball; goals are
drawn bigger (their radius) with a bright ring.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.pickup_types import PICKUP_TYPES

SPRITE_RGB = np.asarray([p.color for p in PICKUP_TYPES], np.float32)      # [K, 3]
SPRITE_RADIUS = np.asarray([p.radius for p in PICKUP_TYPES], np.float32)  # [K]
SPRITE_IS_GOAL = np.asarray([p.is_goal for p in PICKUP_TYPES], bool)      # [K]
FLOAT_UNITS = 6.0      # gap between the floor and the bottom of a sprite, units
NEAR_UNITS = 4.0       # sprites nearer than this are not drawn
_FAR_ROW = -1.0e6      # centre row that puts "no sprite" far off-screen
RING = (0.42, 0.62)    # a goal's ring, as squared fractions of its radius


class SpriteColumns(NamedTuple):
    """The sprite drawn in each column (all float32[W]).

    dist: perpendicular distance, units (+inf where none); a, b: a pixel row
    centre ``y`` lies ``y * a + b`` radii below the sprite centre (b puts
    "none" far away); dx: horizontal offset of the column centre from the
    sprite centre, in radii; r, g, b_: colour 0..255 (distance-shaded);
    ring_lo, ring_hi: squared-radius band drawn bright (empty for non-goals).
    """

    dist: jnp.ndarray
    a: jnp.ndarray
    b: jnp.ndarray
    dx: jnp.ndarray
    r: jnp.ndarray
    g: jnp.ndarray
    b_: jnp.ndarray
    ring_lo: jnp.ndarray
    ring_hi: jnp.ndarray


def sprite_columns(pos: jnp.ndarray, eye_z: jnp.ndarray, forward: jnp.ndarray,
                   focal: jnp.ndarray, horizon: jnp.ndarray, width: int,
                   wall_dist: jnp.ndarray, pickup_pos: jnp.ndarray,
                   pickup_kind: jnp.ndarray, pickup_present: jnp.ndarray,
                   shade_fn) -> SpriteColumns:
    """Choose, per column, the nearest visible sprite nearer than the wall.

    pos: float32[2] camera (x, y) units; eye_z: float32[]; forward: float32[2]
    unit view direction; focal, horizon: float32[] pixels / image row;
    wall_dist: float32[W] wall distance per column, units; pickup_pos:
    float32[N, 2]; pickup_kind: int32[N]; pickup_present: bool[N];
    shade_fn: distance (units) -> brightness factor.
    """
    f32 = jnp.float32
    kind = jnp.clip(pickup_kind, 0, len(PICKUP_TYPES) - 1)
    radius = jnp.asarray(SPRITE_RADIUS)[kind]
    rel = pickup_pos.astype(f32) - pos[None, :]
    depth = rel[:, 0] * forward[0] + rel[:, 1] * forward[1]           # [N]
    lateral = rel[:, 0] * forward[1] - rel[:, 1] * forward[0]         # [N], to the right
    scale = focal / jnp.maximum(depth, NEAR_UNITS)                    # [N] pixels per unit
    inv_size = 1.0 / (radius * scale)                                 # [N] radii per pixel
    centre_x = f32(width / 2.0) + lateral * scale                     # [N] image column
    centre_row = horizon - (radius + FLOAT_UNITS - eye_z) * scale     # [N] image row
    # Sprites that are absent or behind the eye get an infinite depth.
    key = jnp.where(pickup_present & (depth > NEAR_UNITS), depth, jnp.inf)
    rgb = jnp.asarray(SPRITE_RGB)[kind] * shade_fn(jnp.maximum(depth, 0.0))[:, None]
    goal = jnp.asarray(SPRITE_IS_GOAL)[kind]
    ring_lo = jnp.where(goal, f32(RING[0]), f32(2.0))
    ring_hi = jnp.where(goal, f32(RING[1]), f32(2.0))
    per_sprite = (key, inv_size, -centre_row * inv_size, rgb[:, 0], rgb[:, 1], rgb[:, 2], ring_lo, ring_hi)
    col = jnp.arange(width, dtype=f32) + f32(0.5)

    # A scan over the sprites keeps the nearest one per column; each step is a
    # few [W] ops (an [N, W] argmin plus gathers was several times slower).
    def step(best, sprite):
        cx, s = sprite[0], sprite[1]
        dx = (col - cx) * s[1]
        take = (jnp.abs(dx) < 1.0) & (s[0] < best.dist)
        fields = (s[0], s[1], s[2], dx) + tuple(s[3:])
        return SpriteColumns(*(jnp.where(take, new, old) for new, old in zip(fields, best))), None

    none = jnp.zeros((width,), f32)
    init = SpriteColumns(dist=wall_dist.astype(f32), a=none, b=none + f32(_FAR_ROW), dx=none,
                         r=none, g=none, b_=none, ring_lo=none + 2.0, ring_hi=none + 2.0)
    best, _ = jax.lax.scan(step, init, (centre_x, jnp.stack(per_sprite, axis=1)))
    found = best.dist < wall_dist
    return best._replace(dist=jnp.where(found, best.dist, jnp.inf))


def sprite_pixels(row_centre, sc: SpriteColumns):
    """Per-pixel sprite cover and brightness, each [H, W].

    row_centre: float32[H, 1] pixel row centres; sc: SpriteColumns whose
    fields are [1, W] (broadcast over rows). Returns (inside bool, brightness
    float32).
    """
    dy = row_centre * sc.a + sc.b
    r2 = sc.dx * sc.dx + dy * dy
    inside = r2 < 1.0
    # Lit from above: brighter at the centre and towards the top of the disc.
    shade = 1.1 - 0.35 * r2 - 0.15 * dy
    ring = (r2 > sc.ring_lo) & (r2 < sc.ring_hi)
    return inside, jnp.where(ring, 1.6, shade)
