"""Statistics of text mazes, for comparing maze generators (pure numpy, batched).

A maze is an entity layer as DeepMind Lab's and labmaze's generators write it: text rows of
``'*'`` (wall), ``' '`` (floor), ``'I'``/``'H'`` (doors) and entity letters (``'P'``, ``'G'``,
``'A'``, ...; floor). jaxlab's on-device mazes (``procedural.maze``) are written in that form by
:func:`entity_layer`. The statistics take a batch: ``bool[N, H, W]`` grids of N mazes of one size.

Rooms are found from the text alone, as labmaze's ``FindRooms`` defines them: a floor cell is a
room cell when it has a floor neighbour to its left or right with floor above or below that
neighbour, and a floor neighbour above or below with floor to that neighbour's left or right
(so corridors, bends and T-junctions drop out); a room is a 4-connected set of room cells. Both
generators keep every cell at an even (row, column) outside rooms wall (the ``off_grid``
statistic), so no 2 x 2 block of floor lies outside a room and these are exactly the generators'
own rooms (the benchmark and the tests check this against labmaze's variations layer and jaxlab's
``room_id``).

Loops are counted on the maze graph with each room contracted to one vertex: floor cells are
vertices, 4-neighbour floor pairs are edges, and loops = edges - vertices + components (the
edges beyond a spanning forest). A maze whose rooms and corridors form a tree has none. (Rooms
are rectangles in both generators, so a corridor cell touches a room along one edge at most.)
"""
from __future__ import annotations

from typing import Dict, Sequence

import numpy as np

from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_WALL

#: per-maze statistics (name -> description), each an array of N values
PER_MAZE = {
    "rooms": "rooms in the maze",
    "room_cells": "floor cells in rooms",
    "corridor_cells": "floor cells outside rooms (doors included)",
    "floor_fraction": "floor cells / interior cells ((H - 2) (W - 2))",
    "dead_ends": "corridor cells with exactly one floor neighbour",
    "junctions": "corridor cells with three or more floor neighbours",
    "loops": "edges beyond a spanning forest, rooms contracted",
    "entrances": "corridor cells next to a room cell",
    "doors": "door cells ('I' or 'H')",
    "off_grid": "corridor cells at an even (row, column)",
    "components": "connected sets of floor cells",
}
#: per-room statistics, pooled over every room of every maze
PER_ROOM = {
    "room_area": "cells of a room",
    "room_long_side": "cells along a room's longer side",
    "room_short_side": "cells along a room's shorter side",
    "room_entrances": "corridor cells next to the room",
}
_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: the stated tolerance of a generator against another on one statistic: means at most this many
#: pooled standard deviations apart, and at most this Kolmogorov–Smirnov distance
MEAN_GAP_TOLERANCE = 0.2
KS_TOLERANCE = 0.1
#: the chance that two samples from one distribution are found out of tolerance by sampling noise
#: alone (the allowance :func:`within_tolerance` adds for the sample sizes), and the two-sided
#: point of a standard normal for that chance
NOISE_ALPHA = 0.001
NOISE_Z = 3.29


def parse_layers(layers: Sequence[str]):
    """(floor bool[N, H, W], door bool[N, H, W]) of N entity layers of one size (text, one row a
    line; every character but ``'*'`` is floor, ``'I'`` and ``'H'`` are also doors)."""
    rows = [layer.rstrip("\n").split("\n") for layer in layers]
    chars = np.array([[list(r) for r in maze] for maze in rows], dtype="<U1")
    return chars != "*", (chars == "I") | (chars == "H")


def entity_layer(cells: np.ndarray) -> str:
    """The entity layer (text rows ending in newlines) of one jaxlab maze ``cells`` int8[H, W]
    (CELL_* codes): ``'*'`` wall, ``' '`` floor, ``'I'``/``'H'`` doors."""
    cells = np.asarray(cells)
    text = np.full(cells.shape, " ", dtype="<U1")
    text[cells == CELL_WALL] = "*"
    text[cells == CELL_DOOR_I] = "I"
    text[cells == CELL_DOOR_H] = "H"
    return "".join("".join(row) + "\n" for row in text)


