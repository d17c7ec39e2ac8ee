"""A parsed Quake III ``.map`` (:mod:`jaxlab.levels.dmlab.quake_map`) as a jaxlab map: cells, spawns, pickups.

Three kinds of map convert:

* Room grids (DeepMind Lab's nav mazes; also what its text-level translator
  writes): every world brush is a 100 x 100 tile one unit thick (a floor tile
  at the bottom, a ceiling or sky tile over it) or a wall slab one unit thick
  and one tile long, standing from the floor to head height inside a floor
  tile along one of its edges. When no slab stands between two floor tiles,
  the tiles are the cells and every other cell is a wall (layout ``cells``).
  When slabs stand between floor tiles (thin walls, as in ``nav_maze_*``),
  tile (i, j) becomes the cell at odd (row, column) of a grid twice as fine,
  the cell between two tiles is open where no slab stands, and the cell where
  four tiles meet is open when all four are open to each other (layout
  ``rooms``): the grid DeepMind Lab's own scripts write for these mazes (the
  ``entityLayer`` of ``nav_maze_random_goal_0N.lua``), at the cost of lengths
  in the level being twice DeepMind Lab's.
* Flat maps of axis-aligned boxes (``seekavoid_arena_01``'s room): the floor
  under the spawn points and the walls standing on it are drawn in pixels and
  100-unit cells laid over them (layout ``cells``); the walls so made must
  stand within ``quake_flat.TOLERANCE`` units of DeepMind Lab's
  (:mod:`jaxlab.levels.dmlab.quake_flat`).

* Any other map of solid brushes (steps, platforms, ramps, walls off the
  cells, rooms reached only by teleporters) as ground heights on 50-unit
  height cells under a sky (:mod:`jaxlab.levels.dmlab.quake_heights`).

Non-solid and invisible player-clip brushes, ``trigger_teleport`` volumes
(with their ``misc_teleporter_dest`` targets) and ``trigger_lookat`` volumes are read as
:mod:`jaxlab.levels.dmlab.quake_triggers` says; a hidden platform (a
``func_plat`` with its ``func_button``s and ``func_timer``) as
:mod:`jaxlab.levels.dmlab.quake_movers` says; hurt zones, kill zones and jump
pads as :mod:`jaxlab.levels.dmlab.quake_volumes` says (a map with them is
always drawn as ground heights, whose z they need). Anything else is refused
with the reason (:class:`UnconvertibleMap`): other brush entities (other movers
and buttons, other trigger volumes), pits and edges to fall from, walls that
cover a spawn point on 50-unit cells.

Spawn points (``info_player_start``, ``info_player_deathmatch``) and every
point entity but decorations (lights, models, the skybox's camera) keep their
key-values (:attr:`ConvertedMap.spawn_vars`) with origins in DeepMind Lab's
units; :meth:`ConvertedMap.level_xy` takes such a point into the level, and
each must stand on a floor cell.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Dict, Optional, Sequence, Tuple, Union

import numpy as np

from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL, MapError, ParsedMap
from jaxlab.levels.dmlab.quake_flat import flat_grid, floor_height
from jaxlab.levels.dmlab.quake_heights import heights_grid
from jaxlab.levels.dmlab.quake_map import SPAWN_CLASSES, Brush, Entity, Patch, QuakeMap, UnconvertibleMap
from jaxlab.levels.dmlab.quake_movers import HiddenPlatform, hidden_platform
from jaxlab.levels.dmlab.quake_triggers import (DESTINATION_CLASSES, LOOKAT_CLASS, NONSOLID_TEXTURES, TELEPORT_CLASS,
                                                Box, LookatZone, enclosures, level_height, lookat_zone,
                                                spectator_only, split_world, teleporter)
from jaxlab.levels.dmlab.quake_volumes import HurtZone, JumpPad, trigger_volumes
from jaxlab.levels.dmlab.units import CELL_SIZE, PLAYER_HEIGHT

MAX_ROOMS = 128            # a room grid's tiles a side
WORLD_CLASSES = ("worldspawn", "func_group")
DECORATION_CLASSES = ("light", "misc_model", "_skybox", "info_null", "info_notnull")
#: Quake's door: kept as an entity at its doorway cell (``direction`` 'I' or 'H' as in text maps), which the
#: compiler makes a door, or open floor when it starts open (``spawnflags`` bit START_OPEN)
DOOR_CLASS, START_OPEN = "func_door", 1
LAYOUT_CELLS, LAYOUT_ROOMS = "cells", "rooms"


@dataclasses.dataclass(frozen=True)
class ConvertedMap:
    """A ``.map`` as a jaxlab map.

    parsed:     the ParsedMap (cells int8[R, C], variation all 0, spawns (row, col), pickups (row, col, class)).
    spawn_vars: the key-values of the spawn points and pickups (every point entity but decorations) in file
                order, origins "x y z" in DeepMind Lab's units.
    layout:     ``cells`` (a cell is 100 units of DeepMind Lab's map) or ``rooms`` (a 100-unit room of a
                thin-walled maze is a cell at odd row and column; see the module docstring).
    origin:     (x, y) in DeepMind Lab's units of the grid's lower-left corner (``cells``), or of the first
                room's (``rooms``).
    notes:      what the conversion changed or left out, for warnings.
    enclosures: (x0, y0, x1, y1) boxes in DeepMind Lab's units closed by invisible player-clip brushes
                (:func:`~jaxlab.levels.dmlab.quake_triggers.enclosures`): an object inside is out of reach.
    platform:   the hidden platform (:mod:`jaxlab.levels.dmlab.quake_movers`), whose ``func_plat`` point
                entity is among :attr:`spawn_vars`; None without one.
    hurt_zones, jump_pads: the map's trigger volumes that act on the player's body
                (:mod:`jaxlab.levels.dmlab.quake_volumes`), in DeepMind Lab's units.
    lookat_zones: the ``trigger_lookat`` volumes, in DeepMind Lab's units (:meth:`level_zone` places them).
    ground:     the z (DeepMind Lab's units) that is the level's height 0: the floor under the spawn points of a
                flat map, 0 for a map of ground heights (whose heights are DeepMind Lab's).
    surfaces:   the world's flat upright patches (no thickness along x or y), in DeepMind Lab's units: where a
                texture the level script gives (``api:loadTexture``) may show (:meth:`level_zone` places them).
    """

    parsed: ParsedMap
    spawn_vars: Tuple[Dict[str, str], ...]
    layout: str
    origin: Tuple[float, float]
    notes: Tuple[str, ...]
    enclosures: Tuple[Box, ...] = ()
    platform: Optional[HiddenPlatform] = None
    hurt_zones: Tuple[HurtZone, ...] = ()
    jump_pads: Tuple[JumpPad, ...] = ()
    lookat_zones: Tuple[LookatZone, ...] = ()
    ground: float = 0.0
    surfaces: Tuple[Patch, ...] = ()

    def level_xy(self, x: float, y: float) -> Tuple[float, float]:
        """The level's (x, y) units (from the grid's lower-left corner) of DeepMind Lab's point (x, y)."""
        ox, oy = self.origin
        if self.layout == LAYOUT_CELLS:
            return x - ox, y - oy
        rows, cols = self.parsed.shape
        return _room_axis(x - ox, (cols - 1) // 2), _room_axis(y - oy, (rows - 1) // 2)

    def level_zone(self, zone: Union[LookatZone, Patch]) -> Tuple[float, ...]:
        """(x0, y0, z0, x1, y1, z1) level units of a lookat zone's or a surface's box (heights placed by
        ``level_height``)."""
        (x0, y0), (x1, y1) = self.level_xy(*zone.lo[:2]), self.level_xy(*zone.hi[:2])
        return x0, y0, level_height(zone.lo[2], self.ground), x1, y1, level_height(zone.hi[2], self.ground)

    def enclosed(self, x: float, y: float) -> bool:
        """Whether the level's point (x, y) units lies inside one of :attr:`enclosures` (out of reach)."""
        for x0, y0, x1, y1 in self.enclosures:
            (ax, ay), (bx, by) = self.level_xy(x0, y0), self.level_xy(x1, y1)
            if ax < x < bx and ay < y < by:
                return True
        return False


def _room_axis(u: float, rooms: int) -> float:
    """A room grid's coordinate ``u`` (units from the first room's edge) in the level: room k's span is
    cell 2k + 1's."""
    k = min(max(math.floor(u / CELL_SIZE), 0), rooms - 1)
    return (2 * k + 1) * CELL_SIZE + (u - k * CELL_SIZE)


def _origin(entity: Entity, source: str) -> Optional[Tuple[float, float, float]]:
    """An entity's ``origin`` "x y z" as numbers, None without one; MapError when malformed."""
    text = entity.fields.get("origin")
    if text is None:
        return None
    try:
        x, y, z = (float(v) for v in text.split())
    except ValueError:
        raise MapError(source, entity.line, 1, f"entity {entity.classname!r} has origin {text[:60]!r}; "
                                               "expected three numbers \"x y z\"") from None
    if not all(map(math.isfinite, (x, y, z))):
        raise MapError(source, entity.line, 1, f"entity {entity.classname!r} has origin {text[:60]!r}")
    return x, y, z


def _on_grid(values: np.ndarray) -> Optional[np.ndarray]:
    """int64 of ``values`` / CELL_SIZE when each is a whole number of cells (to 0.01 units), else None."""
    steps = np.round(values / CELL_SIZE)
    return steps.astype(np.int64) if np.allclose(values, steps * CELL_SIZE, atol=0.01) else None


def _slab_edges(slabs: Sequence[Brush], x0: float, y0: float, floor: np.ndarray, top: float):
    """(bool[R, C + 1] slabs on the boundaries between tile columns, bool[R + 1, C] between tile rows) of
    wall slabs each standing on a floor tile's edge inside it; None when one does not."""
    rooms_y, rooms_x = floor.shape
    across = np.zeros((rooms_y, rooms_x + 1), bool)
    along = np.zeros((rooms_y + 1, rooms_x), bool)
    for slab in slabs:
        size = slab.size
        if slab.lo[2] > top + 0.01 or slab.hi[2] < top + PLAYER_HEIGHT:
            return None
        thin = [a for a in (0, 1) if abs(size[a] - 1.0) < 0.01 and abs(size[1 - a] - CELL_SIZE) < 0.01]
        if len(thin) != 1:
            return None
        a = thin[0]
        start = (x0, y0)
        span = _on_grid(np.asarray([slab.lo[1 - a] - start[1 - a]]))
        inner, outer = (_on_grid(np.asarray([slab.lo[a] - start[a] + d])) for d in (0.0, 1.0))
        if span is None or (inner is None and outer is None):
            return None
        boundary = int(inner[0]) if inner is not None else int(outer[0])
        owner = boundary if inner is not None else boundary - 1
        tile = (int(span[0]), owner) if a == 0 else (owner, int(span[0]))
        if not (0 <= tile[0] < rooms_y and 0 <= tile[1] < rooms_x and floor[tile]):
            return None
        if a == 0:
            across[int(span[0]), boundary] = True
        else:
            along[boundary, int(span[0])] = True
    return across, along


def _room_grid(world: Sequence[Brush], source: str):
    """(cells bottom-up bool floor, layout, origin, notes) of a room grid, or None when ``world`` is not one."""
    if not all(b.aligned for b in world):
        return None
    sizes = np.asarray([b.size for b in world])
    lo = np.asarray([b.lo for b in world])
    is_tile = np.isclose(sizes[:, 0], CELL_SIZE) & np.isclose(sizes[:, 1], CELL_SIZE) & (sizes[:, 2] <= 1.01)
    if not is_tile.any():
        return None
    x0, y0 = float(lo[is_tile, 0].min()), float(lo[is_tile, 1].min())
    cols, rows = _on_grid(lo[is_tile, 0] - x0), _on_grid(lo[is_tile, 1] - y0)
    if cols is None or rows is None:
        return None
    if cols.max() >= MAX_ROOMS or rows.max() >= MAX_ROOMS:
        raise UnconvertibleMap(source, f"its floor tiles span more than {MAX_ROOMS} x {MAX_ROOMS} cells")
    on_floor = np.isclose(lo[is_tile, 2], lo[is_tile, 2].min())
    floor = np.zeros((rows.max() + 1, cols.max() + 1), bool)
    floor[rows[on_floor], cols[on_floor]] = True
    top = float(lo[is_tile, 2].min() + sizes[is_tile][on_floor, 2].max())
    edges = _slab_edges([b for b, t in zip(world, is_tile) if not t], x0, y0, floor, top)
    if edges is None:
        return None
    across, along = edges
    padded = np.pad(floor, 1)
    left, right = padded[1:-1, :-1], padded[1:-1, 1:]
    below, above = padded[:-1, 1:-1], padded[1:, 1:-1]
    for leak, (dy, dx) in (((left ^ right) & ~across, (0, 1)), ((below ^ above) & ~along, (1, 0))):
        if leak.any():
            j, k = (int(v) for v in np.argwhere(leak)[0])
            raise UnconvertibleMap(source, f"a floor tile meets a place without floor at x {x0 + k * CELL_SIZE:g}, "
                                           f"y {y0 + j * CELL_SIZE:g} ({'x' if dx else 'y'} boundary) with no wall "
                                           "between them: an edge to fall from")
    open_across, open_along = left & right & ~across, below & above & ~along
    rooms_y, rooms_x = floor.shape
    if not ((left & right & across).any() or (below & above & along).any()):   # no wall between two floor tiles
        return np.pad(floor, 1), LAYOUT_CELLS, (x0 - CELL_SIZE, y0 - CELL_SIZE), ()
    grid = np.zeros((2 * rooms_y + 1, 2 * rooms_x + 1), bool)
    grid[1::2, 1::2] = floor
    grid[1::2, 0::2] = open_across
    grid[0::2, 1::2] = open_along
    grid[2:-1:2, 2:-1:2] = (open_across[:-1, 1:-1] & open_across[1:, 1:-1]
                            & open_along[1:-1, :-1] & open_along[1:-1, 1:])
    note = (f"{source}: {rooms_y} x {rooms_x} rooms of {CELL_SIZE:g} units with one-unit walls between them: each "
            "room is a cell at odd row and column and the cells between rooms are open where no wall stands, "
            "so lengths in the level are twice DeepMind Lab's")
    return grid, LAYOUT_ROOMS, (x0, y0), (note,)


def _door_at_doorway(door: Entity, cells: np.ndarray, layout: str, origin: Tuple[float, float], source: str):
    """``(door entity, its origin)`` for a ``func_door``: the origin is the centre of its doorway, the floor
    cell nearest its brushes' centre that walls close on both ends of the door's long side; its
    ``direction`` is 'I' (a passage east-west) or 'H'. UnconvertibleMap when there is none."""
    lo = np.min([b.lo for b in door.brushes], axis=0)
    hi = np.max([b.hi for b in door.brushes], axis=0)
    if layout != LAYOUT_CELLS:
        raise UnconvertibleMap(source, f"the door at line {door.line} stands in a thin-walled maze")
    rows, cols = cells.shape
    cx, cy = (lo[0] + hi[0]) / 2 - origin[0], (lo[1] + hi[1]) / 2 - origin[1]
    along_y = hi[1] - lo[1] > hi[0] - lo[0]
    row0, col0 = rows - 1 - math.floor(cy / CELL_SIZE), math.floor(cx / CELL_SIZE)

    def wall(r, c):
        return not (0 <= r < rows and 0 <= c < cols) or cells[r, c] != CELL_FLOOR

    ends = ((-1, 0), (1, 0)) if along_y else ((0, -1), (0, 1))
    doorways = [(abs((c + 0.5) * CELL_SIZE - cx) + abs((rows - r - 0.5) * CELL_SIZE - cy), r, c)
                for r in range(row0 - 1, row0 + 2) for c in range(col0 - 1, col0 + 2)
                if not wall(r, c) and all(wall(r + dr, c + dc) for dr, dc in ends)]
    if not doorways:
        raise UnconvertibleMap(source, f"the door at line {door.line} stands in no doorway of the converted level")
    _, row, col = min(doorways)
    x, y = (col + 0.5) * CELL_SIZE + origin[0], (rows - row - 0.5) * CELL_SIZE + origin[1]
    fields = {**door.fields, "origin": f"{x:g} {y:g} {lo[2]:g}", "direction": "I" if along_y else "H"}
    return dataclasses.replace(door, fields=fields, brushes=()), (x, y, float(lo[2]))


def convert_quake_map(qmap: QuakeMap) -> ConvertedMap:
    """The jaxlab map of a parsed ``.map`` file (see the module docstring).

    Returns a ConvertedMap whose notes hold the parser's and the conversion's. Raises UnconvertibleMap (a
    ValueError naming the file and the reason) for a map jaxlab's levels cannot hold, MapError for an
    entity with a malformed origin.
    """
    source = qmap.source
    entities, zones, pads, volume_notes = trigger_volumes(qmap.entities, source)
    entities, platform, notes = hidden_platform(entities, source)
    doors = [e for e in entities if e.brushes and e.classname == DOOR_CLASS]
    known = WORLD_CLASSES + (LOOKAT_CLASS, DOOR_CLASS, TELEPORT_CLASS)
    movers = [e for e in entities if e.brushes and e.classname not in known]
    if movers:
        listed = ", ".join(f"{e.classname or 'one without a classname'} (line {e.line})" for e in movers[:4])
        more = f" and {len(movers) - 4} more" if len(movers) > 4 else ""
        raise UnconvertibleMap(source, f"it has brush entities: {listed}{more}; movers (but a hidden platform), "
                                       "jump pads, hurt zones and trigger volumes are not converted")
    world, clip, skipped = split_world([b for e in entities if e.classname in WORLD_CLASSES for b in e.brushes])
    if not world:
        raise UnconvertibleMap(source, "it has no world brushes")
    notes = list(qmap.notes) + notes + volume_notes
    if skipped:
        notes.append(f"{source}: {skipped} non-solid brushes ({', '.join(NONSOLID_TEXTURES)}) are left out")
    destinations = [e.fields.get("targetname", "") for e in entities if e.classname in DESTINATION_CLASSES]
    kept, gazes = [], []
    for entity in entities:
        if entity.classname == LOOKAT_CLASS:
            gazes.append(lookat_zone(entity, source))
            continue
        if entity.classname == TELEPORT_CLASS and spectator_only(entity):
            notes.append(f"{source}:{entity.line}: the spectator-only trigger_teleport is left out")
            continue
        if entity.classname == TELEPORT_CLASS:
            entity = teleporter(entity, destinations, source)
        if entity.classname in WORLD_CLASSES + DECORATION_CLASSES or any(entity is d for d in doors):
            continue   # the world, decorations, and doors (placed at their doorways below)
        origin = _origin(entity, source)
        if origin is None:
            notes.append(f"{source}:{entity.line}: the {entity.classname!r} entity has no origin and is left out")
        else:
            kept.append((entity, origin))
    boxes = enclosures(clip, [o[:2] for _, o in kept], source)
    spawns = [(e, o) for e, o in kept if e.classname in SPAWN_CLASSES]
    stands = spawns + [(e, o) for e, o in kept if e.classname in DESTINATION_CLASSES]
    floor_z, flat = None, not (zones or pads)   # volumes that act on the body need the ground's z
    found = _room_grid(world, source) if flat else None
    if found is None:
        try:
            if not flat:
                raise UnconvertibleMap(source, "it has hurt zones or jump pads")
            found = flat_grid(world, stands, source)
        except UnconvertibleMap as err:
            pits = [(x0, y0, x1, y1, z1) for zone in zones for x0, y0, _, x1, y1, z1 in zone.boxes]
            *found, floor_z = heights_grid(world, stands, source, pits)
            found[3] = (f"{source}: not converted as a flat map ({str(err).split(': ', 2)[-1]})",) + found[3]
    grid, layout, origin, more_notes = found
    surfaces = tuple(p for e in entities if e.classname in WORLD_CLASSES for p in e.patches
                     if p.hi[2] > p.lo[2] and sum(p.hi[:2] == p.lo[:2]) == 1)
    ground = 0.0
    if floor_z is None and gazes:
        ground = floor_height(world, stands, source)
    elif floor_z is None and surfaces:   # a flat map's screens need its floor; without one, none is shown
        try:
            ground = floor_height(world, stands, source)
        except UnconvertibleMap:
            surfaces = ()
    cells = np.where(grid[::-1], CELL_FLOOR, CELL_WALL).astype(np.int8)
    kept += [_door_at_doorway(door, cells, layout, origin, source) for door in doors]
    converted = ConvertedMap(ParsedMap(cells, np.zeros_like(cells), (), ()),
                             tuple(dict(e.fields) for e, _ in kept), layout, origin, tuple(notes) + more_notes, boxes,
                             platform, zones, pads, tuple(gazes), ground, surfaces)
    rows, cols = cells.shape
    placed: Dict[bool, list] = {True: [], False: []}
    for entity, (x, y, _) in kept:
        lx, ly = converted.level_xy(x, y)
        row, col = rows - 1 - math.floor(ly / CELL_SIZE), math.floor(lx / CELL_SIZE)
        if not (0 <= row < rows and 0 <= col < cols and cells[row, col] == CELL_FLOOR):
            raise UnconvertibleMap(source, f"the {entity.classname!r} at line {entity.line} (origin "
                                           f"{entity.fields['origin']!r}) is not on the converted level's floor")
        spawn = entity.classname in SPAWN_CLASSES
        placed[spawn].append((row, col) if spawn else (row, col, entity.classname))
    parsed = ParsedMap(cells, np.zeros_like(cells), tuple(placed[True]), tuple(placed[False]), floor_z)
    return dataclasses.replace(converted, parsed=parsed)
