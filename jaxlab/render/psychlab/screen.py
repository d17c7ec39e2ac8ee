"""The PsychLab screen as the agent sees it: a window of the screen around the gaze, with a red
fixation cross (the reticle) fixed at the frame centre.

Screen coordinates: x from -1 (left edge) to 1 (right edge), y from -``SCREEN_HALF_HEIGHT`` (bottom) to
``SCREEN_HALF_HEIGHT`` (top): a 4:3 screen. The frame shows a 4:3 window ``VIEW_SCALE`` times the
screen's size centred on the gaze point, so at a centred gaze the whole screen shows with a thin
margin of the dark room around it, and moving the gaze pans the view.

The DMLab-30 PsychLab levels use the same renderer with their own screen (square, white), window
(DMLab's field of view) and no red reticle (``render_screen``'s keywords), their tiles appended to
the bank (``dmlab30_tiles``), and a ``Grid`` of cells under the slots: a square of n×n cells each
showing a tile of its own, found per pixel by one lookup in the n×n table of cell tiles.

What the screen shows is a fixed number of ``Slots``: axis-aligned squares, each drawn (``KIND_*``)
as a procedural image, a colour swatch, a response button or the fixation mark (a white ring); a
later slot covers an earlier one. Every way a slot can look is a tile of ``ATLAS_SIDE`` ×
``ATLAS_SIDE`` texels in one precomputed bank (``tile_bank``: every image, every swatch framed, the
button, the ring, the plain screen and the room), so a frame is an index per pixel into the bank.
A slot's texel column depends on the frame column only and its row on the frame row only: they are
computed per slot for the W columns and H rows, and the per-pixel loop is one add and one select per
slot, then one lookup (about 10 ns a pixel on the CPU).
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.psychlab.stimuli import (KIND_BUTTON, KIND_FIXATION, KIND_IMAGE, KIND_SWATCH, KIND_TILE,
                                                  NUM_IMAGES)
from jaxlab.render.fusion import materialise, words_to_bytes
from jaxlab.render.psychlab.dmlab30_tiles import dmlab30_tiles
from jaxlab.render.psychlab.images import SWATCHES, image_colour

SCREEN_HALF_HEIGHT = 0.75
VIEW_SCALE = 1.15
SCREEN_GREY = (118.0, 118.0, 118.0)
ROOM = (28.0, 28.0, 34.0)
BUTTON = (235.0, 235.0, 235.0)
BORDER = (40.0, 40.0, 40.0)
FIXATION_MARK = (255.0, 255.0, 255.0)
RETICLE = (255, 0, 0)
#: texels a side of each tile (image, swatch, button, ring) in the bank frames draw from
ATLAS_SIDE = 16
TILE_TEXELS = ATLAS_SIDE * ATLAS_SIDE
#: tiles in ``tile_bank`` after the NUM_IMAGES images: the swatches, then one each of the rest
SWATCH_TILE = NUM_IMAGES
BUTTON_TILE = SWATCH_TILE + len(SWATCHES)
FIXATION_TILE = BUTTON_TILE + 1
SCREEN_TILE = FIXATION_TILE + 1
ROOM_TILE = SCREEN_TILE + 1
#: the first of the DMLab-30 screens' tiles (``dmlab30_tiles``'s offsets count from it)
DMLAB30_TILE = ROOM_TILE + 1
#: a per-slot column or row value marking "outside the slot": any sum with it is negative
_OUTSIDE = -float(1 << 24)


@struct.dataclass
class Slots:
    """N things on the screen: centre float32[N, 2] (screen x, y), half float32[N] (half side, screen
    units), kind int32[N] (``KIND_*``; ``KIND_NONE``: hidden), ident int32[N] (image or swatch id)."""

    centre: jnp.ndarray
    half: jnp.ndarray
    kind: jnp.ndarray
    ident: jnp.ndarray


@struct.dataclass
class Grid:
    """A square of n×n cells under the slots: corner float32[2] (x, y of its top-left corner, screen
    units), cell float32[] (a cell's side, screen units), tiles int32[n * n] (each cell's ``tile_bank``
    tile, row-major from the top left; -1: the cell is not drawn)."""

    corner: jnp.ndarray
    cell: jnp.ndarray
    tiles: jnp.ndarray


def pack(rgb) -> np.ndarray:
    """uint32[...]: RGB triples (``[..., 3]``, 0..255) packed as r + 256 g + 65536 b."""
    rgb = np.round(np.asarray(rgb, np.float64)).astype(np.uint32)
    return rgb[..., 0] + (rgb[..., 1] << 8) + (rgb[..., 2] << 16)


def texel_centres() -> tuple:
    """(u, v) float32[ATLAS_SIDE, ATLAS_SIDE] each: the local coordinates (in [-1, 1], v up) of every
    texel's centre, row-major with the top row first."""
    c = (np.arange(ATLAS_SIDE, dtype=np.float32) + 0.5) / ATLAS_SIDE * 2.0 - 1.0
    return np.broadcast_to(c[None, :], (ATLAS_SIDE,) * 2), np.broadcast_to(-c[:, None], (ATLAS_SIDE,) * 2)


