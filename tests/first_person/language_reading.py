"""Reading a drawn language Level back on the host (numpy), for the language levels' tests: each
object's shape, colour and room, the map's rooms and floor colours, reachability, the instruction."""
from __future__ import annotations

from collections import deque
from types import SimpleNamespace
from typing import Dict, List, NamedTuple

import numpy as np

from jaxlab.levels.dmlab.instructions import decode
from jaxlab.levels.dmlab.language_objects import (FIRST_LANGUAGE_KIND, LANGUAGE_COLOURS, LANGUAGE_SHAPES,
                                                  NUM_LANGUAGE_COLOURS, NUM_LANGUAGE_PATTERNS)
from jaxlab.levels.dmlab.map_parser import CELL_WALL

COLOUR_OF_RGB = {tuple(rgb): name for name, rgb in LANGUAGE_COLOURS}


class Thing(NamedTuple):
    """One valid pickup: shape and colour names, room (variation code, 0 none), reward, takeable,
    ends the task (goal), counted, cell (row, col)."""

    shape: str
    colour: str
    room: int
    reward: float
    takeable: bool
    goal: bool
    counted: bool
    cell: tuple


#: the Level fields the readers use
FIELDS = ("cells", "variation", "rows", "pickup_pos", "pickup_kind", "pickup_reward", "pickup_is_goal",
          "pickup_valid", "pickup_takeable", "pickup_counts", "spawn_pos", "spawn_allowed", "floor_rect",
          "floor_rect_rgb", "instr", "end_after_pickups", "counted_bonus")


def batch_to_numpy(levels) -> dict:
    """The readers' fields of a batch of Levels, as numpy arrays."""
    return {k: np.asarray(getattr(levels, k)) for k in FIELDS}


def level_at(batch: dict, i: int) -> SimpleNamespace:
    """Level ``i`` of ``batch_to_numpy``'s batch."""
    return SimpleNamespace(**{k: v[i] for k, v in batch.items()})


def cell_of(level, xy) -> tuple:
    """(row, col) of world point ``xy`` (units)."""
    return int(level.rows) - 1 - int(xy[1] // 100), int(xy[0] // 100)


def things(level) -> List[Thing]:
    """The level's valid pickups, read back."""
    out = []
    for n in np.flatnonzero(level.pickup_valid):
        index = int(level.pickup_kind[n]) - FIRST_LANGUAGE_KIND
        assert 0 <= index, f"pickup {n} is not a language object"
        shape = LANGUAGE_SHAPES[index // (NUM_LANGUAGE_COLOURS * NUM_LANGUAGE_PATTERNS)]
        colour = LANGUAGE_COLOURS[(index // NUM_LANGUAGE_PATTERNS) % NUM_LANGUAGE_COLOURS][0]
        cell = cell_of(level, level.pickup_pos[n])
        out.append(Thing(shape, colour, int(level.variation[cell]), float(level.pickup_reward[n]),
                         bool(level.pickup_takeable[n]), bool(level.pickup_is_goal[n]), bool(level.pickup_counts[n]),
                         cell))
    return out


def floor_colours(level) -> Dict[int, str]:
    """Room (variation code) -> its floor colour name, for the coloured floors."""
    out = {}
    for rect, rgb in zip(level.floor_rect, level.floor_rect_rgb):
        if rect[2] > rect[0]:
            room = level.variation[cell_of(level, ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2))]
            out[int(room)] = COLOUR_OF_RGB[tuple(int(c) for c in rgb)]
    return out


def reachable(level) -> np.ndarray:
    """bool[R, C]: the cells a player walks to from the level's spawn points (4-neighbour BFS over floor;
    remembered per map)."""
    key = (level.cells.tobytes(), level.spawn_pos.tobytes(), level.spawn_allowed.tobytes())
    if key not in _REACHED:
        _REACHED[key] = _bfs(level)
    return _REACHED[key]


_REACHED: Dict[tuple, np.ndarray] = {}


def _bfs(level) -> np.ndarray:
    cells = np.asarray(level.cells)
    seen = np.zeros(cells.shape, bool)
    todo = deque(cell_of(level, p) for p, ok in zip(level.spawn_pos, level.spawn_allowed[0]) if ok)
    for rc in todo:
        seen[rc] = True
    while todo:
        r, c = todo.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if cells[nr, nc] != CELL_WALL and not seen[nr, nc]:
                seen[nr, nc] = True
                todo.append((nr, nc))
    return seen


def instruction(level) -> str:
    """The level's instruction string."""
    return decode(level.instr)
