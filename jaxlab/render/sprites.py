"""Pickup billboards: camera-facing discs, one sprite chosen per image column.

Each column keeps the nearest present sprite whose disc covers the column and
that is nearer than the column's wall; pixels then only test whether they lie
inside that one disc. Reward pickups are shaded like a lit ball; goals are
drawn bigger (their radius) with a bright ring.
"""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.pickup_types import PICKUP_TYPES

SPRITE_RGB = np.asarray([p.color for p in PICKUP_TYPES], np.float32)      # [K, 3]
SPRITE_RADIUS = np.asarray([p.radius for p in PICKUP_TYPES], np.float32)  # [K]
SPRITE_IS_GOAL = np.asarray([p.is_goal for p in PICKUP_TYPES], bool)      # [K]
FLOAT_UNITS = 6.0      # gap between the floor and the bottom of a sprite, units
NEAR_UNITS = 4.0       # sprites nearer than this are not drawn
_FAR_ROW = -1.0e6      # centre row that puts "no sprite" far off-screen
RING = (0.42, 0.62)    # a goal's ring, as squared fractions of its radius


class SpriteColumns(NamedTuple):
    """The sprite drawn in each column (all float32[W]).

    dist: perpendicular distance, units (+inf where none); row: centre row
    (continuous); inv_size: 1 / screen radius, 1/pixels; dx2: squared
    horizontal offset of the column from the centre, in radii; r, g, b:
    colour 0..255 (distance-shaded); ring_lo, ring_hi: squared-radius band
    drawn bright (empty for non-goals).
    """

    dist: jnp.ndarray
    row: jnp.ndarray
    inv_size: jnp.ndarray
    dx2: jnp.ndarray
    r: jnp.ndarray
    g: jnp.ndarray
    b: jnp.ndarray
    ring_lo: jnp.ndarray
    ring_hi: jnp.ndarray


def sprite_columns(pos: jnp.ndarray, eye_z: jnp.ndarray, forward: jnp.ndarray,
                   focal: jnp.ndarray, horizon: jnp.ndarray, width: int,
                   wall_dist: jnp.ndarray, pickup_pos: jnp.ndarray,
                   pickup_kind: jnp.ndarray, pickup_present: jnp.ndarray,
                   shade_fn) -> SpriteColumns:
    """Choose, per column, the nearest visible sprite.

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
    safe = jnp.maximum(depth, NEAR_UNITS)
    scale = focal / safe
    centre_x = f32(width / 2.0) + lateral * scale                     # [N]
    size = radius * scale                                             # [N] pixels
    col = jnp.arange(width, dtype=f32) + f32(0.5)
    dxn = (col[None, :] - centre_x[:, None]) / size[:, None]          # [N, W]
    visible = pickup_present & (depth > NEAR_UNITS)
    covers = (jnp.abs(dxn) < 1.0) & visible[:, None] & (depth[:, None] < wall_dist[None, :])
    cand = jnp.where(covers, depth[:, None], jnp.inf)                 # [N, W]
    best = jnp.argmin(cand, axis=0)                                   # [W]
    found = jnp.min(cand, axis=0) < jnp.inf
    pick = lambda a: a[best]
    dist = jnp.where(found, pick(depth), jnp.inf)
    centre_z = radius + FLOAT_UNITS
    row = horizon - (centre_z - eye_z) * scale                        # [N]
    d = jnp.take_along_axis(dxn, best[None, :], axis=0)[0]
    rgb = jnp.asarray(SPRITE_RGB)[pick(kind)] * shade_fn(dist)[:, None]
    goal = jnp.asarray(SPRITE_IS_GOAL)[pick(kind)]
    return SpriteColumns(
        dist=dist,
        row=jnp.where(found, pick(row), f32(_FAR_ROW)),
        inv_size=1.0 / pick(size),
        dx2=d * d,
        r=rgb[:, 0], g=rgb[:, 1], b=rgb[:, 2],
        ring_lo=jnp.where(goal, f32(RING[0]), f32(2.0)),
        ring_hi=jnp.where(goal, f32(RING[1]), f32(2.0)),
    )


def sprite_mask_and_shade(sc: SpriteColumns, row_centre: jnp.ndarray):
    """(inside bool[H, W], brightness float32[H, W]) for the column sprites.

    row_centre: float32[H] pixel row centres (r + 0.5).
    """
    dy = (row_centre[:, None] - sc.row[None, :]) * sc.inv_size[None, :]
    r2 = sc.dx2[None, :] + dy * dy
    inside = r2 < 1.0
    # Lit from above: brighter at the centre and towards the top of the disc.
    shade = 1.1 - 0.35 * r2 - 0.15 * dy
    ring = (r2 > sc.ring_lo[None, :]) & (r2 < sc.ring_hi[None, :])
    return inside, jnp.where(ring, 1.6, shade)
