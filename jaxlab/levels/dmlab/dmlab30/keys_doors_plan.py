"""The host-side planner of rooms_keys_doors_puzzle: a seeded bank of puzzle plans (numpy).

A plan is a 3 × 3 grid of rooms, some used, joined by open gaps or coloured
doors, with keys and the goal in the rooms' object slots and a planned key
order that reaches the goal. DMLab draws one plan per episode in Lua; here a
bank of ``BANK_SIZE`` plans is drawn once, deterministically, and the device
(``keys_doors.KeysDoorsPuzzle``) samples one per episode and varies it with a
random permutation of the five colours, a random symmetry of the room grid
and a random order of each room's two object slots.

The planner (DMLab's keys_doors_puzzle_factory defaults):

- Core: 1-3 distinct colours c_1..c_L. Step s attaches a new room (stage s)
  behind a door of colour c_s. Its key goes either into an earlier room with
  space (and the new room hangs off the last one) or into the last room (and
  the new room hangs off any earlier room with a free neighbour). An empty
  pass-through room (open gap) may come first (probability 0.8 / 0.5 / 0 for
  L = 1 / 2 / 3, at most one). The goal goes into the last core room.
  Planned solution: for s = 1..L take key c_s, open door s.
- Trap room: its door has the colour c_s of a core door and inside lies a
  lure key of a later core colour (a free colour when L = 1). With
  probability 0.5 it hangs off a room reachable while key c_s is held, so
  spending the key there strands the player.
- Red-herring room: an empty room behind a door of any core colour (hanging,
  with probability 0.5, where that key can be wasted on it).
- 0-1 easy extra rooms: a door of an unused colour whose key lies in a room
  reachable before it.
- Up to 2 unopenable doors (a colour with no key) and 0-1 extra openable
  doors (a core colour) between adjacent used rooms not yet joined.
- 0-1 useless keys: a colour that no door has.
Only doors and keys are added after the core, and each can be ignored, so the
planned order always works. Keys are single use and one is held at a time,
so a key spent on the wrong door of its colour (a trap, a red herring, an
extra openable door) or dropped for another key can strand the player.
The pass-through room never holds objects.
"""
from __future__ import annotations

import functools
from typing import Dict, List

import numpy as np

GRID = 3                 # rooms per side
ROOMS = GRID * GRID
COLOURS = 5              # red, green, blue, white, black (1..5)
SLOTS = 2                # objects per room (bottom row, column offsets 0 and 2)
MAX_OBJECTS = 8          # goal + up to 3 core keys + lure + easy-room key + useless key (+1 spare)
MAX_CORE = 3
GOAL = 0                 # ``obj_colour`` of the goal; keys are 1..COLOURS
WALL, OPEN = -1, 0       # ``conn`` codes; 1..COLOURS: a door of that colour
BANK_SIZE = 1536        # 512 plans per core length; ~0.4 s to draw on the host
BANK_SEED = 20180205

_EMPTY_ROOM_PROB = {1: 0.8, 2: 0.5}


class _Retry(Exception):
    """The grid ran out of space: draw the plan again."""


def neighbours(room: int) -> List[int]:
    """Rooms sharing a wall with ``room`` on the 3 × 3 grid (row-major indices)."""
    i, j = divmod(room, GRID)
    out = []
    for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= i + di < GRID and 0 <= j + dj < GRID:
            out.append((i + di) * GRID + j + dj)
    return out


