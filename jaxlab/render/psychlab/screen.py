"""The PsychLab screen as the agent sees it: a window of the screen around the gaze, with a red
fixation cross (the reticle) fixed at the frame centre.

Screen coordinates: x from -1 (left edge) to 1 (right edge), y from -``SCREEN_HALF_HEIGHT`` (bottom) to
``SCREEN_HALF_HEIGHT`` (top): a 4:3 screen. The frame shows a 4:3 window ``VIEW_SCALE`` times the
screen's size centred on the gaze point, so at a centred gaze the whole screen shows with a thin
margin of the dark room around it, and moving the gaze pans the view. Images are sampled from a
precomputed atlas (``image_atlas``: every image at ``ATLAS_SIDE`` texels a side).

What the screen shows is a fixed number of ``Slots``: axis-aligned squares, each drawn (``KIND_*``)
as a procedural image, a colour swatch, a response button or the fixation mark (a white ring); a
later slot covers an earlier one. Rendering is vectorised over pixels and slots.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.render.psychlab.images import NUM_IMAGES, SWATCHES, image_colour

SCREEN_HALF_HEIGHT = 0.75
VIEW_SCALE = 1.15
KIND_NONE, KIND_IMAGE, KIND_SWATCH, KIND_BUTTON, KIND_FIXATION = range(5)
SCREEN_GREY = (118.0, 118.0, 118.0)
ROOM = (28.0, 28.0, 34.0)
BUTTON = (235.0, 235.0, 235.0)
BORDER = (40.0, 40.0, 40.0)
FIXATION_MARK = (255.0, 255.0, 255.0)
RETICLE = (255, 0, 0)
#: texels a side of each image in the atlas frames draw images from
ATLAS_SIDE = 16


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


def pack(rgb) -> np.ndarray:
    """int32[...]: RGB triples (``[..., 3]``, 0..255) packed as r + 256 g + 65536 b."""
    rgb = np.round(np.asarray(rgb, np.float64)).astype(np.int32)
    return rgb[..., 0] + (rgb[..., 1] << 8) + (rgb[..., 2] << 16)


def unpack(packed) -> jnp.ndarray:
    """uint8[..., 3]: the RGB triples of packed colours (int32[...])."""
    return jnp.stack([packed & 255, (packed >> 8) & 255, (packed >> 16) & 255], axis=-1).astype(jnp.uint8)


@functools.lru_cache(maxsize=None)
def image_atlas() -> np.ndarray:
    """int32[NUM_IMAGES * ATLAS_SIDE²]: every procedural image sampled on an ``ATLAS_SIDE`` ×
    ``ATLAS_SIDE`` grid (row-major, top row first), packed (``pack``), computed once; frames look
    images up in it."""
    c = (np.arange(ATLAS_SIDE, dtype=np.float32) + 0.5) / ATLAS_SIDE * 2.0 - 1.0
    ids = np.arange(NUM_IMAGES, dtype=np.int32)[:, None, None]
    with jax.ensure_compile_time_eval():          # concrete even when first asked inside a jit
        rgb = np.asarray(image_colour(ids, c[None, None, :], -c[None, :, None]))
    return pack(rgb).reshape(-1)


def slot_colour(kind, ident, u, v) -> jnp.ndarray:
    """int32[...] packed colour (``pack``) of a slot of ``kind`` and ``ident`` at its local (u, v) (each
    in [-1, 1], v up); images come from ``image_atlas``; the fixation mark is a ring, the screen grey
    showing inside and around it."""
    border = jnp.maximum(jnp.abs(u), jnp.abs(v)) > 0.82
    col = jnp.clip(jnp.floor((u + 1.0) * 0.5 * ATLAS_SIDE), 0, ATLAS_SIDE - 1).astype(jnp.int32)
    row = jnp.clip(jnp.floor((1.0 - v) * 0.5 * ATLAS_SIDE), 0, ATLAS_SIDE - 1).astype(jnp.int32)
    texel = (jnp.clip(ident, 0, NUM_IMAGES - 1) * ATLAS_SIDE + row) * ATLAS_SIDE + col
    image = jnp.asarray(image_atlas())[texel]
    swatch = jnp.asarray(pack(SWATCHES))[jnp.clip(ident, 0, len(SWATCHES) - 1)]
    radius2 = u * u + v * v
    fixation = jnp.where((radius2 > 0.36) & (radius2 < 1.0), int(pack(FIXATION_MARK)), int(pack(SCREEN_GREY)))
    filled = jnp.where(kind == KIND_IMAGE, image, jnp.where(kind == KIND_SWATCH, swatch, int(pack(BUTTON))))
    framed = jnp.where(border & (kind != KIND_IMAGE), int(pack(BORDER)), filled)
    return jnp.where(kind == KIND_FIXATION, fixation, framed)


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
    # slots are axis-aligned squares: their local u depends on the column only, v on the row only;
    # later slots cover earlier ones (a static loop of selects: no gathers, one fused pass)
    u = (points[0, :, 0][None, :] - slots.centre[:, :1]) / slots.half[:, None]       # [N, W]
    v = (points[:, 0, 1][None, :] - slots.centre[:, 1:]) / slots.half[:, None]       # [N, H]
    shape = (height, width)
    hit, kind, ident = jnp.zeros(shape, bool), jnp.zeros(shape, jnp.int32), jnp.zeros(shape, jnp.int32)
    top_u, top_v = jnp.zeros(shape, jnp.float32), jnp.zeros(shape, jnp.float32)
    for i in range(slots.kind.shape[0]):
        inside = ((jnp.abs(u[i]) <= 1.0)[None, :] & (jnp.abs(v[i]) <= 1.0)[:, None]) & (slots.kind[i] != KIND_NONE)
        hit = hit | inside
        kind = jnp.where(inside, slots.kind[i], kind)
        ident = jnp.where(inside, slots.ident[i], ident)
        top_u = jnp.where(inside, u[i][None, :], top_u)
        top_v = jnp.where(inside, v[i][:, None], top_v)
    colour = slot_colour(kind, ident, top_u, top_v)
    on_screen = (jnp.abs(points[..., 0]) <= 1.0) & (jnp.abs(points[..., 1]) <= SCREEN_HALF_HEIGHT)
    backdrop = jnp.where(on_screen, int(pack(SCREEN_GREY)), int(pack(ROOM)))
    frame = jnp.where(hit, colour, backdrop)
    return unpack(jnp.where(reticle_mask(width, height), int(pack(RETICLE)), frame))
