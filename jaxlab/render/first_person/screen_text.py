"""Screen text (DMLab ``screenMessages``) drawn over a frame with a bitmap font.

The glyphs are Pillow's built-in default bitmap font (``ImageFont.
load_default_imagefont()``, or ``load_default()`` on an older Pillow),
rasterised once at import into ``GLYPHS``, a bool[95, GH, GW] table for ASCII
32..126; other non-zero codes draw as blanks. No font data is stored here.

Messages live in DMLab's virtual 640×480 screen (origin top-left): a
character cell is ``CHAR_WIDTH``×``CHAR_HEIGHT`` virtual pixels (the text
line height is 20), scaled to the frame's width×height. A frame pixel is
ink when set glyph texels cover at least ``INK_COVERAGE`` of its footprint
(area-weighted box filter, then a threshold). Ink is white; a copy shifted one frame pixel right and
down is drawn black first, as a shadow. The depth byte of RGBD frames is kept.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from PIL import Image, ImageDraw, ImageFont

VIRTUAL_WIDTH, VIRTUAL_HEIGHT = 640.0, 480.0   # DMLab's virtual screen, pixels
LINE_HEIGHT = 20.0                             # virtual pixels between lines
CHAR_WIDTH, CHAR_HEIGHT = 8.0, 16.0            # virtual pixels per character cell
FIRST_CODE, LAST_CODE = 32, 126                # the printable ASCII in GLYPHS
INK_COVERAGE = 0.3                             # fraction of a pixel's footprint that makes it ink


def _rasterise_default_font() -> np.ndarray:
    """bool[95, GH, GW]: Pillow's default bitmap font, one cell per ASCII 32..126."""
    load = getattr(ImageFont, "load_default_imagefont", None) or ImageFont.load_default
    font = load()
    chars = [chr(c) for c in range(FIRST_CODE, LAST_CODE + 1)]
    boxes = [font.getbbox(c) for c in chars]
    width = max(1, max(b[2] for b in boxes))
    height = max(1, max(b[3] for b in boxes))
    table = np.zeros((len(chars), height, width), bool)
    for i, c in enumerate(chars):
        image = Image.new("L", (width, height), 0)
        ImageDraw.Draw(image).text((0, 0), c, fill=255, font=font)
        table[i] = np.asarray(image) > 127
    return table


GLYPHS = _rasterise_default_font()


def _overlap(lo, hi, texels: int, texel_size: float):
    """float32[..., texels]: the part of each texel [k s, (k+1) s) inside the
    interval [lo, hi), in texels (0..1)."""
    k = jnp.arange(texels, dtype=jnp.float32) * texel_size
    inside = jnp.minimum(hi[..., None], k + texel_size) - jnp.maximum(lo[..., None], k)
    return jnp.maximum(inside, 0.0) * (1.0 / texel_size)


def text_masks(level, width: int, height: int):
    """Where ``level``'s valid screen messages put ink and shadow in a frame.

    Args:
      level: an unbatched Level (``text_chars`` int32[M, L], ``text_pos``
        float32[M, 2] virtual pixels, ``text_align`` int32[M], ``text_valid`` bool[M]).
      width, height: static frame size in pixels.

    Returns:
      (ink bool[height, width], shadow bool[height, width]); the shadow is
      the ink shifted one pixel right and down, minus the ink.
    """
    f32 = jnp.float32
    chars = jnp.asarray(level.text_chars, jnp.int32)               # [M, L]
    m, n = chars.shape
    glyph_h, glyph_w = GLYPHS.shape[1:]
    if m == 0 or n == 0:
        none = jnp.zeros((height, width), bool)
        return none, none
    pos = jnp.asarray(level.text_pos, f32)
    align = jnp.asarray(level.text_align, jnp.int32)
    length = jnp.sum(jnp.cumprod(chars != 0, axis=1), axis=1)      # [M] characters before the first 0
    span = length.astype(f32) * CHAR_WIDTH
    left = pos[:, 0] - jnp.where(align == 1, span, jnp.where(align == 2, 0.5 * span, 0.0))  # [M]
    sx, sy = VIRTUAL_WIDTH / width, VIRTUAL_HEIGHT / height

    # Per column: which character, and how much of each glyph column the pixel covers.
    x = jnp.arange(width, dtype=f32)
    rel = (x[None, :] + 0.5) * sx - left[:, None]                   # [M, W] virtual px from the left edge
    index = jnp.floor(rel / CHAR_WIDTH).astype(jnp.int32)
    inside = level.text_valid[:, None] & (rel >= 0) & (index < length[:, None])
    code = jnp.take_along_axis(chars, jnp.clip(index, 0, n - 1), axis=1)
    printable = (code >= FIRST_CODE) & (code <= LAST_CODE)
    glyph = jnp.where(printable, code - FIRST_CODE, 0)             # blank (space) otherwise
    cell_left = left[:, None] + index.astype(f32) * CHAR_WIDTH
    tw, th = CHAR_WIDTH / glyph_w, CHAR_HEIGHT / glyph_h         # virtual px per texel
    cols = _overlap(x * sx - cell_left, (x + 1.0) * sx - cell_left, glyph_w, tw)       # [M, W, GW]
    cols = cols * inside[..., None]
    texels = jnp.asarray(GLYPHS, f32)[glyph]                       # [M, W, GH, GW]
    column_ink = jnp.einsum("mwrc,mwc->mwr", texels, cols)         # [M, W, GH] texels covered

    # Per row: how much of each glyph row the pixel covers; then rows x columns.
    y = jnp.arange(height, dtype=f32)
    top = pos[:, 1][:, None]
    rows = _overlap(y * sy - top, (y + 1.0) * sy - top, glyph_h, th)  # [M, H, GH]
    covered = jnp.einsum("mhr,mwr->hw", rows, column_ink)           # texels (area) under each pixel
    ink = covered >= INK_COVERAGE * (sx / tw) * (sy / th)
    shifted = jnp.zeros_like(ink).at[1:, 1:].set(ink[:-1, :-1])
    return ink, shifted & ~ink


def draw_text(frame: jnp.ndarray, level) -> jnp.ndarray:
    """Draw ``level``'s screen messages over ``frame``: white ink, black shadow.

    Args:
      frame: uint8[H, W, C] (C >= 3; channels past 2, e.g. depth, are kept)
        or a packed uint32[H, W] frame (byte k = channel k; byte 3 kept).
      level: an unbatched Level (see ``text_masks``).

    Returns the frame with the same shape and dtype. A level with no message
    slots (M == 0) returns ``frame`` itself; vmap it for a batch.
    """
    if level.text_chars.shape[0] == 0 or level.text_chars.shape[-1] == 0:
        return frame
    if frame.ndim == 2:
        height, width = frame.shape
        ink, shadow = text_masks(level, width, height)
        keep = frame & jnp.uint32(0xFF000000)
        return jnp.where(ink, keep | jnp.uint32(0x00FFFFFF), jnp.where(shadow, keep, frame))
    height, width = frame.shape[:2]
    ink, shadow = text_masks(level, width, height)
    rgb = frame[..., :3]
    rgb = jnp.where(ink[..., None], jnp.uint8(255), jnp.where(shadow[..., None], jnp.uint8(0), rgb))
    return jnp.concatenate([rgb, frame[..., 3:]], axis=-1)
