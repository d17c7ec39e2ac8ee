"""The grid's state (``GridState``) and what stays fixed while it plays (``GridRules``).

Pieces live in ``max_pieces`` slots: a piece's handle is its slot (int32), -1 is "no piece"
(Lab2D's empty handle). A free slot has state -1. ``cells[layer, y, x]`` holds the piece standing
there (-1: empty; a piece off a bounded grid has no cell and is hidden); what a cell shows is its
piece's state's sprite, facing as the piece does (``queries.visible_sprites``), or
``beam``/``beam_orient``, the sprites a beam drew this frame (shown until the next update). Connected pieces form rings
through ``piece_next``/``piece_prev``. Actions (moves, state changes, connections, beams) wait in
``queue_*`` until the next ``update``, as in Lab2D. Positions are (x, y), x east, y south, from 0;
orientations 0 N, 1 E, 2 S, 3 W (``jaxlab.levels.lab2d.grid_world``).

``user`` holds the level's own state (the compiled Lua's variables); callbacks read and write it.
``error`` is set (never cleared) when a fixed capacity ran out (a piece slot, the action queue, the
depth of callbacks calling callbacks): what Lab2D would have done then is not what happened, and the
host says so.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping, Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.lab2d.grid_world import GridWorld

#: ``error`` bits: a piece could not be made for want of a free slot; an action for want of queue room;
#: callbacks called each other more deeply than traced (``dispatch.MAX_DEPTH``); a level's play-time
#: ``assert`` failed or another Lua error stopped it (where Lab2D would stop with an error, a kernel cannot)
NO_FREE_SLOT, QUEUE_FULL, TOO_DEEP, ASSERT_FAILED = 1, 2, 4, 8
#: int32 values per queued action: kind, piece, and three arguments
ACTION_FIELDS = 5
#: the kinds of queued action, Lab2D's: (arguments)
ROTATE, PUSH, TELEPORT, SET_ORIENTATION, SET_STATE, TELEPORT_TO_GROUP, HIT_BEAM, CONNECT, DISCONNECT, \
    DISCONNECT_ALL = range(10)
#: ``TELEPORT``/``TELEPORT_TO_GROUP`` orientation modes, Lab2D's ``TELEPORT_ORIENTATION``
MATCH_TARGET, KEEP_ORIGINAL, PICK_RANDOM = range(3)

Fn = Callable[..., Any]


@dataclasses.dataclass(frozen=True)
class GridCallbacks:
    """The level's callbacks, keyed as Lab2D's ``stateCallbacks`` table is (ids from the world).

    Each is a JAX function of the grid state and int32[] handles, returning the grid state:
    ``on_add[state](g, piece)``, ``on_remove[state](g, piece)``, ``on_blocked[state](g, piece,
    blocker)``, ``on_enter[(state, contact)](g, piece, instigator)``, ``on_leave[...]`` alike,
    ``on_update[(state, update)](g, piece, frames)``. ``on_hit[(state, hit)]`` is True (the state
    absorbs the beam) or ``fn(g, piece, hitter) -> (g, bool[] absorbed)``."""

    on_add: Mapping[int, Fn] = dataclasses.field(default_factory=dict)
    on_remove: Mapping[int, Fn] = dataclasses.field(default_factory=dict)
    on_blocked: Mapping[int, Fn] = dataclasses.field(default_factory=dict)
    on_enter: Mapping[Tuple[int, int], Fn] = dataclasses.field(default_factory=dict)
    on_leave: Mapping[Tuple[int, int], Fn] = dataclasses.field(default_factory=dict)
    on_update: Mapping[Tuple[int, int], Fn] = dataclasses.field(default_factory=dict)
    on_hit: Mapping[Tuple[int, int], Union[bool, Fn]] = dataclasses.field(default_factory=dict)

    def __hash__(self):   # the tables are dicts: one set of callbacks is itself, as a static argument
        return id(self)


@dataclasses.dataclass(frozen=True, eq=False)
class GridRules:
    """What stays fixed: the world, the grid's size (``width`` x ``height`` cells), its topology
    (``torus``: edges wrap; else bounded), the capacities and the callbacks."""

    world: GridWorld
    width: int
    height: int
    torus: bool = False
    max_pieces: int = 256
    max_queue: int = 256
    callbacks: GridCallbacks = dataclasses.field(default_factory=GridCallbacks)

    def table(self, values) -> jnp.ndarray:
        """int32[n + 1] ``values`` with -1 appended, so that indexing with id -1 reads -1."""
        return jnp.asarray(np.asarray(list(values) + [-1], np.int32))

    def state_layer(self, state) -> jnp.ndarray:
        """int32[...]: the layer of ``state`` (int32[...]; -1 for state -1 or a state without one)."""
        return self.table(self.world.state_layer)[state]

    def state_contact(self, state) -> jnp.ndarray:
        """int32[...]: the contact of ``state`` (-1 none)."""
        return self.table(self.world.state_contact)[state]

    def state_sprite(self, state) -> jnp.ndarray:
        """int32[...]: the sprite of ``state`` (-1 none)."""
        return self.table(self.world.state_sprite)[state]

    def in_group(self, state, group) -> jnp.ndarray:
        """bool[...]: ``state`` (int32[...]; -1 none) belongs to ``group`` (int32[]; -1 none)."""
        table = np.zeros((self.world.num_states + 1, len(self.world.group_names) + 1), bool)
        for s, groups in enumerate(self.world.state_groups):
            table[s, list(groups)] = True
        return jnp.asarray(table)[state, group]


@struct.dataclass
class GridState:
    """One grid (see the module docstring). P pieces, L layers, H x W cells, Q queued actions."""

    piece_state: jnp.ndarray     # int32[P], -1 free
    piece_pos: jnp.ndarray       # int32[P, 2] (x, y)
    piece_orient: jnp.ndarray    # int32[P]
    piece_born: jnp.ndarray      # int32[P] the frame its state began
    piece_next: jnp.ndarray      # int32[P] ring of connected pieces, -1 none
    piece_prev: jnp.ndarray      # int32[P]
    cells: jnp.ndarray           # int32[L, H, W] piece, -1 empty
    beam: jnp.ndarray            # int32[L, H, W] beam sprite drawn this frame, -1 none
    beam_orient: jnp.ndarray     # int32[L, H, W]
    update_group: jnp.ndarray    # int32[U] the group each update visits, -1 none
    update_probability: jnp.ndarray  # float32[U]
    update_start: jnp.ndarray    # int32[U] frames a piece waits in its state before it updates
    queue: jnp.ndarray           # int32[Q, ACTION_FIELDS]
    queue_len: jnp.ndarray       # int32[]
    removing: jnp.ndarray        # int32[P] pieces removed during an update, released after it
    removing_len: jnp.ndarray    # int32[]
    frame: jnp.ndarray           # int32[] updates run so far
    key: jnp.ndarray             # the grid's random key
    error: jnp.ndarray           # int32[] NO_FREE_SLOT | QUEUE_FULL | TOO_DEEP | ASSERT_FAILED bits
    user: Any = None


def empty_grid(rules: GridRules, key: jax.Array, user: Any = None) -> GridState:
    """A grid with no pieces, no updaters and an empty queue; ``key`` is its random key."""
    p, q = rules.max_pieces, rules.max_queue
    shape = (rules.world.num_layers, rules.height, rules.width)
    u = len(rules.world.update_names)

    def neg(shape_, dtype):
        return jnp.full(shape_, -1, dtype)

    return GridState(
        piece_state=neg((p,), jnp.int32), piece_pos=jnp.zeros((p, 2), jnp.int32),
        piece_orient=jnp.zeros((p,), jnp.int32), piece_born=jnp.zeros((p,), jnp.int32),
        piece_next=neg((p,), jnp.int32), piece_prev=neg((p,), jnp.int32),
        cells=neg(shape, jnp.int32),
        beam=neg(shape, jnp.int32), beam_orient=jnp.zeros(shape, jnp.int32),
        update_group=neg((u,), jnp.int32), update_probability=jnp.zeros((u,), jnp.float32),
        update_start=jnp.zeros((u,), jnp.int32),
        queue=jnp.zeros((q, ACTION_FIELDS), jnp.int32), queue_len=jnp.int32(0),
        removing=neg((p,), jnp.int32), removing_len=jnp.int32(0),
        frame=jnp.int32(0), key=key, error=jnp.int32(0), user=user)


def in_bounds(rules: GridRules, pos) -> jnp.ndarray:
    """bool[]: ``pos`` (int32[2] x, y) lies on the grid (always, on a torus)."""
    if rules.torus:
        return jnp.bool_(True)
    return (pos[0] >= 0) & (pos[0] < rules.width) & (pos[1] >= 0) & (pos[1] < rules.height)


def normalised(rules: GridRules, pos) -> jnp.ndarray:
    """int32[2]: ``pos`` wrapped onto the grid on a torus (unchanged when bounded)."""
    if not rules.torus:
        return pos
    return jnp.mod(pos, jnp.asarray([rules.width, rules.height], jnp.int32))


def cell_ok(rules: GridRules, pos, layer) -> jnp.ndarray:
    """bool[]: (``pos``, ``layer``) is a cell (Lab2D's ``TryToCellIndex`` is not empty)."""
    return in_bounds(rules, pos) & (layer >= 0)


def cell_index(rules: GridRules, pos, layer):
    """(layer, y, x) int32 indices of the cell, clipped to the grid (read only where ``cell_ok``)."""
    pos = normalised(rules, pos)
    return (jnp.clip(layer, 0, rules.world.num_layers - 1), jnp.clip(pos[1], 0, rules.height - 1),
            jnp.clip(pos[0], 0, rules.width - 1))


def piece_at(rules: GridRules, g: GridState, pos, layer) -> jnp.ndarray:
    """int32[]: the piece at ``pos`` (int32[2]) on ``layer`` (int32[]), -1 if none or not a cell
    (``grid:queryPosition(layer, position)``)."""
    return jnp.where(cell_ok(rules, pos, layer), g.cells[cell_index(rules, pos, layer)], -1)


def direction_of(orient) -> jnp.ndarray:
    """int32[2] (dx, dy) of orientation ``orient`` (int32[], 0 N .. 3 W)."""
    return jnp.asarray([[0, -1], [1, 0], [0, 1], [-1, 0]], jnp.int32)[jnp.mod(orient, 4)]


def take_key(g: GridState):
    """(g with a fresh key, a key to draw from)."""
    key, sub = jax.random.split(g.key)
    return g.replace(key=key), sub
