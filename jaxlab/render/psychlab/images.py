"""Procedural PsychLab stimuli: image ids -> small RGB patterns, and the change-detection colour swatches.

An image id (int32, 0 ≤ id < ``stimuli.NUM_IMAGES``) is scrambled by a bijection of 12 bits (``scramble``),
and the scrambled bits choose, field by field: a shape mask (3 bits: disc, square, triangle, ring,
diamond, cross, hourglass, four dots), a foreground colour (4 bits, ``PALETTE``), a background colour
(3 bits: one of the 8 palette colours after the foreground, never the foreground itself) and a texture
on the shape (2 bits: flat, vertical stripes, diagonal stripes, checks). Distinct ids are distinct
combinations. Scrambling first spreads every feature over both even (train) and odd (holdout) ids.

Every function is pure jnp and works per pixel: ``image_colour(ids, u, v)`` broadcasts over arrays of
ids and coordinates, so a renderer calls it once for a whole frame.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

#: 16 well separated colours (RGB 0..255) the images draw their two colours from
PALETTE = np.array([
    [230, 25, 75], [60, 180, 75], [255, 225, 25], [0, 130, 200], [245, 130, 48], [145, 30, 180],
    [70, 240, 240], [240, 50, 230], [210, 245, 60], [250, 190, 212], [0, 128, 128], [170, 110, 40],
    [255, 250, 200], [128, 0, 0], [0, 0, 128], [20, 20, 20]], np.float32)
#: change_detection's colours, in ``jaxlab.levels.dmlab.psychlab.stimuli.SWATCH_NAMES`` order (ids 0..9)
SWATCHES = np.array([
    [153, 102, 204], [200, 120, 160], [0, 168, 107], [196, 142, 72], [225, 245, 215],
    [143, 0, 255], [170, 255, 0], [255, 128, 0], [120, 190, 255], [255, 235, 0]], np.float32)


def scramble(ids) -> jnp.ndarray:
    """int32 like ``ids``: a bijection of [0, 4096) (odd multiplies and xor-shifts on 12 bits)."""
    h = jnp.asarray(ids, jnp.int32) & 0xFFF
    h = (h * 2533) & 0xFFF
    h = h ^ (h >> 6)
    h = (h * 1715) & 0xFFF
    return h ^ (h >> 5)


def image_features(ids):
    """(shape, foreground, background, texture) int32 like ``ids``: shape in [0, 8), palette indices
    foreground ≠ background in [0, 16), texture in [0, 4)."""
    h = scramble(ids)
    shape, fg, bg_step, texture = h & 7, (h >> 3) & 15, (h >> 7) & 7, (h >> 10) & 3
    return shape, fg, (fg + 1 + bg_step) & 15, texture


def shape_mask(shape, u, v) -> jnp.ndarray:
    """bool: the point (u, v) (each in [-1, 1], v up) lies inside shape ``shape`` (int32 in [0, 8))."""
    r = jnp.sqrt(u * u + v * v)
    au, av = jnp.abs(u), jnp.abs(v)
    masks = jnp.stack([
        r < 0.8,                                                   # disc
        jnp.maximum(au, av) < 0.65,                                # square
        (v > -0.65) & (au < 0.5 * (0.75 - v)),                     # triangle, apex up
        (r > 0.45) & (r < 0.85),                                   # ring
        au + av < 0.85,                                            # diamond
        ((au < 0.25) | (av < 0.25)) & (jnp.maximum(au, av) < 0.8),  # cross
        (au < av) & (av < 0.8),                                    # hourglass
        (au - 0.45) ** 2 + (av - 0.45) ** 2 < 0.09,                # four dots
    ], axis=-1)
    return jnp.take_along_axis(masks, jnp.clip(shape, 0, 7)[..., None], axis=-1)[..., 0]


def texture_shade(texture, u, v) -> jnp.ndarray:
    """float32 in {0.6, 1}: the brightness the texture ``texture`` (0 flat, 1 vertical stripes,
    2 diagonal stripes, 3 checks) gives the point (u, v) (each in [-1, 1])."""
    stripes = jnp.floor((u + 1.0) * 2.5) % 2
    diagonal = jnp.floor((u + v + 2.0) * 2.0) % 2
    checks = (jnp.floor((u + 1.0) * 2.0) + jnp.floor((v + 1.0) * 2.0)) % 2
    dark = jnp.select([texture == 1, texture == 2, texture == 3], [stripes, diagonal, checks], 0.0)
    return 1.0 - 0.4 * dark


def image_colour(ids, u, v) -> jnp.ndarray:
    """float32[..., 3] RGB in [0, 255] of image ``ids`` (int32) at (u, v) (each in [-1, 1] across the
    image, v up); ids, u, v broadcast together."""
    shape, fg, bg, texture = image_features(ids)
    palette = jnp.asarray(PALETTE)
    inside = shape_mask(shape, u, v)
    fore = palette[fg] * texture_shade(texture, u, v)[..., None]
    return jnp.where(inside[..., None], fore, palette[bg])


def swatch_colour(ids) -> jnp.ndarray:
    """float32[..., 3] RGB in [0, 255] of change_detection colour ``ids`` (int32 in [0, 10))."""
    return jnp.asarray(SWATCHES)[jnp.clip(jnp.asarray(ids, jnp.int32), 0, len(SWATCHES) - 1)]
