"""The rooms of DMLab's language levels, as data: small maps with object slots, spawn points and lettered rooms.

Each map is given as DMLab's language factory describes it: an entity layer ('O' an object slot,
'P' a spawn point, '.' floor, '*' wall; shorter rows padded with walls, the whole enclosed in
walls), a variations layer naming the rooms with letters ('A', 'B', ...; '.' none) and, per
room, the slots in it (slots are numbered from 0 in reading order: top to bottom, left to right).
The layouts and room tables are DMLab's facts; the maps are drawn here from them.

``MapSet`` stacks several maps padded to one shape (walls, no slots, no spawns), so a level that
draws its map per episode (``language_execute_random_task``'s two to six rooms) keeps one size
class; ``MapSet.pick`` takes one map by a traced index.
"""
from __future__ import annotations

from typing import Dict, NamedTuple, Sequence, Tuple

import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.level import cell_center
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL


class LanguageMap(NamedTuple):
    """One map: name; entity and variation rows; rooms: room letter -> slot numbers (0-based)."""

    name: str
    entities: Tuple[str, ...]
    variations: Tuple[str, ...]
    rooms: Dict[str, Tuple[int, ...]]


def _rows(text: str) -> Tuple[str, ...]:
    return tuple(line for line in text.strip("\n").split("\n"))


FOUR_POSITIONS = LanguageMap("fourPositions", _rows("""
..O.O
P....
..O.O
"""), (), {})

TWO_AREAS = LanguageMap("twoAreaMap", _rows("""
O....O
..PP..
O....O
"""), _rows("""
AAABBB
AAABBB
AAABBB
"""), {"A": (0, 2), "B": (1, 3)})

TWO_ROOMS = LanguageMap("twoRoomMap", _rows("""
O..***..O
..P...P..
O..***..O
"""), _rows("""
AAA...BBB
AAA...BBB
AAA...BBB
"""), {"A": (0, 2), "B": (1, 3)})

FOUR_ROOMS = LanguageMap("fourRoomMap", _rows("""
***O.O***
***...***
***.P.***
O..*.*..O
..P...P..
O..*.*..O
***.P.***
***...***
***O.O***
"""), _rows("""
...AAA...
...AAA...
...AAA...
BBB...CCC
BBB...CCC
BBB...CCC
...DDD...
...DDD...
...DDD...
"""), {"A": (0, 1), "B": (2, 4), "C": (3, 5), "D": (6, 7)})

SIX_ROOMS = LanguageMap("sixRoomMap", _rows("""
O..***..O
..P...P..
O..*.*..O
****.****
O..*.*..O
..P...P..
O..*.*..O
****.****
O..*.*..O
..P...P..
O..***..O
"""), _rows("""
AAA...BBB
AAA...BBB
AAA...BBB
.........
CCC...DDD
CCC...DDD
CCC...DDD
.........
EEE...FFF
EEE...FFF
EEE...FFF
"""), {"A": (0, 2), "B": (1, 3), "C": (4, 6), "D": (5, 7), "E": (8, 10), "F": (9, 11)})

QUANTIFICATION = LanguageMap("quantificationSmallMap", _rows("""
.....O
P..OO
P..OO
.....O
"""), _rows("""
CCCCCA
CCCDD
CCCDD
CCCCCB
"""), {"A": (0,), "B": (5,), "C": (), "D": (1, 2, 3, 4)})


