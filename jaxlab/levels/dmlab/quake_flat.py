"""A flat Quake III map's floor as 100-unit cells: the part of :mod:`jaxlab.levels.dmlab.quake_layout` that
draws maps of axis-aligned boxes.

The floor is the top of the brushes under the spawn points and teleport
destinations (all at one height) and of every brush of that height touching
them; the walls are the
brushes over it that stand from the floor to head height. Both are drawn at
:data:`PIXEL` units a pixel (a pixel is ground when its centre is over the
floor, solid when a wall covers any of it; open space narrower than the
player's box is dropped). The cell lines are laid where they move the open
area's edges the least, then where the fewest pixels fall on the wrong side,
and a cell is floor when more than half of it is open. The result's walls
must stand within :data:`TOLERANCE` units of DeepMind Lab's (a Hausdorff
distance between the two wall areas, counted in pixels, each way).

Refused (UnconvertibleMap): sloped brushes in the playing area or under a
spawn point, spawn points at different heights, brushes that start or end
between the floor and head height (steps, platforms, low walls, overhangs),
gaps in the floor, walls that do not fit the cells, floors over
:data:`MAX_FLAT_CELLS` cells a side.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from jaxlab.levels.dmlab.quake_map import SPAWN_CLASSES, Brush, Entity, UnconvertibleMap
from jaxlab.levels.dmlab.units import CELL_SIZE, PLAYER_HEIGHT, PLAYER_RADIUS

PIXEL = 4                  # units a pixel of a flat map's drawing
CELL_PIXELS = int(CELL_SIZE) // PIXEL
TOLERANCE = 25.0           # units the converted walls of a flat map may stand from DeepMind Lab's
MAX_FLAT_CELLS = 64        # a flat map's playing area, cells a side


def floor_height(world: Sequence[Brush], spawns: Sequence[Tuple[Entity, Tuple[float, float, float]]],
                  source: str) -> float:
    """The z of the ground under every spawn point or destination (the top of the highest brush under its
    origin)."""
    lo, hi = np.asarray([b.lo for b in world]), np.asarray([b.hi for b in world])
    heights = {}
    for entity, (x, y, z) in spawns:
        under = (lo[:, 0] <= x) & (x <= hi[:, 0]) & (lo[:, 1] <= y) & (y <= hi[:, 1]) & (hi[:, 2] <= z + 1.0)
        if not under.any():
            raise UnconvertibleMap(source, f"the {entity.classname} at line {entity.line} stands over no brush")
        ground = world[int(np.argmax(np.where(under, hi[:, 2], -np.inf)))]
        if not ground.aligned:
            raise UnconvertibleMap(source, f"the {entity.classname} at line {entity.line} stands on a sloped brush "
                                           f"(line {ground.line}): slopes and ramps are not flat")
        heights.setdefault(float(ground.hi[2]), entity.line)
    if len(heights) > 1:
        listed = ", ".join(f"z {z:g} (line {line})" for z, line in sorted(heights.items()))
        raise UnconvertibleMap(source, f"its spawn points and destinations stand at different heights: "
                                       f"{listed}")
    return next(iter(heights))


def _floor_brushes(world: Sequence[Brush], spawns, z: float) -> List[Brush]:
    """The brushes whose tops are at ``z`` under a spawn point or destination, and those touching them (x-y boxes
    that meet or overlap), transitively."""
    return touching_area([b for b in world if b.aligned and abs(b.hi[2] - z) <= 0.5], spawns)


def touching_area(brushes: Sequence[Brush], stands) -> List[Brush]:
    """The ``brushes`` under the stand points (``stands``: (name, (x, y, z) units) each) and those touching them
    (x-y boxes that meet or overlap), transitively."""
    lo, hi = np.asarray([b.lo[:2] for b in brushes]), np.asarray([b.hi[:2] for b in brushes])
    found = np.zeros(len(brushes), bool)
    for _, (x, y, _) in stands:
        found |= (lo[:, 0] <= x) & (x <= hi[:, 0]) & (lo[:, 1] <= y) & (y <= hi[:, 1])
    todo = list(np.nonzero(found)[0])
    while todo:
        i = todo.pop()
        touching = (lo <= hi[i]).all(axis=1) & (lo[i] <= hi).all(axis=1) & ~found
        found |= touching
        todo.extend(np.nonzero(touching)[0])
    return [b for b, f in zip(brushes, found) if f]


def _walls(world: Sequence[Brush], lo: np.ndarray, hi: np.ndarray, z: float, source: str) -> List[Brush]:
    """The brushes over the window ``lo``..``hi`` (x, y) that stand from the floor ``z`` to head height;
    UnconvertibleMap for a sloped brush or one that starts or ends between the two."""
    walls = []
    for b in world:
        if not ((b.lo[:2] < hi).all() and (lo < b.hi[:2]).all()):
            continue
        if b.hi[2] <= z + 0.5 or b.lo[2] >= z + PLAYER_HEIGHT:
            continue
        if not b.aligned:
            raise UnconvertibleMap(source, f"a sloped brush (line {b.line}) stands in the playing area: slopes and "
                                           "ramps are not converted")
        if b.lo[2] > z + 0.5 or b.hi[2] < z + PLAYER_HEIGHT:
            raise UnconvertibleMap(source, f"it is not flat: the brush at line {b.line} spans z {b.lo[2]:g} to "
                                           f"{b.hi[2]:g}, between the floor (z {z:g}) and head height; steps, "
                                           "platforms, low walls and overhangs are not converted")
        walls.append(b)
    return walls


def _dilate(mask: np.ndarray) -> np.ndarray:
    """``mask`` grown by one pixel in the eight directions."""
    rows = mask.copy()
    rows[1:] |= mask[:-1]
    rows[:-1] |= mask[1:]
    out = rows.copy()
    out[:, 1:] |= rows[:, :-1]
    out[:, :-1] |= rows[:, 1:]
    return out


def _erode(mask: np.ndarray) -> np.ndarray:
    """``mask`` shrunk by one pixel in the eight directions (the border counts as outside)."""
    return ~_dilate(~np.pad(mask, 1))[1:-1, 1:-1]


def _roomy(open_: np.ndarray) -> np.ndarray:
    """The open pixels a player's box can stand on: ``open_`` shrunk and grown back by the box's half-width
    (an opening), dropping slivers narrower than the box (gaps between brushes, corners left open)."""
    radius = int(PLAYER_RADIUS // PIXEL)
    shrunk = open_
    for _ in range(radius):
        shrunk = _erode(shrunk)
    for _ in range(radius):
        shrunk = _dilate(shrunk)
    return shrunk & open_


def _reach(source: np.ndarray, target: np.ndarray, limit: int) -> Tuple[Optional[int], np.ndarray]:
    """(the fewest pixels ``source`` must grow to cover ``target``, or None past ``limit``; what it leaves
    uncovered at ``limit``)."""
    grown = source
    for k in range(limit + 1):
        left = target & ~grown
        if not left.any():
            return k, left
        grown = _dilate(grown)
    return None, left


def _axis_offsets(open_: np.ndarray, axis: int) -> List[int]:
    """The offsets (pixels, 0 .. CELL_PIXELS - 1) of cell lines along ``axis`` (0 rows, 1 columns) that move
    the edges of the open area (where it turns closed along that axis) the least, the farthest edge counted."""
    n = CELL_PIXELS
    moved = np.diff(open_.astype(np.int8), axis=axis) != 0
    edges = np.nonzero(moved.any(axis=1 - axis))[0] + 1
    costs = [int(np.minimum((edges - o) % n, n - (edges - o) % n).max(initial=0)) for o in range(n)]
    return [o for o in range(n) if costs[o] == min(costs)]


def _best_offset(open_: np.ndarray) -> Tuple[int, int, np.ndarray]:
    """(row offset, column offset, int[rows, cols] open pixels per cell) of the cell grid over the pixels:
    the offsets that move the open area's edges the least (:func:`_axis_offsets`), of those the pair that
    leaves the fewest pixels on the wrong side (open in a wall cell or closed in a floor cell)."""
    n = CELL_PIXELS
    summed = np.pad(open_.astype(np.int64).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    best = None
    for oy in _axis_offsets(open_, 0):
        for ox in _axis_offsets(open_, 1):
            ys = oy + n * np.arange((open_.shape[0] - oy) // n + 1)
            xs = ox + n * np.arange((open_.shape[1] - ox) // n + 1)
            box = summed[np.ix_(ys, xs)]
            counts = box[1:, 1:] - box[:-1, 1:] - box[1:, :-1] + box[:-1, :-1]
            wrong = int(np.minimum(counts, n * n - counts).sum())
            if best is None or wrong < best[0]:
                best = (wrong, oy, ox, counts)
    return best[1], best[2], best[3]


def flat_grid(world: Sequence[Brush], spawns: Sequence[Tuple[Entity, Tuple[float, float, float]]], source: str):
    """A flat map's cells (see the module docstring).

    Args: ``world`` the solid world brushes; ``spawns`` (entity, origin (x, y, z)) of the spawn points and
    teleport destinations; ``source``
    the file's name for messages. Returns (bool[R, C] floor cells with row 0 at the bottom and a wall border,
    ``"cells"``, (x, y) units of the grid's lower-left corner, notes). Raises UnconvertibleMap.
    """
    if not spawns:
        raise UnconvertibleMap(source, f"it has no spawn point ({' or '.join(SPAWN_CLASSES)}) to find its floor by")
    z = floor_height(world, spawns, source)
    grounds = _floor_brushes(world, spawns, z)
    lo = np.min([b.lo[:2] for b in grounds], axis=0)
    hi = np.max([b.hi[:2] for b in grounds], axis=0)
    if ((hi - lo) > MAX_FLAT_CELLS * CELL_SIZE).any():
        raise UnconvertibleMap(source, f"its floor spans {hi[0] - lo[0]:g} x {hi[1] - lo[1]:g} units, more than "
                                       f"{MAX_FLAT_CELLS} cells a side")
    walls = _walls(world, lo, hi, z, source)
    corner = np.floor(lo / PIXEL) * PIXEL - 2 * CELL_SIZE
    shape = tuple(np.ceil((hi + 2 * CELL_SIZE - corner) / PIXEL).astype(int)[::-1])
    ground, solid = np.zeros(shape, bool), np.zeros(shape, bool)
    for brush in grounds:   # a pixel is ground when its centre is over a floor brush
        a = np.ceil((brush.lo[:2] - corner) / PIXEL - 0.5).astype(int)
        b = np.floor((brush.hi[:2] - corner) / PIXEL - 0.5).astype(int) + 1
        ground[a[1]:b[1], a[0]:b[0]] = True
    for brush in walls:     # and solid when a wall covers any of it
        a = np.maximum(np.floor((brush.lo[:2] - corner) / PIXEL).astype(int), 0)
        b = np.ceil((brush.hi[:2] - corner) / PIXEL).astype(int)
        solid[a[1]:b[1], a[0]:b[0]] = True
    open_ = _roomy(ground & ~solid)
    gap = ~ground & ~solid & _dilate(open_)
    if gap.any():
        iy, ix = np.argwhere(gap)[0]
        raise UnconvertibleMap(source, f"its floor (z {z:g}) has a gap near x {corner[0] + PIXEL * ix:g}, "
                                       f"y {corner[1] + PIXEL * iy:g}: pits, chasms and edges to fall from are "
                                       "not converted")
    oy, ox, counts = _best_offset(open_)
    floor = 2 * counts > CELL_PIXELS ** 2
    n = CELL_PIXELS
    window = open_[oy:oy + n * floor.shape[0], ox:ox + n * floor.shape[1]]
    cell_closed = np.repeat(np.repeat(~floor, n, 0), n, 1)
    limit = int(TOLERANCE // PIXEL)
    error_in, left_in = _reach(cell_closed, ~window & ~cell_closed, limit)
    error_out, left_out = _reach(~window, cell_closed & window, limit)
    if error_in is None or error_out is None:
        iy, ix = np.argwhere(left_in if error_in is None else left_out)[0]
        raise UnconvertibleMap(source, f"its walls do not fit {CELL_SIZE:g}-unit cells: near x "
                                       f"{corner[0] + PIXEL * (ox + ix):g}, y {corner[1] + PIXEL * (oy + iy):g} "
                                       f"they stand more than {TOLERANCE:g} units from the converted level's "
                                       "(thin walls, narrow corridors or walls between cells)")
    rows, cols = np.nonzero(floor)
    r0, c0 = rows.min() - 1, cols.min() - 1
    grid = floor[r0:rows.max() + 2, c0:cols.max() + 2]
    origin = (float(corner[0] + PIXEL * ox + CELL_SIZE * c0), float(corner[1] + PIXEL * oy + CELL_SIZE * r0))
    note = (f"{source}: the walls are moved onto {CELL_SIZE:g}-unit cells by up to "
            f"{PIXEL * max(error_in, error_out)} units (measured on {PIXEL}-unit pixels)")
    return grid, "cells", origin, (note,)
