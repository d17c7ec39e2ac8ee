"""The looks of DMLab-30's PsychLab screens as tiles for the screen renderer's tile bank: the white
screen, the red fixation cross, the response buttons in their colours, the end-study button, and the
stimulus-grid items (visual search's coloured T/L/Γ/S/Z shapes, sequential comparison's coloured Es
and squares), each on the white screen.

``dmlab30_tiles(side)`` gives them as RGB texels, in the order the ``*_TILE`` offsets (from the first
of them) state; ``jaxlab.render.psychlab.screen`` appends them to its bank.
"""
from __future__ import annotations

import numpy as np

from jaxlab.levels.dmlab.dmlab30 import psychlab_screen as screen
from jaxlab.levels.dmlab.dmlab30 import psychlab_sequential_comparison as comparison
from jaxlab.levels.dmlab.dmlab30 import psychlab_visual_search as search

#: the end-study button's colour, framed (a black square in a turquoise frame a quarter of its side
#: wide) before the gaze is on it and filled while it is
TURQUOISE = (59, 165, 170)
#: offsets of the tiles from the first: the white screen, the fixation cross, the buttons (one per
#: ``psychlab_screen.BUTTON_*``), the end-study button framed and filled, the search items, the
#: comparison items
WHITE_TILE, FIXATION_TILE, BUTTON_TILES = 0, 1, 2
END_FRAMED_TILE = BUTTON_TILES + len(screen.BUTTON_RGB)
END_FILLED_TILE = END_FRAMED_TILE + 1
SEARCH_TILES = END_FILLED_TILE + 1
OPTOTYPE_TILES = SEARCH_TILES + search.NUM_ITEMS
NUM_TILES = OPTOTYPE_TILES + comparison.NUM_ITEMS
#: the first tile of each kind of grid item (``ScreenTask.grid_kind``)
ITEM_TILES = {"search": SEARCH_TILES, "optotype": OPTOTYPE_TILES}


def _fill(side: int, rgb) -> np.ndarray:
    """float32[side, side, 3]: a tile of one colour."""
    return np.broadcast_to(np.asarray(rgb, np.float32), (side, side, 3)).copy()


def _painted(mask: np.ndarray, rgb) -> np.ndarray:
    """float32[side, side, 3]: ``rgb`` where ``mask`` (bool[side, side]) holds, the white screen elsewhere."""
    return np.where(mask[..., None], np.asarray(rgb, np.float32), np.asarray(screen.BACKGROUND_RGB, np.float32))


def fractions(side: int) -> np.ndarray:
    """float32[side]: each texel's centre as a fraction of the tile (0 left or top, 1 right or bottom)."""
    return (np.arange(side, dtype=np.float32) + 0.5) / side


def search_item(side: int, code: int) -> np.ndarray:
    """float32[side, side, 3]: visual search's item ``code`` (colour * shapes + shape): the shape's 4×4
    pattern scaled up, in its colour."""
    shape, colour = code % len(search.SHAPES), code // len(search.SHAPES)
    pattern = np.array([[c == "#" for c in row] for row in search.SHAPES[shape]])
    cells = np.minimum((fractions(side) * 4).astype(int), 3)
    return _painted(pattern[cells[:, None], cells[None, :]], search.COLOURS[colour])


def optotype_item(side: int, code: int) -> np.ndarray:
    """float32[side, side, 3]: sequential comparison's item ``code``: a square, or an E (the square less
    two notches, 20 to 40 and 60 to 80 % across and 60 % deep, open towards its orientation), in its
    colour."""
    f = fractions(side)
    row, col = f[:, None] * np.ones((1, side)), np.ones((side, 1)) * f[None, :]
    if code >= comparison.SQUARES:
        return _fill(side, comparison.COLOURS[code - comparison.SQUARES])
    orientation, colour = divmod(code, len(comparison.COLOURS))
    across = {"left": row, "right": row, "up": col, "down": col}[comparison.ORIENTATIONS[orientation]]
    depth = {"left": 0.6 - col, "right": col - 0.4, "up": 0.6 - row, "down": row - 0.4}[
        comparison.ORIENTATIONS[orientation]]
    bands = ((across >= 0.2) & (across < 0.4)) | ((across >= 0.6) & (across < 0.8))
    return _painted(~(bands & (depth >= 0)), comparison.COLOURS[colour])


def dmlab30_tiles(side: int) -> np.ndarray:
    """float32[NUM_TILES, side, side, 3]: the tiles (RGB 0..255, top row first), ``*_TILE`` order."""
    f = fractions(side)
    band = (f >= 0.4) & (f < 0.6)
    cross = _painted(band[:, None] | band[None, :], screen.FIXATION_RGB)
    frame = np.maximum(np.abs(f[:, None] - 0.5), np.abs(f[None, :] - 0.5)) > 0.25
    tiles = [_fill(side, screen.BACKGROUND_RGB), cross, *[_fill(side, rgb) for rgb in screen.BUTTON_RGB],
             np.where(frame[..., None], np.asarray(TURQUOISE, np.float32), 0.0), _fill(side, TURQUOISE),
             *[search_item(side, c) for c in range(search.NUM_ITEMS)],
             *[optotype_item(side, c) for c in range(comparison.NUM_ITEMS)]]
    return np.stack(tiles).astype(np.float32)
