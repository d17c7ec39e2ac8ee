"""A first-person frame of a level with heights: terrain and platforms under a sky.

Each image column looks along its ray at ``SAMPLES`` fixed distances, spaced
geometrically from ``NEAREST`` to ``FARTHEST`` units (close samples are dense,
far ones sparse, as the image needs). Sample i stands for the ground
between distances t[i-1] and t[i]: the height cell under the ray at their
middle, drawn as a block from its top down to ``skies.THICKNESS`` below it
(solid terrain, or skymaze's floating platform slabs). Its rows on screen run
from its top edge (the far edge when the top lies below the eye: its top face
shows) to its bottom edge; the rows below its near top edge are its front
face (a platform's riser, a slope's face). Per pixel, the nearest sample
whose rows hold the pixel wins (a chain of selects from far to near, every
value a column's or a row's: no gathers per pixel). Pixels no sample holds
show the sky above the horizon and the sky's far ground below it.
``NO_FLOOR`` cells hold nothing: skymaze's gaps and glass columns are
invisible. Pickups are drawn on the ground under them (``sprites``), over
the ground in front of them (not hidden behind a hill). Edges fall on the
samples, so a platform's edge may sit up to one sample spacing (``RATIO`` - 1
of its distance) farther than it is.
"""
from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.heights import (GROUND_SLABS, GROUND_TERRAIN, HEIGHT_CELL, HEIGHT_CELLS_PER_CELL, NO_FLOOR,
                                         height_cell_of)
from jaxlab.levels.dmlab.level import Level
from jaxlab.render.first_person import skies
from jaxlab.render.first_person import sprites as sprites_lib
from jaxlab.render.first_person import textures
from jaxlab.render.first_person.camera import Camera, make_view
from jaxlab.render.first_person.screens import draw_screens
from jaxlab.render.fusion import materialise, words_to_bytes

SAMPLES = 20
NEAREST, FARTHEST = 15.0, 3200.0
RATIO = float((FARTHEST / NEAREST) ** (1.0 / (SAMPLES - 1)))
#: float32[SAMPLES] the far edge of each sample's stretch, and the near edge (units along the view axis)
SAMPLE_FAR = (NEAREST * RATIO ** np.arange(SAMPLES)).astype(np.float32)
SAMPLE_NEAR = np.concatenate([[NEAREST / RATIO], SAMPLE_FAR[:-1]]).astype(np.float32)
FRONT_SHADE = 0.72        # a terrain face seen from the front, against its top
DEPTH_UNITS = 16.0        # depth channel: units per step (every first-person view)


def _word_of(r, g, b) -> jnp.ndarray:
    """uint32 RGB word (byte k = channel k) of float channels r, g, b in 0..255 (broadcasting)."""
    def byte(c):
        return jnp.clip(c, 0.0, 255.0).astype(jnp.uint32)
    return byte(r) | (byte(g) << 8) | (byte(b) << 16)


def _rgb_word(rgb) -> jnp.ndarray:
    """uint32 RGB word of float RGB [..., 3] in 0..255."""
    return _word_of(rgb[..., 0], rgb[..., 1], rgb[..., 2])


