"""The language objects' silhouettes as small bit masks (built once, on the host, in numpy).

Each of ``language_objects.LANGUAGE_SHAPES`` is drawn from a few primitives
(ellipses, rectangles, polygons, thick segments; holes carved out) in units
of its own box: x right in [-half_width, half_width], y up in
[-half_height, half_height] (``language_objects.EXTENTS``). The box is
sampled on ``GRID x GRID`` cells (4 x 4 samples each, a cell is inside when
at least half are). ``MASKS[s, row, col]`` (row 0 at the top) is the mask;
``MASK_BITS[s, col]`` holds its column ``col`` as a bit field, bit ``row``
set when the cell is inside: a sprite column gathers one word and each pixel
tests one bit.
"""
from __future__ import annotations

import numpy as np

from jaxlab.levels.dmlab.language_objects import EXTENTS, LANGUAGE_SHAPES

GRID = 32          # cells per side; MASK_BITS words hold GRID bits
_SUB = 4           # samples per cell side


def _ell(x, y, cx, cy, rx, ry):
    return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 < 1.0


def _ring(x, y, cx, cy, rx, ry, thick):
    return _ell(x, y, cx, cy, rx, ry) & ~_ell(x, y, cx, cy, rx - thick, ry - thick)


def _rect(x, y, x0, y0, x1, y1):
    return (x >= x0) & (x < x1) & (y >= y0) & (y < y1)


def _poly(x, y, pts):
    """Inside a polygon (even-odd rule) with vertices ``pts`` [(x, y), ...]."""
    inside = np.zeros(np.broadcast(x, y).shape, bool)
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
        if y0 == y1:
            continue
        crosses = (y >= min(y0, y1)) & (y < max(y0, y1))
        inside ^= crosses & (x < x0 + (y - y0) * (x1 - x0) / (y1 - y0))
    return inside


