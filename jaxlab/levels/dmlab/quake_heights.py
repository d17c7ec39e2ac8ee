"""A Quake III map that is not flat, or whose walls do not fit 100-unit cells, as ground heights: the part of
:mod:`jaxlab.levels.dmlab.quake_layout` that draws steps, platforms, ramps and walls on 50-unit height cells.

The playing area is the solid brushes under the spawn points and teleport
destinations and every solid brush touching them (x-y boxes that meet),
transitively. Over each :data:`PIXEL`-unit pixel the brushes are stacked
from the bottom up: a brush that starts less than a standing player's height
(``PLAYER_HEIGHT``) over the stack's top joins the stack (a wall under the
ceiling stacks into one tall column), one higher starts a new stack. The
ground is the top of the stack under the highest one (the highest is the
ceiling or sky; a floor under a ramp or platform is not the ground), or the
top of the only stack (a wall, or a floor under the open sky). A sloped brush's top is its faces' plane over the pixel's
centre, so a ramp becomes height cells rising in steps of its slope times 50
units (a fair stand-in while each rise stays under the 18-unit step height).
Each 50-unit height cell (``heights.HEIGHT_CELL``) takes the highest ground
of its pixels (so a thin wall fills the cells it touches), but for a cell most
of whose pixels are in a pit: under a hurt or kill zone (``pits``, a chasm's
lava), whose ground is below the zone's top; such a cell takes the highest
ground of its pixels in the pit, so that a deadly pit keeps its width to the
nearest cell, unless one of its pixels stands a player's height over the
zone's top (a wall, or a platform over a deadly void, that it keeps). The cell grid is laid where that
moves the ground the least; a cell no brush covers has no floor
(``heights.NO_FLOOR``). The level's map cells are all floor but a wall border:
in a level with heights the ground blocks the player, walls are raised
ground, and the look is a sky (``Level.sky``) instead of a ceiling.

Refused (UnconvertibleMap): areas over ``quake_flat.MAX_FLAT_CELLS`` cells a
side, a floor below head height over the highest spawn point or destination
that meets a place without floor (a pit, a chasm, an edge to fall from) where
the player can reach it alive (walking from a spawn point or destination, up
rises it can jump and down any drop, but not down into a hurt or kill zone's
pit: a deadly chasm's far floor, or the sky's floor far under a platform, is
never reached), and
maps where every way of laying the cells raises a wall over a
spawn point's or teleport destination's feet (or leaves it no floor); a
spawning player's feet are ``FEET`` under its origin, which Quake III puts
``SPAWN_LIFT`` units over the spawn point's.
"""
from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from jaxlab.levels.dmlab.heights import HEIGHT_CELL, HEIGHT_CELLS_PER_CELL, NO_FLOOR
from jaxlab.levels.dmlab.quake_flat import MAX_FLAT_CELLS, touching_area
from jaxlab.levels.dmlab.quake_map import SPAWN_CLASSES, Brush, Entity, UnconvertibleMap
from jaxlab.levels.dmlab.units import CELL_SIZE, GRAVITY, JUMP_VELOCITY, PLAYER_HEIGHT, STEP_HEIGHT