def _shift(x: np.ndarray, dr: int, dc: int) -> np.ndarray:
    """``out[n, r, c] = x[n, r + dr, c + dc]``, False (or 0) off the grid. x: [N, H, W]."""
    out = np.zeros_like(x)
    h, w = x.shape[1:]
    out[:, max(0, -dr):h - max(0, dr), max(0, -dc):w - max(0, dc)] = \
        x[:, max(0, dr):h - max(0, -dr), max(0, dc):w - max(0, -dc)]
    return out


_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))                 # up, down, left, right
_DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))           # up-left, up-right, down-left, down-right


def neighbour_count(floor: np.ndarray) -> np.ndarray:
    """int32[N, H, W]: floor cells among each cell's 4 neighbours. floor: bool[N, H, W]."""
    return sum(_shift(floor, dr, dc).astype(np.int32) for dr, dc in _STEPS)


def room_cells(floor: np.ndarray) -> np.ndarray:
    """bool[N, H, W]: the room cells of ``floor`` bool[N, H, W] (labmaze's definition, see the module
    docstring): a side neighbour counts when a diagonal on its side is floor too."""
    up, down, left, right = (_shift(floor, dr, dc) for dr, dc in _STEPS)
    up_left, up_right, down_left, down_right = (_shift(floor, dr, dc) for dr, dc in _DIAGONALS)
    across = (right & (up_right | down_right)) | (left & (up_left | down_left))
    along = (down & (down_left | down_right)) | (up & (up_left | up_right))
    return floor & across & along


def label_cells(mask: np.ndarray) -> np.ndarray:
    """int32[N, H, W]: 4-connected components of ``mask`` bool[N, H, W], each named by the largest
    flat index (row * W + col) + 1 of its cells; 0 outside ``mask``."""
    n, h, w = mask.shape
    label = np.where(mask, np.arange(1, h * w + 1, dtype=np.int32).reshape(1, h, w), 0)
    while True:
        grown = label
        for dr, dc in _STEPS:
            grown = np.maximum(grown, _shift(label, dr, dc))
        grown = np.where(mask, grown, 0)
        if np.array_equal(grown, label):
            return label
        label = grown


def _components(mask: np.ndarray) -> np.ndarray:
    """int64[N]: the 4-connected components of each grid of ``mask`` bool[N, H, W]."""
    label = label_cells(mask)
    return np.sum((label == np.arange(1, label[0].size + 1).reshape(label.shape[1:])) & mask, axis=(1, 2))