def _seg(x, y, x0, y0, x1, y1, w):
    """Within ``w`` of the segment (x0, y0)-(x1, y1): a thick line with round ends."""
    dx, dy = x1 - x0, y1 - y0
    t = np.clip(((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
    return (x - x0 - t * dx) ** 2 + (y - y0 - t * dy) ** 2 < w * w


def _stripes(x, period, width):
    return (x / period) % 1.0 < width / period


def _draw(shape, x, y):
    e, r, p, s = (lambda *a: _ell(x, y, *a)), (lambda *a: _rect(x, y, *a)), (lambda a: _poly(x, y, a)), \
        (lambda *a: _seg(x, y, *a))
    if shape == "apple2":
        return ((e(-5, -3, 9.5, 11.5) | e(5, -3, 9.5, 11.5)) & ~e(0, 9.5, 3, 3) & ~e(0, -15.5, 2.5, 2.5)
                | s(0, 5, 2, 14, 1.3) | e(7, 12, 5, 2.3))
    if shape == "ball":
        return e(0, 0, 14, 14) & ~(_ring(x, y, -21, 0, 14, 16, 2.2) | _ring(x, y, 21, 0, 14, 16, 2.2))
    if shape == "balloon":
        return e(0, 6, 13, 15.5) | p([(0, -9), (-3, -13), (3, -13)]) | s(0, -12, 3, -22, 0.9)
    if shape == "banana":
        return (e(0, 14, 19, 26) & ~e(0, 19, 18.5, 24) & (y < 7)) | s(15, 4, 19, 11, 1.6) | s(-15, 4, -18, 8, 1.2)
    if shape == "bottle":
        label = r(-8, -10, 8, -8.5) | r(-8, -1.5, 8, 0)
        return (r(-7.5, -22, 7.5, 3) | e(0, 3, 7.5, 6.5)) & ~label | r(-2.6, 4, 2.6, 18) | r(-3.4, 17, 3.4, 21)
    if shape == "cake":
        return (r(-17, -14, 17, -2) | r(-11, -2, 11, 6) | r(-1.4, 6, 1.4, 11) | e(0, 12.5, 1.8, 2)) & ~r(-17, -6, 17, -4.5)
    if shape == "can":
        return ((r(-10, -10, 10, 10) | p([(-10, 10), (10, 10), (7, 14), (-7, 14)]) | p([(-10, -10), (10, -10), (7, -14), (-7, -14)]))
                & ~r(-10, 7, 10, 8.5) & ~r(-10, -8.5, 10, -7) | r(-5, 14, 5, 15))
    if shape == "car":
        body = r(-27, -7, 27, 2) | e(-20, 2, 7, 3) | e(20, 1, 7, 3)
        cabin = p([(-15, 1), (-9, 12), (9, 12), (17, 1)])
        windows = p([(-11, 3), (-7.5, 10), (-1, 10), (-1, 3)]) | p([(1, 3), (1, 10), (7.5, 10), (12, 3)])
        return ((body | cabin) & ~windows & ~e(-15, -8, 7, 7) & ~e(15, -8, 7, 7)) | e(-15, -8, 5.5, 5.5) | e(15, -8, 5.5, 5.5)
    if shape == "cassette":
        return (r(-20, -13, 20, 13) & ~e(-8, 2, 3.6, 3.6) & ~e(8, 2, 3.6, 3.6)
                & ~p([(-12, -12.5), (12, -12.5), (9, -7), (-9, -7)]) & ~r(-4, 0.5, 4, 3.5))
    if shape == "chair":
        return r(-13, -22, -8.5, 22) | r(-13, -3, 13, 2) | r(8.5, -22, 13, -3) | r(-13, 10, -4, 12) | r(-13, 17, -4, 19)
    if shape == "cherries":
        return (e(-7.5, -9, 6.5, 6.5) | e(7.5, -8, 6.5, 6.5) | s(-7, -3, 1, 14, 1.1) | s(7, -2, 1, 14, 1.1)
                | e(6, 13.5, 5.5, 2.2))
    if shape == "cow":
        legs = r(-15, -18, -11, -4) | r(-7, -18, -3, -4) | r(6, -18, 10, -4) | r(13, -18, 17, -4)
        head = p([(14, 11), (21, 12), (26, 1), (22, -2), (15, 4)])
        return (r(-17, -5, 15, 8) | e(-1, 8, 16, 2) | head | legs | s(-17, 6, -21, -6, 1)
                | s(18, 12, 16, 17, 1.2) | s(21, 12, 24, 16, 1.2) | e(-3, -6, 4, 2.5))
    if shape == "flower":
        petals = np.any([e(6.5 * np.cos(a), 12 + 6.5 * np.sin(a), 4.3, 4.3) for a in np.arange(6) * np.pi / 3], 0)
        return (petals | e(0, 12, 4, 4) | r(-1, -22, 1, 6) | e(-5, -9, 5, 1.8) | e(5, -3, 5, 1.8)) & ~_ring(x, y, 0, 12, 4.2, 4.2, 1)
    if shape == "fork":
        tines = r(-6, 8, -4.4, 22) | r(-2.4, 8, -0.8, 22) | r(0.8, 8, 2.4, 22) | r(4.4, 8, 6, 22)
        return s(0, -20, 0, 2, 2) | e(0, 5, 6, 4) & (y < 8) | r(-6, 5, 6, 8) | tines
    if shape == "fridge":
        return (r(-14, -24, 14, 26) & ~r(-14, 7, 14, 9.5) & ~r(8, 12, 10.5, 22) & ~r(8, -6, 10.5, 4)) | r(-12, -26, -8, -24) | r(8, -26, 12, -24)
    if shape == "guitar":
        return ((e(0, -16, 12, 11) | e(0, -3, 9, 8.5) | r(-2, 4, 2, 22) | r(-3.6, 21, 3.6, 28)) & ~e(0, -6, 3.2, 3.2)
                | r(-5, -19, 5, -17))
    if shape == "hair_brush":
        teeth = r(-1, 0, 8, 22) & _stripes(y, 3, 1.5)
        return s(-4, -20, -4, 2, 2.4) | r(-8, 1, -1, 21) | e(-4.5, 21, 3.5, 1.5) | e(-4.5, 1, 3.5, 1.5) | teeth
    if shape == "hammer":
        return r(-2, -22, 2, 12) | r(-6, 11, 9, 20) | r(9, 10, 14, 21) | p([(-6, 20), (-14, 16), (-13, 13), (-6, 14)])
    if shape == "hat":
        return e(0, -9, 20, 3.5) | r(-11, -9, 11, 9) | e(0, 9, 11, 2.5)
    if shape == "ice_lolly":
        ridges = r(-4.5, -2, -3, 15) | r(3, -2, 4.5, 15)
        return (r(-9, -6, 9, 14) | e(0, 14, 9, 6)) & ~e(9, 17, 5, 5) & ~ridges | r(-1.6, -20, 1.6, -6)
    if shape == "jug":
        return (e(-1, -4, 11, 13) | r(-6, 4, 5, 14) | p([(3, 14), (12, 17), (5, 9)]) | r(-7, 13, 5, 16)
                | _ring(x, y, -11, 2, 5.5, 9, 2.3))
    if shape == "key":
        return _ring(x, y, -12, 0, 8, 9.5, 4) | r(-5, -2, 20, 2) | r(10, -8, 13, -2) | r(15, -8, 18, -2) | r(18, -3.5, 20, 3.5)
    if shape == "knife":
        return s(-1, -20, -1, -7, 2.8) | r(-6, -7, 6, -4) | p([(-4, -4), (5, -4), (5, 12), (-4, 22)])
    if shape == "ladder":
        rungs = np.any([r(-10, y0, 10, y0 + 2.5) for y0 in (-23, -14, -5, 4, 13, 22)], 0)
        return r(-12, -28, -8.5, 28) | r(8.5, -28, 12, 28) | rungs
    if shape == "mug":
        return r(-16, -14, 6, 14) & ~r(-16, 10, 6, 11.5) | _ring(x, y, 7, 0, 9, 8.5, 3.5)
    if shape == "pencil":
        facets = r(-2, -12, -1, 14) | r(1, -12, 2, 14) | r(-5, 14, 5, 15.5)
        return r(-5, -12, 5, 19) & ~facets | p([(-5, -12), (5, -12), (0, -24)]) | e(0, 19, 4, 4) & (y > 19)
    if shape == "pig":
        legs = r(-13, -15, -9, -6) | r(-5, -15, -1, -6) | r(4, -15, 8, -6) | r(10, -15, 14, -6)
        return (e(-2, 0, 16, 10) | e(13, 3, 7.5, 7.5) | r(18, -1, 22, 6) | p([(10, 9), (13, 15), (16, 9)]) | legs
                | _ring(x, y, -19, 3, 3, 3, 1.2)) & ~e(21, 2.5, 0.8, 1.2)
    if shape == "pincer":
        return (s(-2, 4, -9, -20, 2.2) | s(2, 4, 9, -20, 2.2) | e(0, 4, 4.5, 4.5)
                | ((e(-3, 11, 4, 9) | e(3, 11, 4, 9)) & ~r(-0.7, 8, 0.7, 20) & (y > 4)))
    if shape == "plant":
        leaves = s(0, -7, -12, 9, 3.2) | s(0, -7, 12, 11, 3.2) | s(0, -7, -1, 21, 3) | s(0, -7, -7, 18, 2.6) | s(0, -7, 7, 18, 2.6)
        return p([(-9, -22), (9, -22), (11, -9), (-11, -9)]) | r(-12, -11, 12, -7) | leaves
    if shape == "saxophone":
        tube = s(3, 19, 3, -13, 3.2) | s(3, -13, -2, -19, 3.8) | s(-2, -19, -8, -14, 4)
        bell = p([(-13, -1), (-3, -1), (-5.5, -15), (-10.5, -15)])
        return tube | bell | s(3, 19, -5, 24, 1.5) | r(6, -8, 8, -6) | r(6, -1, 8, 1) | r(6, 6, 8, 8)
    if shape == "shoe":
        upper = p([(-19, -7), (-19, 10), (-9, 10), (-6, 4), (6, 2), (14, -1), (20, -7)]) | e(14, -4, 6, 3.5)
        return (r(-20, -11, 20, -7) & ~r(-13, -11, -5, -9)) | upper & ~s(-1, 5, 7, 2, 0.8) & ~r(-16, 7, -10, 10)
    if shape == "spoon":
        return e(0, 13, 6.5, 9) | r(-1.2, -19, 1.2, 5) | e(0, -19, 2.3, 3)
    if shape == "suitcase":
        return (r(-20, -16, 20, 7) & ~r(-20, -2, 20, -0.5) | r(-8, 6, -5, 16) | r(5, 6, 8, 16) | r(-8, 13, 8, 16)
                | r(-18, -16, -14, -14) | r(14, -16, 18, -14))
    if shape == "tennis_racket":
        strings = (_stripes(x + 0.5, 3.6, 0.9) | _stripes(y + 0.5, 3.6, 0.9)) & e(0, 9, 9.5, 13.5)
        return _ring(x, y, 0, 9, 12, 16, 2.5) | strings | r(-1.8, -25, 1.8, -10) | p([(-6, -5), (6, -5), (1.8, -11), (-1.8, -11)])
    if shape == "tomato":
        star = p([(-10, 5), (-3, 5.5), (0, 11), (3, 5.5), (10, 5), (3, 2), (0, 3), (-3, 2)])
        return e(-5, -5, 10, 8) | e(5, -5, 10, 8) | star | r(-0.8, 8, 0.8, 13)
    if shape == "toothbrush":
        bristles = r(-1, 11, 5, 22) & ~_stripes(y + 11, 2.5, 1.1)
        return s(-2.5, -20, -2.5, 20, 2.3) | bristles
    if shape == "tree":
        crown = e(0, 9, 13, 12) | e(-10, 2, 8, 8) | e(10, 2, 8, 8) | e(0, 19, 9, 9) | e(-8, 14, 7, 7) | e(8, 14, 7, 7)
        return crown | r(-3, -28, 3, -4) | p([(-3, -6), (-9, -2), (-3, -3)])
    if shape == "tv":
        box = r(-20, -12, 20, 11) & ~_ring(x, y, -3, 0, 14, 9.5, 2)
        return box & ~e(14, 4, 2, 2) & ~e(14, -3, 2, 2) | r(-13, -16, -9, -12) | r(9, -16, 13, -12) | s(0, 11, -10, 20, 1) | s(0, 11, 9, 20, 1)
    if shape == "wine_glass":
        return (e(0, 10, 9.5, 10.5) & (y < 18) & (y > 3)) | r(-1, -17, 1, 4) | e(0, -18, 8, 2.2) | e(0, 3.5, 3, 1.5)
    if shape == "zebra":
        body = e(-2, 2, 15, 7.5)
        legs = r(-14, -20, -11, 0) | r(-8, -20, -5, 0) | r(4, -20, 7, 0) | r(9, -20, 12, 0)
        neck = p([(6, 8), (14, 19), (20, 18), (12, 3)]) | p([(14, 19), (26, 12), (24, 9), (16, 13)])
        stripes = _stripes(x - 0.5 * y, 5, 1.8) & (body | neck) & ~e(-2, 2, 3, 1)
        return (body | legs | neck | s(-16, 4, -20, -8, 0.9) | r(13, 19, 17, 21)) & ~stripes
    raise ValueError(f"no silhouette for {shape!r}")


def silhouette_mask(shape: str, grid: int = GRID) -> np.ndarray:
    """bool[grid, grid] mask of language shape ``shape`` (row 0 at the top of its box)."""
    half_w, half_h = EXTENTS[shape]
    n = grid * _SUB
    t = (np.arange(n) + 0.5) / n * 2.0 - 1.0
    x, y = t[None, :] * half_w, -t[:, None] * half_h
    inside = _draw(shape, x, y).astype(np.float32)
    return inside.reshape(grid, _SUB, grid, _SUB).mean((1, 3)) >= 0.5


#: bool[NUM_LANGUAGE_SHAPES, GRID, GRID] the silhouettes; uint32[NUM_LANGUAGE_SHAPES, GRID] per column, bit row
MASKS = np.stack([silhouette_mask(s) for s in LANGUAGE_SHAPES])
MASK_BITS = (MASKS.astype(np.uint64) << np.arange(GRID, dtype=np.uint64)[None, :, None]).sum(1).astype(np.uint32)