PIXEL = 5.0                         # units a pixel of the drawing
CELL_PX = int(HEIGHT_CELL // PIXEL)  # pixels a height cell side
#: (x0, y0, x1, y1, top) units: a box of a hurt or kill zone, seen from above, and its top
Pit = Tuple[float, float, float, float, float]
FEET = 24.0                         # Quake III: a player's origin stands this far over its feet
SPAWN_LIFT = 9.0                    # Quake III puts a spawning player this far over its spawn point's origin
CLIMB = STEP_HEIGHT + JUMP_VELOCITY ** 2 / (2 * GRAVITY)   # units: the highest rise a jump reaches a floor on


def _span(brush: Brush, xs: np.ndarray, ys: np.ndarray):
    """(bool[H, W] the pixel centres ``xs`` x ``ys`` inside the brush's x-y outline, float64[H, W] its bottom,
    float64[H, W] its top) over the pixel grid."""
    x, y = np.meshgrid(xs, ys)
    inside = np.ones_like(x, bool)
    bottom, top = np.full_like(x, brush.lo[2]), np.full_like(x, brush.hi[2])
    if brush.aligned:
        return inside & (brush.lo[0] <= x) & (x <= brush.hi[0]) & (brush.lo[1] <= y) & (y <= brush.hi[1]), bottom, top
    for nx, ny, nz, d in brush.planes:
        if abs(nz) < 1e-6:
            inside &= nx * x + ny * y <= d + 1e-6
        elif nz > 0:
            top = np.minimum(top, (d - nx * x - ny * y) / nz)
        else:
            bottom = np.maximum(bottom, (d - nx * x - ny * y) / nz)
    return inside & (top > bottom), bottom, top


def _ground(brushes: Sequence[Brush], xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """float64[H, W] the ground over each pixel (see the module docstring), NO_FLOOR where no brush is."""
    stack = np.full((len(ys), len(xs)), -np.inf)    # the top of the highest stack so far
    below = np.full_like(stack, -np.inf)            # the top of the stack under it
    for brush in sorted(brushes, key=lambda b: b.lo[2]):
        inside, bottom, top = _span(brush, xs, ys)
        starts = inside & (stack > -np.inf) & (bottom > stack + PLAYER_HEIGHT)
        below = np.where(starts, stack, below)
        stack = np.where(starts, top, np.where(inside, np.maximum(stack, top), stack))
    ground = np.where(below > -np.inf, below, stack)
    return np.where(ground == -np.inf, NO_FLOOR, ground)


def _zone_tops(pits: Sequence[Pit], xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """float64[H, W]: the top of the highest zone over each pixel (-inf where none is)."""
    x, y = np.meshgrid(xs, ys)
    out = np.full(x.shape, -np.inf)
    for x0, y0, x1, y1, top in pits:
        out = np.where((x0 <= x) & (x <= x1) & (y0 <= y) & (y <= y1), np.maximum(out, top), out)
    return out


def _cells(ground: np.ndarray, zone_top: np.ndarray, oy: int, ox: int):
    """(float64[h, w] the ground of each height cell of the grid laid at pixel offsets (oy, ox), float64[h, CELL_PX,
    w, CELL_PX] its pixels' ground, bool[h, w] whether it is in a pit): the highest of its pixels, or of its pixels in
    a pit (with a floor under ``zone_top``) when they are most of it and none of its pixels stands a player's height
    over that top."""
    h, w = (ground.shape[0] - oy) // CELL_PX, (ground.shape[1] - ox) // CELL_PX

    def blocks(a):
        return a[oy:oy + h * CELL_PX, ox:ox + w * CELL_PX].reshape(h, CELL_PX, w, CELL_PX)
    cells, tops = blocks(ground), blocks(zone_top)
    in_pit = (cells < tops) & (cells > NO_FLOOR)
    tall = (cells >= tops.max(axis=(1, 3), keepdims=True) + PLAYER_HEIGHT).any(axis=(1, 3))
    pit = (2 * in_pit.sum(axis=(1, 3)) > CELL_PX * CELL_PX) & ~tall
    return np.where(pit, np.where(in_pit, cells, -np.inf).max(axis=(1, 3)), cells.max(axis=(1, 3))), cells, pit


def _best_offset(ground: np.ndarray, zone_top: np.ndarray, points: np.ndarray) -> Tuple[int, int]:
    """(row, column) pixel offsets of the height-cell grid that move the ground the least when each cell
    takes its ground (:func:`_cells`; the sum over the cells of their ground's distance from their pixels'
    mean, over the pixels with a floor: a raise where the highest pixel is taken), among those that leave every point of ``points`` (float64[K, 3]: pixel row, column and
    the z of its feet) a cell with floor at most a step over its feet; (-1, -1) when there is none."""
    best = None
    for oy in range(CELL_PX):
        for ox in range(CELL_PX):
            top, cells, _ = _cells(ground, zone_top, oy, ox)
            h, w = top.shape
            r, c = ((points[:, 0] - oy) // CELL_PX).astype(int), ((points[:, 1] - ox) // CELL_PX).astype(int)
            if not ((r < h) & (c < w)).all():
                continue
            under = top[r, c]
            if not ((under > NO_FLOOR) & (under <= points[:, 2] + STEP_HEIGHT)).all():
                continue
            floor = cells > NO_FLOOR
            mean = np.where(floor, cells, 0.0).sum(axis=(1, 3)) / np.maximum(floor.sum(axis=(1, 3)), 1)
            raised = np.where(floor.any(axis=(1, 3)), np.abs(top - mean), 0.0).sum()
            if best is None or raised < best[0]:
                best = (raised, oy, ox)
    return (-1, -1) if best is None else best[1:]


def _reached(floor_z: np.ndarray, pit: np.ndarray, starts) -> np.ndarray:
    """bool[Zh, Zw]: the height cells a player reaches from the cells ``starts`` ((row, col) each) walking to a
    neighbour at most :data:`CLIMB` higher (or lower by any drop) that is not in a pit (``pit`` bool[Zh, Zw])."""
    reached = np.zeros(floor_z.shape, bool)
    todo = [tuple(int(v) for v in rc) for rc in starts]
    for rc in todo:
        reached[rc] = True
    while todo:
        r, c = todo.pop()
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if (0 <= nr < floor_z.shape[0] and 0 <= nc < floor_z.shape[1] and not reached[nr, nc]
                    and not pit[nr, nc] and NO_FLOOR < floor_z[nr, nc] <= floor_z[r, c] + CLIMB):
                reached[nr, nc] = True
                todo.append((nr, nc))
    return reached


def _refuse_edges(floor_z: np.ndarray, low: float, reached: np.ndarray, lo: np.ndarray, oy: int, ox: int,
                  source: str) -> None:
    """UnconvertibleMap where a height cell without floor meets one the player reaches (``reached``) whose ground is
    under ``low`` units (a floor the player may walk on, not a wall's top): an edge to fall from, which jaxlab would
    make an invisible wall. ``floor_z`` float32[Zh, Zw] row 0 at the bottom, with its border."""
    void = floor_z <= NO_FLOOR
    walkable = ~void & (floor_z < low) & reached
    near = np.zeros_like(void)
    near[1:] |= void[:-1]
    near[:-1] |= void[1:]
    near[:, 1:] |= void[:, :-1]
    near[:, :-1] |= void[:, 1:]
    if (near & walkable).any():
        row, col = np.argwhere(near & walkable)[0] - HEIGHT_CELLS_PER_CELL
        raise UnconvertibleMap(source, f"its floor has a gap near x {lo[0] + PIXEL * ox + HEIGHT_CELL * col:g}, "
                                       f"y {lo[1] + PIXEL * oy + HEIGHT_CELL * row:g}: pits, chasms and edges to "
                                       "fall from are not converted")


def heights_grid(world: Sequence[Brush], stands: Sequence[Tuple[Entity, Tuple[float, float, float]]], source: str,
                 pits: Sequence[Pit] = ()):
    """A map's ground as heights (see the module docstring).

    Args: ``world`` the solid world brushes; ``stands`` (entity, origin (x, y, z)) of the spawn points and
    teleport destinations; ``source`` the file's name for messages; ``pits`` (x0, y0, x1, y1, top) units
    of each box of the hurt and kill zones. Returns (bool[R, C] floor cells with row 0
    at the bottom and a wall border, ``"cells"``, (x, y) units of the grid's lower-left corner, notes,
    float32[2 R, 2 C] ``floor_z`` with row 0 at the top). Raises UnconvertibleMap.
    """
    if not stands:
        raise UnconvertibleMap(source, f"it has no spawn point ({' or '.join(SPAWN_CLASSES)}) to find its floor by")
    area = touching_area(world, stands)
    if not area:
        raise UnconvertibleMap(source, f"the {stands[0][0].classname} at line {stands[0][0].line} stands over no brush")
    lo = np.min([b.lo[:2] for b in area], axis=0) - CELL_SIZE
    hi = np.max([b.hi[:2] for b in area], axis=0) + CELL_SIZE
    if ((hi - lo) > (MAX_FLAT_CELLS + 2) * CELL_SIZE).any():
        raise UnconvertibleMap(source, f"its playing area spans {hi[0] - lo[0]:g} x {hi[1] - lo[1]:g} units, more "
                                       f"than {MAX_FLAT_CELLS} cells a side")
    xs = lo[0] + PIXEL * (np.arange(int(np.ceil((hi[0] - lo[0]) / PIXEL))) + 0.5)
    ys = lo[1] + PIXEL * (np.arange(int(np.ceil((hi[1] - lo[1]) / PIXEL))) + 0.5)
    ground = _ground(area, xs, ys)                      # row 0 at the bottom
    points = np.asarray([((y - lo[1]) // PIXEL, (x - lo[0]) // PIXEL,
                          z - FEET + (SPAWN_LIFT if e.classname in SPAWN_CLASSES else 0.0)) for e, (x, y, z) in stands])
    zone_top = _zone_tops(pits, xs, ys)
    oy, ox = _best_offset(ground, zone_top, points)
    if oy < 0:
        raise UnconvertibleMap(source, "its walls do not fit 50-unit height cells: wherever they are laid, a "
                                       "wall or a gap covers a spawn point or teleport destination")
    n = HEIGHT_CELLS_PER_CELL * CELL_PX                 # pixels a map cell side
    rows, cols = (ground.shape[0] - oy) // n, (ground.shape[1] - ox) // n
    top, _, pit = _cells(ground, zone_top, oy, ox)
    floor_z = np.pad(top[:2 * rows, :2 * cols].astype(np.float32), HEIGHT_CELLS_PER_CELL,
                     constant_values=NO_FLOOR)   # the wall border
    pit = np.pad(pit[:2 * rows, :2 * cols], HEIGHT_CELLS_PER_CELL)
    starts = (points[:, :2] - (oy, ox)) // CELL_PX + HEIGHT_CELLS_PER_CELL
    _refuse_edges(floor_z, float(points[:, 2].max()) + PLAYER_HEIGHT, _reached(floor_z, pit, starts), lo, oy, ox,
                  source)
    origin = (float(lo[0] + PIXEL * ox - CELL_SIZE), float(lo[1] + PIXEL * oy - CELL_SIZE))
    grid = np.pad(np.ones((rows, cols), bool), 1)
    note = (f"{source}: drawn as ground heights on {HEIGHT_CELL:g}-unit cells (walls are raised ground, "
            "the ceiling a sky)")
    return grid, "cells", origin, (note,), floor_z[::-1].copy()