class MapSet(NamedTuple):
    """Maps padded to one shape (numpy; M maps, R×C cells, O slots, P spawns, Q rooms).

    cells: int8[M, R, C] CELL_* codes; variation: int8[M, R, C] room letters as variation codes
    (1 = 'A'); slot_xy: float32[M, O, 2] slot centres (units); slot_valid: bool[M, O];
    slot_room: int32[M, O] the slot's room (0 = 'A', -1 none); room_valid: bool[M, Q];
    room_rect: float32[M, Q, 4] each room's extent (x0, y0, x1, y1) units: the bounding box of its
    letter's cells (a rectangle, or, like the quantitative map's room C, the rectangle a later room's
    rectangle is cut out of: floors are painted in room order);
    spawn_xy: float32[M, P, 2] (units); spawn_valid: bool[M, P].
    """

    cells: np.ndarray
    variation: np.ndarray
    slot_xy: np.ndarray
    slot_valid: np.ndarray
    slot_room: np.ndarray
    room_valid: np.ndarray
    room_rect: np.ndarray
    spawn_xy: np.ndarray
    spawn_valid: np.ndarray

    def pick(self, index) -> "MapSet":
        """The arrays of map ``index`` (int32[], may be traced), as jnp arrays without the map axis."""
        return MapSet(*(jnp.asarray(a)[index] for a in self))


def _grid(language_map: LanguageMap) -> Tuple[np.ndarray, np.ndarray]:
    """(cells int8[R, C], variation int8[R, C]) of one map, enclosed in walls."""
    width = max(len(r) for r in language_map.entities) + 2
    rows = ["*" * width] + ["*" + r.ljust(width - 2, "*") + "*" for r in language_map.entities] + ["*" * width]
    cells = np.asarray([[CELL_WALL if ch == "*" else CELL_FLOOR for ch in r] for r in rows], np.int8)
    variation = np.zeros(cells.shape, np.int8)
    for i, line in enumerate(language_map.variations):
        for j, ch in enumerate(line):
            if ch.isalpha():
                variation[i + 1, j + 1] = ord(ch) - ord("A") + 1
    return cells, variation


def map_set(maps: Sequence[LanguageMap]) -> MapSet:
    """``maps`` stacked and padded to one shape (see ``MapSet``)."""
    grids = [_grid(m) for m in maps]
    rows = max(g[0].shape[0] for g in grids)
    cols = max(g[0].shape[1] for g in grids)
    slots = max(sum(r.count("O") for r in m.entities) for m in maps)
    spawns = max(sum(r.count("P") for r in m.entities) for m in maps)
    rooms = max(max((len(m.rooms), 1)) for m in maps)
    n = len(maps)
    out = MapSet(cells=np.full((n, rows, cols), CELL_WALL, np.int8), variation=np.zeros((n, rows, cols), np.int8),
                 slot_xy=np.zeros((n, slots, 2), np.float32), slot_valid=np.zeros((n, slots), bool),
                 slot_room=np.full((n, slots), -1, np.int32), room_valid=np.zeros((n, rooms), bool),
                 room_rect=np.zeros((n, rooms, 4), np.float32),
                 spawn_xy=np.zeros((n, spawns, 2), np.float32), spawn_valid=np.zeros((n, spawns), bool))
    for k, (m, (cells, variation)) in enumerate(zip(maps, grids)):
        r, c = cells.shape
        out.cells[k, :r, :c], out.variation[k, :r, :c] = cells, variation
        found = {ch: [(i + 1, j + 1) for i, line in enumerate(m.entities) for j, x in enumerate(line) if x == ch]
                 for ch in "OP"}
        slot_rc, spawn_rc = np.asarray(found["O"]), np.asarray(found["P"])
        out.slot_xy[k, :len(slot_rc)] = cell_center(slot_rc[:, 0], slot_rc[:, 1], rows)
        out.slot_valid[k, :len(slot_rc)] = True
        out.spawn_xy[k, :len(spawn_rc)] = cell_center(spawn_rc[:, 0], spawn_rc[:, 1], rows)
        out.spawn_valid[k, :len(spawn_rc)] = True
        for letter, members in m.rooms.items():
            room = ord(letter) - ord("A")
            out.room_valid[k, room] = True
            out.slot_room[k, list(members)] = room
            rr, cc = np.nonzero(variation == room + 1)
            out.room_rect[k, room] = (cc.min() * 100.0, (rows - 1 - rr.max()) * 100.0, (cc.max() + 1) * 100.0,
                                      (rows - rr.min()) * 100.0)
    return out