class _Builder:
    """One plan under construction."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.conn = np.full((ROOMS, ROOMS), WALL, np.int8)
        self.stage = np.full(ROOMS, -1, np.int32)    # -1 unused; core rooms 0..L; extra rooms 99
        self.objects: List[tuple] = []               # (room, colour)
        self.key_colours: set = set()
        self.door_colours: set = set()
        self.empty: set = set()                      # pass-through rooms, kept free of objects

    def choice(self, items):
        if not items:
            raise _Retry
        return items[int(self.rng.integers(len(items)))]

    def space(self, room: int) -> int:
        if room in self.empty:
            return 0
        return SLOTS - sum(r == room for r, _ in self.objects)

    def free_neighbours(self, room: int) -> List[int]:
        return [n for n in neighbours(room) if self.stage[n] < 0]

    def core_rooms(self, max_stage: int) -> List[int]:
        return [r for r in range(ROOMS) if 0 <= self.stage[r] <= max_stage]

    def attach(self, parent: int, code: int, stage: int) -> int:
        room = self.choice(self.free_neighbours(parent))
        self.conn[parent, room] = self.conn[room, parent] = code
        self.stage[room] = stage
        if code > 0:
            self.door_colours.add(code)
        return room

    def put(self, room: int, colour: int) -> int:
        if self.space(room) <= 0:
            raise _Retry
        self.objects.append((room, colour))
        if colour != GOAL:
            self.key_colours.add(colour)
        return len(self.objects) - 1

    def unjoined_pairs(self) -> List[tuple]:
        used = [r for r in range(ROOMS) if self.stage[r] >= 0]
        return [(a, b) for a in used for b in neighbours(a) if a < b and self.stage[b] >= 0
                and self.conn[a, b] == WALL]


def _draw(rng: np.random.Generator, length: int) -> Dict[str, np.ndarray]:
    """One plan with a core of ``length`` steps (raises _Retry when the grid runs out of space)."""
    b = _Builder(rng)
    colours = [int(c) for c in rng.permutation(COLOURS) + 1]
    core = colours[:length]
    start = int(rng.integers(ROOMS))
    b.stage[start] = 0
    last, empty_left = start, 1
    core_key, core_door = [], []
    for s, colour in enumerate(core, start=1):
        earlier = b.core_rooms(s - 1)
        if rng.random() < 0.5:
            key_room = b.choice([r for r in earlier if b.space(r) > 0])
            parent = last
        else:
            key_room = last
            parent = b.choice([r for r in earlier if b.free_neighbours(r)])
        core_key.append(b.put(key_room, colour))
        if empty_left and rng.random() < _EMPTY_ROOM_PROB.get(length, 0.0) and b.free_neighbours(parent):
            parent = b.attach(parent, OPEN, s - 1)
            b.empty.add(parent)
            empty_left -= 1
        room = b.attach(parent, colour, s)
        core_door.append((parent, room))
        last = room
    b.put(last, GOAL)

    # Trap room: a core door's colour, a lure key for a later core colour inside.
    s = int(rng.integers(1, length)) if length > 1 else 1
    lure = core[int(rng.integers(s, length))] if length > 1 else colours[length]
    during = rng.random() < 0.5
    parents = [r for r in b.core_rooms(s - 1 if during else length) if b.free_neighbours(r)]
    trap = b.attach(b.choice(parents), core[s - 1], 99)
    b.put(trap, lure)

    # Red-herring room: an empty room behind a door of any core colour.
    u = int(rng.integers(1, length + 1))
    during = rng.random() < 0.5
    parents = [r for r in b.core_rooms(u - 1 if during else length) if b.free_neighbours(r)]
    b.attach(b.choice(parents), core[u - 1], 99)

    def unused(exclude) -> List[int]:
        return [c for c in colours if c not in exclude]

    # 0-1 easy extra rooms: a door of an unused colour, its key reachable before it.
    if rng.random() < 0.5:
        free = unused(b.key_colours | b.door_colours)
        parents = [r for r in b.core_rooms(length) if b.free_neighbours(r)]
        if free and parents:
            colour, parent = b.choice(free), b.choice(parents)
            holders = [r for r in b.core_rooms(int(b.stage[parent])) if b.space(r) > 0]
            if holders:
                b.attach(parent, colour, 99)
                b.put(b.choice(holders), colour)

    # 2 unopenable doors (a colour with no key) between used rooms not yet joined.
    keyless = unused(b.key_colours)
    for _ in range(2):
        pairs = b.unjoined_pairs()
        if not keyless or not pairs:
            break
        a, c = b.choice(pairs)
        b.conn[a, c] = b.conn[c, a] = b.choice(keyless)
        b.door_colours.add(int(b.conn[a, c]))

    # 0-1 extra openable doors of a core colour.
    if rng.random() < 0.5:
        pairs = b.unjoined_pairs()
        if pairs:
            a, c = b.choice(pairs)
            b.conn[a, c] = b.conn[c, a] = b.choice(core)

    # 0-1 useless keys: a colour no door has.
    if rng.random() < 0.5:
        doorless = unused(b.door_colours)
        holders = [r for r in range(ROOMS) if b.stage[r] >= 0 and b.space(r) > 0]
        if doorless and holders:
            b.put(b.choice(holders), b.choice(doorless))

    obj_room = np.full(MAX_OBJECTS, -1, np.int8)
    obj_slot = np.zeros(MAX_OBJECTS, np.int8)
    obj_colour = np.zeros(MAX_OBJECTS, np.int8)
    filled = np.zeros(ROOMS, np.int8)
    for i, (room, colour) in enumerate(b.objects):
        obj_room[i], obj_slot[i], obj_colour[i] = room, filled[room], colour
        filled[room] += 1
    pad = MAX_CORE - length
    return dict(
        conn=b.conn, used=b.stage >= 0, start=np.int8(start),
        obj_room=obj_room, obj_slot=obj_slot, obj_colour=obj_colour,
        core_colour=np.array(core + [0] * pad, np.int8),
        core_key=np.array(core_key + [-1] * pad, np.int8),
        core_door=np.array(core_door + [(-1, -1)] * pad, np.int8).reshape(MAX_CORE, 2),
    )


def draw_plan(rng: np.random.Generator, length: int) -> Dict[str, np.ndarray]:
    """One plan with a core of ``length`` (1..3) key/door pairs drawn with ``rng`` (redrawn with
    the same length until it fits the grid, as DMLab restarts its generator). Arrays:

    conn int8[9, 9] (-1 wall, 0 open gap, k door of colour k; symmetric);
    used bool[9]; start int8 (the start room); obj_room int8[M] (-1 none),
    obj_slot int8[M] (0, 1), obj_colour int8[M] (0 the goal, k a key);
    core_colour int8[3] the planned key order (0 pad); core_key int8[3] the
    object of each core key (-1 pad); core_door int8[3, 2] the rooms each
    core door joins (-1 pad). Rooms are row-major on the 3 × 3 grid.
    """
    while True:
        try:
            return _draw(rng, length)
        except _Retry:
            continue


@functools.lru_cache(maxsize=None)
def plan_bank(size: int = BANK_SIZE, seed: int = BANK_SEED) -> Dict[str, np.ndarray]:
    """``size`` plans drawn from ``seed``, stacked on a leading axis (cached; read-only arrays of
    ``draw_plan`` with a leading [size] axis). Plan i has a core of ``1 + i % 3`` steps, so a
    uniformly drawn plan has a uniform core length, as DMLab's coreSequenceLength {1..3}."""
    rng = np.random.default_rng(seed)
    plans = [draw_plan(rng, 1 + i % MAX_CORE) for i in range(size)]
    bank = {k: np.stack([p[k] for p in plans]) for k in plans[0]}
    for a in bank.values():
        a.setflags(write=False)
    return bank
