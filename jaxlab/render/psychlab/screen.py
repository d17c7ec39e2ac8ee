"""The PsychLab screen as the agent sees it: a window of the screen around the gaze, with a red
fixation cross (the reticle) fixed at the frame centre.

Screen coordinates: x from -1 (left edge) to 1 (right edge), y from -``SCREEN_HALF_HEIGHT`` (bottom) to
``SCREEN_HALF_HEIGHT`` (top): a 4:3 screen. The frame shows a 4:3 window ``VIEW_SCALE`` times the
screen's size centred on the gaze point, so at a centred gaze the whole screen shows with a thin
margin of the dark room around it, and moving the gaze pans the view.

What the screen shows is a fixed number of ``Slots``: axis-aligned squares, each drawn (``KIND_*``)
as a procedural image, a colour swatch, a response button or the fixation mark (a white ring); a
later slot covers an earlier one. Rendering is vectorised over pixels and slots.
"""
from __future__ import annotations

import jax.numpy as jnp
from flax import struct

from jaxlab.render.psychlab.images import image_colour, swatch_colour

SCREEN_HALF_HEIGHT = 0.75
VIEW_SCALE = 1.15
KIND_NONE, KIND_IMAGE, KIND_SWATCH, KIND_BUTTON, KIND_FIXATION = range(5)
SCREEN_GREY = (118.0, 118.0, 118.0)
ROOM = (28.0, 28.0, 34.0)
BUTTON = (235.0, 235.0, 235.0)
BORDER = (40.0, 40.0, 40.0)
FIXATION_MARK = (255.0, 255.0, 255.0)
RETICLE = (255, 0, 0)


@struct.dataclass
class Slots:
    """N things on the screen: centre float32[N, 2] (screen x, y), half float32[N] (half side, screen
    units), kind int32[N] (``KIND_*``; ``KIND_NONE``: hidden), ident int32[N] (image or swatch id)."""

    centre: jnp.ndarray
    half: jnp.ndarray
    kind: jnp.ndarray
    ident: jnp.ndarray


def pixel_points(gaze, width: int, height: int) -> jnp.ndarray:
    """float32[H, W, 2] the screen point (x, y) each frame pixel shows, the frame centred on ``gaze``
    (float32[2], screen units)."""
    cols = ((jnp.arange(width, dtype=jnp.float32) + 0.5) / width * 2.0 - 1.0) * VIEW_SCALE
    rows = (1.0 - (jnp.arange(height, dtype=jnp.float32) + 0.5) / height * 2.0) * SCREEN_HALF_HEIGHT * VIEW_SCALE
    x = jnp.broadcast_to(cols[None, :], (height, width)) + gaze[0]
    y = jnp.broadcast_to(rows[:, None], (height, width)) + gaze[1]
    return jnp.stack([x, y], axis=-1)


def slot_colour(kind, ident, u, v) -> jnp.ndarray:
    """float32[..., 3] RGB in [0, 255] of a slot of ``kind`` and ``ident`` at its local (u, v) (each in
    [-1, 1]); the fixation mark is a ring, the screen grey showing inside and around it."""
    border = jnp.maximum(jnp.abs(u), jnp.abs(v)) > 0.82
    image = image_colour(ident, u, v)
    swatch = jnp.where(border[..., None], jnp.asarray(BORDER), swatch_colour(ident))
    button = jnp.where(border[..., None], jnp.asarray(BORDER), jnp.asarray(BUTTON))
    radius = jnp.sqrt(u * u + v * v)
    ring = (radius > 0.6) & (radius < 1.0)
    fixation = jnp.where(ring[..., None], jnp.asarray(FIXATION_MARK), jnp.asarray(SCREEN_GREY))
    k = kind[..., None]
    return jnp.select([k == KIND_IMAGE, k == KIND_SWATCH, k == KIND_BUTTON], [image, swatch, button], fixation)


def reticle_mask(width: int, height: int) -> jnp.ndarray:
    """bool[H, W]: the red fixation cross at the frame centre (arms ``width / 24`` pixels, about
    ``width / 48`` thick)."""
    thick = max(1, round(width / 48)) / 2.0
    arm = max(2.0, width / 24)
    dx = jnp.arange(width, dtype=jnp.float32)[None, :] + 0.5 - width / 2.0
    dy = jnp.arange(height, dtype=jnp.float32)[:, None] + 0.5 - height / 2.0
    return ((jnp.abs(dy) < thick) & (jnp.abs(dx) < arm)) | ((jnp.abs(dx) < thick) & (jnp.abs(dy) < arm))


def render_screen(slots: Slots, gaze, width: int, height: int) -> jnp.ndarray:
    """uint8[H, W, 3]: the frame of the screen showing ``slots``, looked at with gaze ``gaze``
    (float32[2], screen units), the reticle on top."""
    points = pixel_points(jnp.asarray(gaze, jnp.float32), width, height)
    offset = points[:, :, None, :] - slots.centre                           # [H, W, N, 2]
    local = offset / slots.half[:, None]
    inside = (jnp.max(jnp.abs(local), axis=-1) <= 1.0) & (slots.kind != KIND_NONE)
    n = slots.kind.shape[0]
    top = jnp.argmax(jnp.where(inside, jnp.arange(n), -1), axis=-1)          # [H, W] the last slot hit
    hit = inside.any(axis=-1)
    uv = jnp.take_along_axis(local, top[:, :, None, None], axis=2)[:, :, 0]
    colour = slot_colour(slots.kind[top], slots.ident[top], uv[..., 0], uv[..., 1])
    on_screen = (jnp.abs(points[..., 0]) <= 1.0) & (jnp.abs(points[..., 1]) <= SCREEN_HALF_HEIGHT)
    backdrop = jnp.where(on_screen[..., None], jnp.asarray(SCREEN_GREY), jnp.asarray(ROOM))
    frame = jnp.where(hit[..., None], colour, backdrop)
    frame = jnp.round(frame).astype(jnp.uint8)
    return jnp.where(reticle_mask(width, height)[..., None], jnp.asarray(RETICLE, jnp.uint8), frame)
