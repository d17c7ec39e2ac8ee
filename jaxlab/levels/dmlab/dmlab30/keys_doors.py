"""DMLab-30 rooms_keys_doors_puzzle: a keys-and-doors puzzle on a 3 × 3 grid of rooms.

Facts followed (``keys_doors_puzzle_factory`` and the keys_doors map
generator with DMLab's defaults): 60 s episodes; a key pickup pays +1, a
door opened with a key of its colour pays +1 and uses the key up (one key is
held at a time, a new one replaces it); the goal pays +50 and ends the
episode. Rooms are 2 rows × 3 columns of floor cells separated by 1-cell
walls, joined by open gaps or coloured doors; each room holds at most two
objects, in the bottom row at column offsets 0 and 2. The player spawns on
one of the start room's 3 top cells or its bottom-middle cell.

The puzzle's structure comes from a bank of plans drawn once on the host
(``keys_doors_plan.plan_bank``); every episode draws one plan and varies it
with a random permutation of the five colours, one of the 8 symmetries of
the room grid and a random order of each room's two object slots.

Map layout (fixed 10 × 13 cells): room (i, j) covers rows 3i+1..3i+2 and
columns 4j+1..4j+3; unused rooms stay solid. A connection between rooms
side by side sits in the top row of their shared wall (``CELL_DOOR_I``),
one between rooms above each other in the middle column (``CELL_DOOR_H``),
so a path through a room never has to cross an object cell.

Looks: DMLab's colours are red, green, blue, white and black; here colour
k = 1..5 is ``KEY_COLOURS[k - 1]`` (red, green, blue, yellow, purple). The
texture set (orange floor, sky ceiling) is approximated by the fixed
"sandstone" theme. The goal is the ``goal`` pickup look.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.dmlab.dmlab30 import keys_doors_plan as plan_lib
from jaxlab.levels.dmlab.generator import LevelGenerator
from jaxlab.levels.dmlab.level import Level
from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.object_catalogue import key_kind
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.procedural.assemble import assemble_level, pickup_set
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy
from jaxlab.levels.dmlab.themes import LEVEL_THEME_NAMES

GRID = plan_lib.GRID
ROWS, COLS = 3 * GRID + 1, 4 * GRID + 1          # 10 × 13 cells
EPISODE_SECONDS = 60.0
KEY_REWARD, UNLOCK_REWARD, GOAL_REWARD = 1.0, 1.0, 50.0
THEME = LEVEL_THEME_NAMES.index("sandstone")


def _room_of_cell() -> np.ndarray:
    """int32[ROWS, COLS]: the room (row-major 0..8) of each room floor cell, -1 elsewhere."""
    out = np.full((ROWS, COLS), -1, np.int32)
    for r in range(plan_lib.ROOMS):
        i, j = divmod(r, GRID)
        out[3 * i + 1:3 * i + 3, 4 * j + 1:4 * j + 4] = r
    return out


def _edges():
    """The 12 connections of the room grid: (rooms int32[12, 2], cell int32[12, 2] (row, col) of
    the gap or door, code int8[12] the door's cell code)."""
    rooms, cells, codes = [], [], []
    for i in range(GRID):
        for j in range(GRID):
            r = i * GRID + j
            if j + 1 < GRID:                    # side by side: top row of the shared wall
                rooms.append((r, r + 1)), cells.append((3 * i + 1, 4 * j + 4)), codes.append(CELL_DOOR_I)
            if i + 1 < GRID:                    # above each other: middle column of the shared wall
                rooms.append((r, r + GRID)), cells.append((3 * i + 3, 4 * j + 2)), codes.append(CELL_DOOR_H)
    return np.asarray(rooms, np.int32), np.asarray(cells, np.int32), np.asarray(codes, np.int8)


def _symmetries() -> np.ndarray:
    """int32[8, 9]: for each symmetry of the 3 × 3 grid, the old room now at each position."""
    grid = np.arange(plan_lib.ROOMS).reshape(GRID, GRID)
    out = []
    for flip in (False, True):
        g = grid.T if flip else grid
        for k in range(4):
            out.append(np.rot90(g, k).ravel())
    return np.asarray(out, np.int32)


ROOM_OF_CELL = _room_of_cell()
EDGE_ROOMS, EDGE_CELL, EDGE_CODE = _edges()
SYMMETRIES = _symmetries()                       # [8, 9] new position -> old room
SYMMETRY_IMAGES = np.argsort(SYMMETRIES, axis=1).astype(np.int32)   # [8, 9] old room -> new position


def room_origin(room) -> jnp.ndarray:
    """int32[..., 2] (row, col) of the top-left floor cell of rooms ``room`` (int array, 0..8)."""
    room = jnp.asarray(room, jnp.int32)
    return jnp.stack([3 * (room // GRID) + 1, 4 * (room % GRID) + 1], -1)


def draw_plan(key: jax.Array) -> dict:
    """One episode's puzzle plan: a bank plan under a random colour permutation, grid symmetry
    and slot order (jit/vmap-safe).

    Returns a dict of arrays (rooms row-major 0..8 on the 3 × 3 grid, colours 1..5):
    index int32[] the bank plan; conn int32[9, 9] (-1 wall, 0 open gap, k a door of colour k);
    used bool[9]; start int32[]; obj_room int32[M] (-1 none), obj_slot int32[M] (0 column
    offset 0, 1 offset 2), obj_colour int32[M] (0 the goal, k a key); core_colour int32[3] the
    planned key order (0 pad); core_key int32[3] the object index of each core key (-1 pad);
    core_door int32[3, 2] the rooms each core door joins (-1 pad). M = ``MAX_OBJECTS``.
    """
    bank = plan_lib.plan_bank()
    k_plan, k_colour, k_sym, k_slot = jax.random.split(key, 4)
    index = jax.random.randint(k_plan, (), 0, bank["conn"].shape[0], dtype=jnp.int32)
    p = {name: jnp.asarray(a)[index].astype(jnp.int32) for name, a in bank.items()}
    colour_of = jnp.concatenate([jnp.zeros(1, jnp.int32),
                                 jax.random.permutation(k_colour, plan_lib.COLOURS).astype(jnp.int32) + 1])

    def recolour(code):
        return jnp.where(code > 0, colour_of[jnp.clip(code, 0, plan_lib.COLOURS)], code)

    sym = jax.random.randint(k_sym, (), 0, SYMMETRIES.shape[0])
    old_at, image = jnp.asarray(SYMMETRIES)[sym], jnp.asarray(SYMMETRY_IMAGES)[sym]

    def move(room):
        return jnp.where(room >= 0, image[jnp.clip(room, 0, plan_lib.ROOMS - 1)], -1)

    swap = jax.random.bernoulli(k_slot, 0.5, (plan_lib.ROOMS,)).astype(jnp.int32)
    obj_room = move(p["obj_room"])
    return dict(
        index=index, conn=recolour(p["conn"])[old_at][:, old_at], used=p["used"][old_at] > 0,
        start=image[p["start"]], obj_room=obj_room,
        obj_slot=p["obj_slot"] ^ swap[jnp.clip(obj_room, 0, plan_lib.ROOMS - 1)],
        obj_colour=recolour(p["obj_colour"]), core_colour=recolour(p["core_colour"]),
        core_key=p["core_key"], core_door=move(p["core_door"]),
    )


def plan_level(plan: dict) -> Level:
    """The Level of a plan from ``draw_plan`` (deterministic; the kernel draws the spawn point
    and yaw). Shapes: cells 10 × 13, D = 12 doors (one slot per grid connection, valid where it
    is a door; door_lock its colour 1..5), N = MAX_OBJECTS pickups (keys +1, the goal +50, which
    ends the episode), S = 4 spawn points; positions in units, episode 60 s."""
    conn = plan["conn"]
    room_of_cell = jnp.asarray(ROOM_OF_CELL)
    floor = (room_of_cell >= 0) & plan["used"][jnp.clip(room_of_cell, 0, plan_lib.ROOMS - 1)]
    cells = jnp.where(floor, CELL_FLOOR, CELL_WALL).astype(jnp.int8)
    edge = conn[EDGE_ROOMS[:, 0], EDGE_ROOMS[:, 1]]                  # int32[12]
    edge_cell = jnp.where(edge == plan_lib.OPEN, CELL_FLOOR,
                          jnp.where(edge > 0, jnp.asarray(EDGE_CODE), CELL_WALL)).astype(jnp.int8)
    cells = cells.at[EDGE_CELL[:, 0], EDGE_CELL[:, 1]].set(edge_cell)
    door_valid = edge > 0
    door_lock = jnp.where(door_valid, edge, 0)

    valid = plan["obj_room"] >= 0
    colour = plan["obj_colour"]
    rc = room_origin(jnp.maximum(plan["obj_room"], 0)) + jnp.stack(
        [jnp.ones_like(colour), 2 * plan["obj_slot"]], -1)
    goal = valid & (colour == plan_lib.GOAL)
    pickups = pickup_set(cell_centre_xy(rc, ROWS), jnp.where(goal, PICKUP_INDEX["goal"], key_kind(colour)),
                         jnp.where(goal, GOAL_REWARD, KEY_REWARD), valid, is_goal=goal,
                         key=jnp.where(valid, colour, 0), counts=goal)
    spawn_rc = room_origin(plan["start"])[None, :] + jnp.asarray([[0, 0], [0, 1], [0, 2], [1, 1]], jnp.int32)
    return assemble_level(cells, jnp.zeros((ROWS, COLS), jnp.int8), jnp.asarray(EDGE_CELL), door_valid, pickups,
                          cell_centre_xy(spawn_rc, ROWS), jnp.ones(4, bool), EPISODE_SECONDS,
                          door_lock=door_lock, theme=THEME, unlock_reward=UNLOCK_REWARD, end_after_pickups=1)


class KeysDoorsPuzzle(LevelGenerator):
    """rooms_keys_doors_puzzle: one puzzle per episode (map, keys and goal fixed for the episode)."""

    name = "rooms_keys_doors_puzzle"

    def __init__(self):
        plan_lib.plan_bank()                     # draw (and cache) the bank once, on the host

    def episode(self, key, level_index) -> Level:
        """A new puzzle drawn with ``key`` (``level_index`` is unused: one level kind)."""
        return plan_level(draw_plan(key))

    def episode_and_plan(self, key, level_index):
        """(Level, plan dict of ``draw_plan``) of the episode ``episode(key, level_index)`` draws."""
        plan = draw_plan(key)
        return plan_level(plan), plan


GENERATORS = {"rooms_keys_doors_puzzle": KeysDoorsPuzzle()}