def ground_colours(level: Level, hr, hc, ground: Optional[str] = None) -> jnp.ndarray:
    """float32[..., 3]: the lit colour of the tops of height cells (hr, hc) (int32[...], in the grid)
    under ``level.sky``.

    Platforms (``skies.SLABS``) take a floor colour per 20-unit height level, a little darker on
    alternate map cells; terrain is sand lit by the sun over its slope (from the cell's east and
    north neighbours). Both take the sky's light. ``ground`` (static, ``heights.GROUND_SLABS`` or
    ``GROUND_TERRAIN``): compute only that kind (None: both, the sky picks)."""
    z_grid = level.floor_z
    zh, zw = z_grid.shape
    z = z_grid[hr, hc]
    light = jnp.asarray(skies.LIGHT_RGB)[level.sky]
    if ground != GROUND_TERRAIN:
        floor = skies.platform_floor_rgb(jnp.floor(z / skies.PLATFORM_LEVEL_UNITS + 0.5))
        odd = jnp.mod(hr // HEIGHT_CELLS_PER_CELL + hc // HEIGHT_CELLS_PER_CELL, 2) == 1
        floor = floor * jnp.where(odd, 0.9, 1.0)[..., None]
        if ground == GROUND_SLABS:
            return floor * light
    east = z_grid[hr, jnp.minimum(hc + 1, zw - 1)]
    north = z_grid[jnp.maximum(hr - 1, 0), hc]
    dzdx = jnp.where(east > NO_FLOOR, east - z, 0.0) / HEIGHT_CELL
    dzdy = jnp.where(north > NO_FLOOR, north - z, 0.0) / HEIGHT_CELL
    sun = skies.SUN / np.linalg.norm(skies.SUN)
    lit = (-dzdx * sun[0] - dzdy * sun[1] + sun[2]) * jax.lax.rsqrt(1.0 + dzdx ** 2 + dzdy ** 2)
    sand = jnp.asarray(skies.SAND_RGB) * (0.45 + 0.55 * jnp.clip(lit, 0.0, 1.0))[..., None]
    if ground == GROUND_TERRAIN:
        return sand * light
    return jnp.where(jnp.asarray(skies.SLABS)[level.sky], floor, sand) * light


def _sky_rows(sky, row_up, focal) -> jnp.ndarray:
    """uint32[H]: the sky's colour per row (zenith to horizon above it, the far ground below)."""
    above = jnp.clip(row_up / (0.6 * focal), 0.0, 1.0)[:, None]
    top = jnp.asarray(skies.HORIZON_RGB)[sky] * (1.0 - above) + jnp.asarray(skies.ZENITH_RGB)[sky] * above
    below = jnp.asarray(skies.BELOW_RGB)[sky] * jnp.asarray(skies.LIGHT_RGB)[sky]
    return _rgb_word(jnp.where((row_up > 0.0)[:, None], top, below[None, :]))


def render_heights(level: Level, camera: Camera, pickup_pos, pickup_present, *, width: int, height: int,
                   with_depth: bool, ground: Optional[str] = None, masks: bool = True, screens=None) -> jnp.ndarray:
    """Render one first-person frame of a level with heights (``heights.has_heights``).

    Args are ``renderer.render_first_person``'s: camera (pos float32[2] units, eye_z float32[] the
    eye's height in world units, yaw and pitch degrees), pickup_pos float32[N, 2] units,
    pickup_present bool[N], static width and height in pixels, static with_depth, static masks, the
    script's live textures ``screens`` (or None).

    Returns uint8[height, width, 3] RGB, or [height, width, 4] with the distance in units / 16
    (clipped to 255; the sky is 255) as channel 3.
    """
    f32 = jnp.float32
    view = make_view(camera, width, height)
    pos = jnp.asarray(camera.pos, f32)
    eye = jnp.asarray(camera.eye_z, f32)
    sky = jnp.clip(level.sky, 0, len(skies.THICKNESS) - 1)

    # --- per sample and column ([S, W]) -------------------------------------
    far, near = jnp.asarray(SAMPLE_FAR)[:, None], jnp.asarray(SAMPLE_NEAR)[:, None]
    mid = jnp.sqrt(far * near)
    x = pos[0] + mid * view.ray[None, :, 0]
    y = pos[1] + mid * view.ray[None, :, 1]
    hr, hc = (v.astype(jnp.int32) for v in materialise(height_cell_of(level.floor_z, level.rows, x, y)))
    z = level.floor_z[hr, hc]
    present = z > NO_FLOOR
    bottom_z = z - jnp.asarray(skies.THICKNESS)[sky]

    def row(zz, t):
        return view.horizon + (eye - zz) * view.focal / t

    near_top, far_top = row(z, near), row(z, far)
    top = jnp.where(present, jnp.minimum(near_top, far_top), jnp.inf)
    bottom = jnp.maximum(row(bottom_z, near), row(bottom_z, far))
    haze = mid / (mid + jnp.asarray(skies.HAZE_UNITS)[sky])
    horizon_rgb = jnp.asarray(skies.HORIZON_RGB)[sky] * jnp.asarray(skies.LIGHT_RGB)[sky]
    top_rgb = ground_colours(level, hr, hc, ground) * (1.0 - haze)[..., None] + horizon_rgb * haze[..., None]
    riser = jnp.asarray(skies.RISER_RGB) * jnp.asarray(skies.LIGHT_RGB)[sky]
    riser_rgb = riser * (1.0 - haze)[..., None] + horizon_rgb * haze[..., None]
    slabs = {GROUND_SLABS: True, GROUND_TERRAIN: False}.get(ground, jnp.asarray(skies.SLABS)[sky])
    front_rgb = jnp.where(slabs, riser_rgb, top_rgb * FRONT_SHADE)
    shade = textures.distance_shade(mid)[..., None]
    cols = materialise((top, bottom, near_top, _rgb_word(top_rgb * shade), _rgb_word(front_rgb * shade)))
    top, bottom, near_top, top_word, front_word = cols

    # --- sprites: on the ground under them, hidden by nearer ground ----------
    base = level.floor_z[height_cell_of(level.floor_z, level.rows, pickup_pos[:, 0], pickup_pos[:, 1])]
    sc = sprites_lib.sprite_columns(
        pos, eye, view.forward, view.focal, view.horizon, width, jnp.full((width,), jnp.inf, f32),
        jnp.asarray(pickup_pos, f32), level.pickup_kind, jnp.asarray(pickup_present, bool),
        textures.distance_shade, base_z=base, scale=level.pickup_scale, masks=masks)
    kept = {k: v for k, v in sc._asdict().items() if v is not None}
    sc = sc._replace(**{k: v[None, :] for k, v in zip(kept, materialise(tuple(kept.values())))})

    # --- per pixel: the nearest sample holding it ---------------------------
    rc = (jnp.arange(height, dtype=f32) + f32(0.5))[:, None]
    word = jnp.broadcast_to(_sky_rows(sky, view.row_up, view.focal)[:, None], (height, width))
    dist = jnp.full((height, width), jnp.inf, f32)
    drawn = screens is not None and level.screen_box.shape[0] > 0   # static: only levels with screens
    for i in reversed(range(SAMPLES)):
        held = rc >= top[i][None, :]
        if ground != GROUND_TERRAIN:   # terrain is solid to the bottom of the frame
            held = held & (rc < bottom[i][None, :])
        word = jnp.where(held, jnp.where(rc >= near_top[i][None, :], front_word[i][None, :], top_word[i][None, :]),
                         word)
        if with_depth or drawn:
            dist = jnp.where(held, float(np.sqrt(SAMPLE_FAR[i] * SAMPLE_NEAR[i])), dist)
    in_sprite, sprite_k, second = sprites_lib.sprite_pixels(rc, sc)
    sprite_word = _word_of(jnp.where(second, sc.r2, sc.r) * sprite_k, jnp.where(second, sc.g2, sc.g) * sprite_k,
                           jnp.where(second, sc.b2, sc.b_) * sprite_k)
    word = jnp.where(in_sprite, sprite_word, word)
    if with_depth or drawn:
        dist = jnp.where(in_sprite, sc.dist, dist)
    if drawn:
        word, dist = draw_screens(word, dist, level, screens, view, pos, eye)
    if with_depth:
        depth = jnp.clip(jnp.round(dist * (1.0 / DEPTH_UNITS)), 0.0, 255.0).astype(jnp.uint32)
        word = word | (depth << 24)
    return words_to_bytes(word, 4 if with_depth else 3)
