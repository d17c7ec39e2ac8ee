"""Room graphs on a grid: chains, random trees with a long spine, dead-end branches.

A :class:`Layout` puts room ``i`` on grid cell ``cells[i]`` (x grows east, y
north) and joins rooms only along its ``edges``, between neighbouring cells,
so every connection has a compass direction and a room has at most one
neighbour per direction. Rooms that sit side by side without an edge are
not connected. Everything here is pure grid geometry; ``builder`` turns a
layout into rooms, doors and facts.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

Cell = Tuple[int, int]

#: direction name -> grid step
STEPS: Dict[str, Cell] = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}


@dataclasses.dataclass
class Layout:
    """Rooms on grid cells and the connections between them (pairs of room indices)."""

    cells: List[Cell] = dataclasses.field(default_factory=list)
    edges: List[Tuple[int, int]] = dataclasses.field(default_factory=list)

    def __post_init__(self):
        self._where = {c: i for i, c in enumerate(self.cells)}

    @property
    def size(self) -> int:
        """Number of rooms."""
        return len(self.cells)

    def add_room(self, cell: Cell, joined_to: Optional[int] = None) -> int:
        """Put a new room on ``cell`` (joined to room ``joined_to`` if given); returns its index."""
        if cell in self._where:
            raise ValueError(f"cell {cell} already holds room {self._where[cell]}")
        self.cells.append(cell)
        self._where[cell] = len(self.cells) - 1
        if joined_to is not None:
            self.join(joined_to, len(self.cells) - 1)
        return len(self.cells) - 1

    def join(self, a: int, b: int) -> None:
        """Connect rooms ``a`` and ``b`` (their cells must be neighbours)."""
        self.direction(a, b)
        self.edges.append((a, b))

    def direction(self, a: int, b: int) -> str:
        """The compass direction in which room ``b`` lies from room ``a`` (ValueError if not neighbours)."""
        (ax, ay), (bx, by) = self.cells[a], self.cells[b]
        for name, step in STEPS.items():
            if (ax + step[0], ay + step[1]) == (bx, by):
                return name
        raise ValueError(f"rooms {a} and {b} are not on neighbouring cells")

    def free_cells(self, room: int) -> List[Cell]:
        """The empty grid cells next to ``room`` (north, south, east, west order)."""
        x, y = self.cells[room]
        return [(x + dx, y + dy) for dx, dy in STEPS.values() if (x + dx, y + dy) not in self._where]

    def room_at(self, cell: Cell) -> Optional[int]:
        """The room on ``cell``, or None."""
        return self._where.get(cell)

    def neighbours(self, room: int) -> List[int]:
        """Rooms connected to ``room``."""
        return [b if a == room else a for a, b in self.edges if room in (a, b)]


def chain(rng: np.random.Generator, n: int) -> Layout:
    """A winding chain of ``n`` rooms: room i is joined to room i+1, no cell used twice.

    A depth-first search with backtracking over random directions, so it never
    gets stuck where a plain random walk would.
    """
    layout = Layout()
    layout.add_room((0, 0))
    tried: List[List[str]] = [list(rng.permutation(list(STEPS)))]
    cells: List[Cell] = [(0, 0)]
    used = {(0, 0)}
    while len(cells) < n:
        if not tried[-1]:  # dead end: step back
            used.discard(cells.pop())
            tried.pop()
            continue
        dx, dy = STEPS[tried[-1].pop()]
        nxt = (cells[-1][0] + dx, cells[-1][1] + dy)
        if nxt not in used:
            cells.append(nxt)
            used.add(nxt)
            tried.append(list(rng.permutation(list(STEPS))))
    for i, cell in enumerate(cells[1:]):
        layout.add_room(cell, joined_to=i)
    return layout


def attach(layout: Layout, rng: np.random.Generator, count: int, anchors: Optional[Sequence[int]] = None,
           grow: bool = False) -> List[int]:
    """Add ``count`` dead-end rooms, each joined to one room that has an empty neighbouring cell.

    anchors: the rooms new ones join (default: every room); when none of
    them has an empty neighbouring cell left, any room that has one. With
    ``grow``, new rooms may also join rooms added by this call, so branches
    grow longer than one room. Returns the new rooms' indices.
    """
    pool = list(range(layout.size) if anchors is None else anchors)
    added: List[int] = []
    for _ in range(count):
        open_rooms = ([r for r in pool if layout.free_cells(r)]
                      or [r for r in range(layout.size) if layout.free_cells(r)])
        base = open_rooms[int(rng.integers(len(open_rooms)))]
        cells = layout.free_cells(base)
        room = layout.add_room(cells[int(rng.integers(len(cells)))], joined_to=base)
        added.append(room)
        if grow:
            pool.append(room)
    return added


def spine_tree(rng: np.random.Generator, n: int, spine: int) -> Layout:
    """A random tree of ``n`` rooms whose rooms 0..spine-1 form a chain (the spine).

    The other rooms branch off any room already placed, so room 0 to room
    ``spine - 1`` is the one path between them.
    """
    if not 1 <= spine <= n:
        raise ValueError(f"spine {spine} must be in 1..{n}")
    layout = chain(rng, spine)
    attach(layout, rng, n - spine, grow=True)
    return layout


def add_loops(layout: Layout, rng: np.random.Generator, probability: float) -> int:
    """Join neighbouring rooms that are not yet connected, each pair with ``probability``; returns how many."""
    joined = {frozenset(e) for e in layout.edges}
    added = 0
    for a, (x, y) in enumerate(list(layout.cells)):
        for cell in ((x + 1, y), (x, y + 1)):  # each neighbouring pair once
            b = layout.room_at(cell)
            if b is not None and frozenset((a, b)) not in joined and rng.random() < probability:
                layout.join(a, b)
                added += 1
    return added