@functools.lru_cache(maxsize=None)
def tile_bank() -> np.ndarray:
    """uint32[(DMLAB30_TILE + dmlab30_tiles.NUM_TILES) * TILE_TEXELS]: every tile a slot, a grid cell or
    the backdrop can show, packed (``pack``), tile ``t`` at ``t * TILE_TEXELS`` (row-major, top row
    first), computed once: tiles 0..NUM_IMAGES-1 the procedural images, then each swatch and the
    button (framed by a one-texel dark border), the fixation mark (a white ring on screen grey), the
    plain screen, the room, then the DMLab-30 screens' tiles."""
    u, v = texel_centres()
    ids = np.arange(NUM_IMAGES, dtype=np.int32)[:, None, None]
    with jax.ensure_compile_time_eval():          # concrete even when first asked inside a jit
        images = pack(np.asarray(image_colour(ids, u[None], v[None])))
    border = np.maximum(np.abs(u), np.abs(v)) > 0.82
    radius2 = u * u + v * v
    framed = [np.where(border, pack(BORDER), pack(rgb)) for rgb in [*SWATCHES, BUTTON]]
    ring = np.where((radius2 > 0.36) & (radius2 < 1.0), pack(FIXATION_MARK), pack(SCREEN_GREY))
    plain = [np.full((ATLAS_SIDE, ATLAS_SIDE), pack(rgb), np.uint32) for rgb in (SCREEN_GREY, ROOM)]
    return np.concatenate([images.reshape(-1)] + [t.reshape(-1) for t in [*framed, ring, *plain]]
                          + [pack(dmlab30_tiles(ATLAS_SIDE)).reshape(-1)])


def slot_tile(kind, ident) -> jnp.ndarray:
    """int32 like ``kind``: the ``tile_bank`` tile a slot of ``kind`` (``KIND_*``) and ``ident`` (image
    or swatch id, clipped to range; for ``KIND_TILE`` the tile's number) shows; -1 for ``KIND_NONE``."""
    return jnp.select([kind == KIND_IMAGE, kind == KIND_SWATCH, kind == KIND_BUTTON, kind == KIND_FIXATION,
                       kind == KIND_TILE],
                      [jnp.clip(ident, 0, NUM_IMAGES - 1), SWATCH_TILE + jnp.clip(ident, 0, len(SWATCHES) - 1),
                       BUTTON_TILE, FIXATION_TILE, ident], -1).astype(jnp.int32)


def reticle_mask(width: int, height: int) -> jnp.ndarray:
    """bool[H, W]: the red fixation cross at the frame centre (arms ``width / 24`` pixels, about
    ``width / 48`` thick)."""
    thick = max(1, round(width / 48)) / 2.0
    arm = max(2.0, width / 24)
    dx = jnp.arange(width, dtype=jnp.float32)[None, :] + 0.5 - width / 2.0
    dy = jnp.arange(height, dtype=jnp.float32)[:, None] + 0.5 - height / 2.0
    return ((jnp.abs(dy) < thick) & (jnp.abs(dx) < arm)) | ((jnp.abs(dx) < thick) & (jnp.abs(dy) < arm))


def texel_lines(coord, centre, half, flip: bool) -> tuple:
    """Per rectangle and frame line, where the line crosses it.

    Args:
      coord: float32[L] the screen coordinate of each frame column (x) or row (y); centre, half:
        float32[R] the rectangles' centres and half extents along that axis; flip: True for rows
        (texel row 0 is the top, at the largest y).
    Returns:
      (inside bool[R, L], texel float32[R, L] the texel index 0..ATLAS_SIDE-1 along the axis).
    """
    local = (coord[None, :] - centre[:, None]) / half[:, None]
    along = -local if flip else local
    texel = jnp.clip(jnp.floor((along + 1.0) * 0.5 * ATLAS_SIDE), 0, ATLAS_SIDE - 1)
    return jnp.abs(local) <= 1.0, texel


