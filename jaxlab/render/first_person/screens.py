"""Screens: upright rectangles of a level (``Level.screen_*``) that show a texture its script keeps in play state.

A screen stands in the plane x = x0 (when x0 == x1) or y = y0, from z0 to z1; its texture coordinates are
linear across it, ``screen_st`` giving s at its low and high horizontal ends and t at its bottom and top
(DMLab's patch texture coordinates: s runs across the image's columns, t down its rows). Each column's ray
meets the plane at a perpendicular distance t (the renderer's rays have a forward component of 1), each
pixel's row then at a height; a pixel shows the screen where that point lies on it, in front of the eye and
nearer than what the frame drew there (``dist``), so walls and nearer ground hide it. Texels are picked
nearest, no filtering. A level without screens (Q = 0) never calls :func:`draw_screens`.
"""
from __future__ import annotations

import jax.numpy as jnp


def draw_screens(word, dist, level, images, view, pos, eye_z):
    """``word`` with the level's screens drawn over it.

    Args:
      word: uint32[H, W] packed RGB words (byte k = channel k; the depth byte, if any, is added later).
      dist: float32[H, W] perpendicular distance (units) of what each pixel shows (inf: nothing).
      level: the Level (``screen_box`` float32[Q, 6], ``screen_st`` float32[Q, 4], ``screen_texture`` int32[Q]).
      images: uint8[T, h, w, 3] the script's live textures (RGB).
      view: the frame's ``camera.View``; pos: float32[2] eye (x, y) units; eye_z: float32[] eye height, units.

    Returns (uint32[H, W] words, float32[H, W] distances with the screens' pixels).
    """
    f32 = jnp.float32
    _, th, tw, _ = images.shape
    ray = view.ray                                     # [W, 2]
    for q in range(level.screen_box.shape[0]):         # static: a few screens
        x0, y0, z0, x1, y1, z1 = (level.screen_box[q, k] for k in range(6))
        s_lo, s_hi, t_lo, t_hi = (level.screen_st[q, k] for k in range(4))
        across_y = x0 == x1                            # the plane x = x0, spanning y; else y = y0, spanning x
        plane, eye_n, ray_n = (jnp.where(across_y, a, b) for a, b in ((x0, y0), (pos[0], pos[1]), (ray[:, 0], ray[:, 1])))
        lo, hi, eye_u, ray_u = (jnp.where(across_y, a, b) for a, b in ((y0, x0), (y1, x1), (pos[1], pos[0]),
                                                                        (ray[:, 1], ray[:, 0])))
        safe = jnp.where(jnp.abs(ray_n) > 1e-6, ray_n, f32(1e-6))
        t = (plane - eye_n) / safe                     # [W] perpendicular distance to the plane
        u = (eye_u + t * ray_u - lo) / jnp.maximum(hi - lo, f32(1e-6))
        column = (t > 0) & (u >= 0) & (u <= 1)
        s = s_lo + u * (s_hi - s_lo)
        tex_col = jnp.clip(jnp.floor(s * tw), 0, tw - 1).astype(jnp.int32)
        z = eye_z + view.row_up[:, None] * t[None, :] / view.focal       # [H, W] height where each pixel meets it
        v = (z - z0) / jnp.maximum(z1 - z0, f32(1e-6))
        tt = t_lo + v * (t_hi - t_lo)
        tex_row = jnp.clip(jnp.floor(tt * th), 0, th - 1).astype(jnp.int32)
        on = column[None, :] & (v >= 0) & (v <= 1) & (t[None, :] < dist)
        texel = images[level.screen_texture[q], tex_row, tex_col[None, :]].astype(jnp.uint32)   # [H, W, 3]
        word = jnp.where(on, texel[..., 0] | (texel[..., 1] << 8) | (texel[..., 2] << 16), word)
        dist = jnp.where(on, t[None, :], dist)
    return word, dist