def _rooms(room: np.ndarray, corridor: np.ndarray):
    """Per room of ``room`` bool[N, H, W]: (maze index int[M], area, long side, short side,
    entrances), M the rooms of all N mazes, sides from each room's bounding box."""
    n, h, w = room.shape
    label = label_cells(room)
    maze, flat = np.nonzero(label.reshape(n, -1))
    key = maze * (h * w + 1) + label.reshape(n, -1)[maze, flat]
    rows, cols = flat // w, flat % w
    names, inverse, area = np.unique(key, return_inverse=True, return_counts=True)
    extent = []
    for coord in (rows, cols):
        low = np.full(names.shape, h + w)
        high = np.full(names.shape, -1)
        np.minimum.at(low, inverse, coord)
        np.maximum.at(high, inverse, coord)
        extent.append(high - low + 1)
    # entrances: corridor cells next to a room cell, credited to that room
    entrances = np.zeros(names.shape, np.int64)
    for dr, dc in _STEPS:
        nb = _shift(label, dr, dc)
        m, r, c = np.nonzero(corridor & (nb > 0))
        np.add.at(entrances, np.searchsorted(names, m * (h * w + 1) + nb[m, r, c]), 1)
    return (names // (h * w + 1), area, np.maximum(*extent), np.minimum(*extent), entrances)


def statistics(floor: np.ndarray, door: np.ndarray) -> Dict[str, np.ndarray]:
    """Every statistic of PER_MAZE (arrays of N) and PER_ROOM (arrays over all rooms, plus
    ``room_maze``: each room's maze index) of the mazes ``floor``, ``door`` bool[N, H, W]
    (as :func:`parse_layers` gives)."""
    n, h, w = floor.shape
    room = room_cells(floor)
    corridor = floor & ~room
    count = neighbour_count(floor)
    rows = np.arange(h)[:, None]
    cols = np.arange(w)[None, :]
    pillar = (rows % 2 == 0) & (cols % 2 == 0)
    room_maze, area, long_side, short_side, room_entrances = _rooms(room, corridor)
    rooms = np.bincount(room_maze, minlength=n)
    # edges between floor cells, less those inside one room; vertices: corridor cells and rooms
    edges = sum(np.sum(floor & _shift(floor, dr, dc) & ~(room & _shift(room, dr, dc)), axis=(1, 2))
                for dr, dc in ((1, 0), (0, 1)))
    components = _components(floor)
    corridor_cells = corridor.sum((1, 2))
    return {
        "rooms": rooms,
        "room_cells": room.sum((1, 2)),
        "corridor_cells": corridor_cells,
        "floor_fraction": floor.sum((1, 2)) / ((h - 2) * (w - 2)),
        "dead_ends": (corridor & (count == 1)).sum((1, 2)),
        "junctions": (corridor & (count >= 3)).sum((1, 2)),
        "loops": edges - (corridor_cells + rooms) + components,
        "entrances": (corridor & (neighbour_count(room) > 0)).sum((1, 2)),
        "doors": door.sum((1, 2)),
        "off_grid": (corridor & pillar).sum((1, 2)),
        "components": components,
        "room_area": area,
        "room_long_side": long_side,
        "room_short_side": short_side,
        "room_entrances": room_entrances,
        "room_maze": room_maze,
    }


def summary(x: np.ndarray) -> Dict[str, float]:
    """``mean``, ``std`` and the quantiles ``q05 q25 q50 q75 q95`` of the 1-d sample ``x``."""
    x = np.asarray(x, np.float64)
    out = {"mean": float(x.mean()), "std": float(x.std())}
    for q, v in zip(_QUANTILES, np.quantile(x, _QUANTILES)):
        out[f"q{round(100 * q):02d}"] = float(v)
    return out


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The two-sample Kolmogorov–Smirnov distance: the largest gap, over all values, between the
    empirical distribution functions of the 1-d samples ``a`` and ``b`` (0 = same, 1 = disjoint)."""
    a, b = np.sort(np.asarray(a, np.float64)), np.sort(np.asarray(b, np.float64))
    at = np.concatenate([a, b])
    gap = np.searchsorted(a, at, side="right") / a.size - np.searchsorted(b, at, side="right") / b.size
    return float(np.max(np.abs(gap)))


def mean_gap(a: np.ndarray, b: np.ndarray) -> float:
    """The difference of means ``mean(b) - mean(a)`` in units of the pooled standard deviation
    (``sqrt((var a + var b) / 2)``); 0 when both samples are constant and equal, inf when only
    their means differ."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    diff = b.mean() - a.mean()
    pooled = np.sqrt((a.var() + b.var()) / 2)
    if pooled == 0:
        return 0.0 if diff == 0 else float(np.copysign(np.inf, diff))
    return float(diff / pooled)


def ks_threshold(n_a: int, n_b: int, alpha: float = NOISE_ALPHA) -> float:
    """The KS distance two samples of sizes ``n_a``, ``n_b`` from one distribution exceed with
    chance about ``alpha`` (the asymptotic two-sample bound ``sqrt(-ln(alpha / 2) / 2) *
    sqrt((n_a + n_b) / (n_a n_b))``)."""
    return float(np.sqrt(-np.log(alpha / 2) / 2) * np.sqrt((n_a + n_b) / (n_a * n_b)))


def within_tolerance(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the 1-d samples ``a`` and ``b`` are within the stated tolerance of each other:
    ``|mean_gap| <= MEAN_GAP_TOLERANCE`` and ``ks_distance <= KS_TOLERANCE``, each widened by what
    sampling noise gives with chance ``NOISE_ALPHA`` at these sample sizes (``NOISE_Z`` standard
    errors ``sqrt(1 / n_a + 1 / n_b)`` of the mean gap; :func:`ks_threshold` for the distance)."""
    noise = NOISE_Z * np.sqrt(1 / len(a) + 1 / len(b))
    return (abs(mean_gap(a, b)) <= MEAN_GAP_TOLERANCE + noise
            and ks_distance(a, b) <= KS_TOLERANCE + ks_threshold(len(a), len(b), NOISE_ALPHA))