def grid_parts(grid: Grid, xs, ys) -> tuple:
    """Per frame column and row, where ``grid`` (n×n cells) lies: (cell_col float32[W] the cell column,
    texel_col float32[W] the texel column, cell_row float32[H] n × the cell row, texel_row float32[H]
    ATLAS_SIDE × the texel row), a part outside the grid ``_OUTSIDE``; ``xs``, ``ys``: float32[W],
    float32[H] the columns' and rows' screen coordinates."""
    n = round(grid.tiles.shape[0] ** 0.5)
    parts = []
    for along, scale in (((xs - grid.corner[0]) / grid.cell, 1), ((grid.corner[1] - ys) / grid.cell, n)):
        inside = (along >= 0.0) & (along < n)
        texel = jnp.clip(jnp.floor((along - jnp.floor(along)) * ATLAS_SIDE), 0, ATLAS_SIDE - 1)
        parts += [jnp.where(inside, jnp.floor(along) * scale, _OUTSIDE),
                  jnp.where(inside, texel * (1 if scale == 1 else ATLAS_SIDE), 0.0)]
    return tuple(parts)


def render_screen(slots: Slots, gaze, width: int, height: int, grid: Grid = None,
                  screen_half=(1.0, SCREEN_HALF_HEIGHT), view_half=(VIEW_SCALE, SCREEN_HALF_HEIGHT * VIEW_SCALE),
                  screen_tile: int = SCREEN_TILE, reticle: bool = True) -> jnp.ndarray:
    """uint8[H, W, 3]: the frame of the screen showing ``grid`` (if any) and ``slots`` over it, looked at
    with gaze ``gaze`` (float32[2], screen units).

    Static keywords: screen_half (the screen's half width and height, screen units); view_half (the
    frame's half width and height on the screen's plane, screen units); screen_tile (the tile the
    screen shows where nothing is); reticle (draw the red reticle on top)."""
    gaze = jnp.asarray(gaze, jnp.float32)
    xs = ((jnp.arange(width, dtype=jnp.float32) + 0.5) / width * 2.0 - 1.0) * view_half[0] + gaze[0]
    ys = (1.0 - (jnp.arange(height, dtype=jnp.float32) + 0.5) / height * 2.0) * view_half[1] + gaze[1]
    # rectangle 0 is the screen itself (over the room); the slots follow, later ones on top
    centre = jnp.concatenate([jnp.zeros((1, 2), jnp.float32), slots.centre.astype(jnp.float32)])
    half = slots.half.astype(jnp.float32)
    half_x = jnp.concatenate([jnp.full((1,), screen_half[0], jnp.float32), half])
    half_y = jnp.concatenate([jnp.full((1,), screen_half[1], jnp.float32), half])
    tile = jnp.concatenate([jnp.full((1,), screen_tile, jnp.int32), slot_tile(slots.kind, slots.ident)])
    in_col, texel_col = texel_lines(xs, centre[:, 0], half_x, flip=False)
    in_row, texel_row = texel_lines(ys, centre[:, 1], half_y, flip=True)
    # bank offsets: a pixel of rectangle r sits at column part + row part; "outside" makes it negative
    column_part = jnp.where(in_col & (tile[:, None] >= 0), tile[:, None] * float(TILE_TEXELS) + texel_col, _OUTSIDE)
    row_part = jnp.where(in_row, texel_row * ATLAS_SIDE, _OUTSIDE)
    parts = materialise([jnp.concatenate([column_part, row_part], axis=1)])[0]      # computed once, not per pixel
    column_part, row_part = parts[:, :width], parts[:, width:]
    offset = jnp.full((height, width), float(ROOM_TILE * TILE_TEXELS), jnp.float32)
    for r in range(column_part.shape[0]):
        at = column_part[r][None, :] + row_part[r][:, None]
        offset = jnp.where(at >= 0.0, at, offset)
        if r == 0 and grid is not None:   # the grid's cells, over the screen and under the slots
            lines = materialise([jnp.concatenate(grid_parts(grid, xs, ys))])[0]
            cell_col, texel_c, cell_row, texel_r = jnp.split(lines, [width, 2 * width, 2 * width + height])
            cell = cell_col[None, :] + cell_row[:, None]
            cell_tile = grid.tiles.astype(jnp.float32)[jnp.clip(cell, 0, grid.tiles.shape[0] - 1).astype(jnp.int32)]
            at = cell_tile * float(TILE_TEXELS) + texel_c[None, :] + texel_r[:, None]
            offset = jnp.where((cell >= 0.0) & (cell_tile >= 0.0), at, offset)
    packed = jnp.asarray(tile_bank())[offset.astype(jnp.int32)]
    if reticle:
        packed = jnp.where(reticle_mask(width, height), jnp.uint32(pack(RETICLE)), packed)
    return words_to_bytes(packed, 3)
