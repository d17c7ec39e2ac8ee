"""On-device procedural mazes with rooms and doors (pure JAX; jit- and vmap-safe).

A maze lives on a grid of odd size H x W (the outer wall included). Cells at
odd (row, col) are *nodes*, the cells between two nodes are *connectors*, and
cells at even (row, col) are pillars (always wall outside rooms). Work is done
on the node grid, NR x NC = (H-1)/2 x (W-1)/2 nodes. The steps follow labmaze,
the generator DeepMind Lab's random mazes come from:

1. Rooms: up to ``room_count`` rectangles of odd side in cells, odd-aligned,
   with labmaze's law of sides (``_place_rooms``), placed by a fixed number of
   sequential tries (``lax.fori_loop``) so that no two share a node: at least
   one wall cell always separates two rooms.
2. Corridors: a random spanning forest of the nodes outside rooms, one tree per
   4-connected set of them, grown in parallel (``lax.while_loop``): every
   iteration each *head* (a node that joined on the previous iteration) pushes
   into one random out-of-tree neighbour, as in a depth-first maze, which gives
   long winding corridors; a few frontier nodes join on their own
   (``BRANCH_PROB``), starting new heads; when nothing joins, the best-scored
   frontier node does, or, the trees so far being whole, the best node left
   starts a new tree. At least one node joins per iteration: at most NR*NC.
3. Regions (each room, each corridor tree): one random connector is opened
   between every two neighbouring regions (room and corridor, room and room),
   so a room has an entrance toward each region around it and the maze has
   loops wherever regions meet around a cycle.
4. ``extra_connections`` random closed connectors outside rooms are opened
   (more loops), by top-k of random scores.
5. Dead ends (``remove_dead_ends``): corridor nodes with one open connector are
   walled up until none is left; a corridor tree that reaches only one room
   disappears.
6. Doors: every open connector next to a room becomes a door cell
   (CELL_DOOR_I at an odd row, crossed left-right; CELL_DOOR_H at an even
   row, crossed up-down) recorded in the ``door_*`` arrays.

Randomness: a few words are drawn with ``jax.random.bits(key)``; the many
per-node, per-iteration draws are a counter-based integer hash of those words
(threefry per node and iteration would cost more than the whole maze on a
CPU). Same key, same maze: jitted or not, at any batch size.
"""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
from flax import struct

from jaxlab.levels.dmlab.map_parser import CELL_DOOR_H, CELL_DOOR_I, CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.procedural.cells import DOWN, LEFT, OPPOSITE, RIGHT, UP, neighbour
from jaxlab.levels.dmlab.procedural.rng import hash_words, uniform_below

# Chance per iteration that a frontier node (out of the tree, next to it) joins on its
# own and starts a new corridor head. Low: long corridors, few branches.
BRANCH_PROB = 0.04
# Sequential room placement tries per wanted room: enough that the number of rooms placed follows
# labmaze's (which tries until 1000 placements have failed) to within 1.5 percentage points (a KS
# distance of 0.014 over 10,000 mazes of the explore levels' small class).
ROOM_TRIES_PER_ROOM = 32


@dataclasses.dataclass(frozen=True)
class MazeParams:
    """Static parameters of one maze size class (Python ints/bools; hashable).

    height, width: cells including the outer wall; odd, 5..255.
    room_count: the most rooms wanted (R; rooms that do not fit are invalid), >= 0.
    room_min_size, room_max_size: room side in cells (interior), odd, 3 <= min
      <= max <= min(height, width) - 2.
    extra_connections: closed connectors outside rooms opened after the
      regions are joined (each adds a loop), >= 0.
    room_doors: put a door cell on each room entrance.
    remove_dead_ends: wall up corridor dead ends (labmaze's ``simplify``, on in
      DeepMind Lab); a maze without rooms keeps them (it would be walled up whole).
    """

    height: int = 21
    width: int = 21
    room_count: int = 4
    room_min_size: int = 3
    room_max_size: int = 5
    extra_connections: int = 3
    room_doors: bool = True
    remove_dead_ends: bool = True

    def __post_init__(self):
        for name in ("height", "width", "room_count", "room_min_size", "room_max_size", "extra_connections"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"MazeParams.{name} must be an int, got {value!r}")
        for name in ("height", "width"):
            value = getattr(self, name)
            if value % 2 == 0 or not 5 <= value <= 255:
                raise ValueError(f"MazeParams.{name}={value} must be odd and in 5..255 (cells incl. the outer wall)")
        if self.room_count < 0:
            raise ValueError(f"MazeParams.room_count={self.room_count} must be >= 0")
        for name in ("room_min_size", "room_max_size"):
            value = getattr(self, name)
            if value % 2 == 0 or value < 3:
                raise ValueError(f"MazeParams.{name}={value} must be odd and >= 3 (room side in cells)")
        if self.room_min_size > self.room_max_size:
            raise ValueError(f"MazeParams.room_min_size={self.room_min_size} > room_max_size={self.room_max_size}")
        if self.room_max_size > min(self.height, self.width) - 2:
            raise ValueError(f"MazeParams.room_max_size={self.room_max_size} does not fit inside a "
                             f"{self.height}x{self.width} maze (at most {min(self.height, self.width) - 2})")
        if self.extra_connections < 0:
            raise ValueError(f"MazeParams.extra_connections={self.extra_connections} must be >= 0")
        for name in ("room_doors", "remove_dead_ends"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"MazeParams.{name} must be a bool, got {getattr(self, name)!r}")

    @property
    def node_rows(self) -> int:
        """Node rows NR = (height - 1) / 2."""
        return (self.height - 1) // 2

    @property
    def node_cols(self) -> int:
        """Node columns NC = (width - 1) / 2."""
        return (self.width - 1) // 2

    @property
    def max_doors(self) -> int:
        """Dmax, the length of the door arrays: with doors, the connectors around R rooms of the
        largest size, R * (2 * room_max_size + 2) (every door is one of them); 1 without doors."""
        return max(1, self.room_count * (2 * self.room_max_size + 2)) if self.room_doors else 1


@struct.dataclass
class Maze:
    """One generated maze (R = params.room_count, Dmax = params.max_doors).

    cells: int8[H, W] CELL_FLOOR / CELL_WALL / CELL_DOOR_I / CELL_DOOR_H.
    room_id: int32[H, W] room index 0..R-1 on room interior cells, else -1.
    room_box: int32[R, 4] (r0, c0, r1, c1) inclusive interior cells (0 where invalid).
    room_valid: bool[R] rooms that were placed.
    door_cell: int32[Dmax, 2] (row, col); door_room: int32[Dmax] the room the
      door enters (-1 when invalid); door_valid: bool[Dmax].
    """

    cells: jnp.ndarray
    room_id: jnp.ndarray
    room_box: jnp.ndarray
    room_valid: jnp.ndarray
    door_cell: jnp.ndarray
    door_room: jnp.ndarray
    door_valid: jnp.ndarray


def _place_rooms(seed, params: MazeParams):
    """Rooms on the node grid: (box int32[R, 4] (i0, j0, i1, j1) inclusive nodes, valid bool[R]).

    Sides as labmaze draws them, counted in steps s = (side - 1) / 2: both sides start uniform in
    ``[s_min, mid]`` (``mid = (s_min + s_max) // 2``) and one of them, chosen by a coin, grows by a
    draw uniform in ``[0, s_max - mid]``; so sizes 3..5 give 3x3, 3x5 and 5x3 rooms, never 5x5.
    Positions are uniform where the room fits.
    """
    r, nr, nc = params.room_count, params.node_rows, params.node_cols
    tries = ROOM_TRIES_PER_ROOM * r
    words = hash_words(seed, 1, jnp.arange(6 * tries, dtype=jnp.uint32)).reshape(6, tries)
    low, high = (params.room_min_size - 1) // 2, (params.room_max_size - 1) // 2
    mid = (low + high) // 2
    grow = uniform_below(words[2], high - mid + 1)
    tall = (words[3] >> 31) == 1
    size_i = 1 + low + uniform_below(words[0], mid - low + 1) + jnp.where(tall, grow, 0)
    size_j = 1 + low + uniform_below(words[1], mid - low + 1) + jnp.where(tall, 0, grow)
    i0 = uniform_below(words[4], nr - size_i + 1)
    j0 = uniform_below(words[5], nc - size_j + 1)
    candidates = jnp.stack([i0, j0, i0 + size_i - 1, j0 + size_j - 1], -1)   # [tries, 4]

    def body(t, carry):
        box, valid, count = carry
        c = candidates[t]
        overlap = (box[:, 0] <= c[2]) & (c[0] <= box[:, 2]) & (box[:, 1] <= c[3]) & (c[1] <= box[:, 3])
        accept = ~jnp.any(overlap & valid) & (count < r)
        slot = (jnp.arange(r) == count) & accept
        return jnp.where(slot[:, None], c, box), valid | slot, count + accept.astype(jnp.int32)

    init = (jnp.zeros((r, 4), jnp.int32), jnp.zeros((r,), bool), jnp.int32(0))
    box, valid, _ = jax.lax.fori_loop(0, tries, body, init)
    return box, valid


def _box_masks(box, valid, rows: int, cols: int, scale: int, offset: int):
    """bool[R, rows, cols]: the cells ``scale * box + offset`` of each valid room."""
    b = box * scale + offset
    i = jnp.arange(rows)[None, :, None]
    j = jnp.arange(cols)[None, None, :]
    return (valid[:, None, None] & (b[:, 0, None, None] <= i) & (i <= b[:, 2, None, None])
            & (b[:, 1, None, None] <= j) & (j <= b[:, 3, None, None]))


def _room_index(masks):
    """int32[...]: the room of each cell of bool[R, ...] masks, -1 outside rooms."""
    if masks.shape[0] == 0:
        return jnp.full(masks.shape[1:], -1, jnp.int32)
    return jnp.where(jnp.any(masks, 0), jnp.argmax(masks, 0), -1).astype(jnp.int32)


def _argmax_dir(mask4, score4):
    """int32[NR, NC]: the direction with the highest score among masked ones (0 if none)."""
    return jnp.argmax(jnp.where(mask4, score4, -1), 0).astype(jnp.int32)


def _corridor_forest(seed, in_room, params: MazeParams):
    """A random spanning forest of the corridor nodes (those outside rooms), one tree per
    4-connected set of them, grown as the module docstring says (step 2).

    in_room: bool[NR, NC]. Returns (down bool[NR, NC], right bool[NR, NC], tree int32[NR, NC]):
    the open connectors (``down[i, j]`` joins node (i, j) to (i + 1, j), ``right[i, j]`` joins it to
    (i, j + 1)) and each corridor node's tree, named by the index ``i * NC + j`` of the tree's first
    node (-1 on room nodes).
    """
    nr, nc = params.node_rows, params.node_cols
    n = nr * nc
    node = jnp.arange(n, dtype=jnp.uint32).reshape(nr, nc)
    corridor = ~in_room
    branch_level = int(BRANCH_PROB * 256)

    def cond(carry):
        it, in_tree = carry[0], carry[1]
        return (it < n) & jnp.any(corridor & ~in_tree)

    def body(carry):
        it, in_tree, heads, tree, down, right = carry
        counter = node + jnp.uint32(n) * it.astype(jnp.uint32)
        h1 = hash_words(seed, 3, counter)
        # unique per node and never 0: 16 random high bits, then node index + 1
        prio = ((hash_words(seed, 4, counter) >> 16) << 16) | (node + 1)
        score = jnp.stack([(h1 >> (6 * d)) & 63 for d in range(4)]).astype(jnp.int32)
        out = corridor & ~in_tree
        nb_out = jnp.stack([neighbour(out, d) for d in range(4)])
        nb_in = jnp.stack([neighbour(in_tree, d) for d in range(4)])
        # heads push into one out-of-tree neighbour each
        pushing = heads & jnp.any(nb_out, 0)
        push_dir = _argmax_dir(nb_out, score)
        push = [pushing & (push_dir == d) for d in range(4)]
        pushed_from = jnp.stack([neighbour(push[OPPOSITE[d]], d) for d in range(4)])   # [4, NR, NC]
        pushed = out & jnp.any(pushed_from, 0)
        frontier = out & jnp.any(nb_in, 0)
        branch = frontier & ((h1 >> 24).astype(jnp.int32) < branch_level)
        join = pushed | branch
        # nothing joined: the best frontier node joins, or, every tree being whole, the best
        # node left starts a new tree
        left = jnp.where(jnp.any(frontier), frontier, out)
        best = left & (prio == jnp.max(jnp.where(left, prio, 0)))
        join = join | (best & ~jnp.any(join))
        # each joining node links to one in-tree neighbour (a pusher when pushed) and joins its tree
        link_dir = _argmax_dir(jnp.where(pushed, pushed_from, nb_in), score)
        linked = join & jnp.any(nb_in, 0)
        sel = [linked & (link_dir == d) for d in range(4)]
        down = down | sel[DOWN] | neighbour(sel[UP], DOWN)
        right = right | sel[RIGHT] | neighbour(sel[LEFT], RIGHT)
        nb_tree = jnp.stack([neighbour(tree, d, -1) for d in range(4)])
        joined_tree = jnp.where(linked, jnp.take_along_axis(nb_tree, link_dir[None], 0)[0], node.astype(jnp.int32))
        return it + 1, in_tree | join, join, jnp.where(join, joined_tree, tree), down, right

    zeros = jnp.zeros((nr, nc), bool)
    init = (jnp.int32(0), zeros, zeros, jnp.full((nr, nc), -1, jnp.int32), zeros, zeros)
    carry = jax.lax.while_loop(cond, body, init)
    return carry[4], carry[5], carry[3]


def _connect_regions(seed, region, params: MazeParams):
    """One random connector opened between every two neighbouring regions: (down, right) bool[NR, NC].

    region: int32[NR, NC] each node's region (a room, or a tree of corridor nodes). Every closed
    connector between nodes of two regions is a candidate for their pair; the candidates are
    sorted by (pair, random score) and the last of each pair's run opens, so each pair gets one,
    drawn uniformly.
    """
    nr, nc = params.node_rows, params.node_cols
    none = jnp.int32(2 ** 31 - 1)
    here = jnp.stack([region, region])
    there = jnp.stack([neighbour(region, DOWN, -1), neighbour(region, RIGHT, -1)])
    candidate = (there >= 0) & (here != there)
    low = jnp.where(candidate, jnp.minimum(here, there), none).reshape(-1)
    high = jnp.where(candidate, jnp.maximum(here, there), none).reshape(-1)
    index = jnp.arange(2 * nr * nc, dtype=jnp.int32)
    score = (hash_words(seed, 6, index.astype(jnp.uint32)) >> 1).astype(jnp.int32)
    low, high, _, index = jax.lax.sort((low, high, score, index), num_keys=3)
    last = jnp.concatenate([(low[:-1] != low[1:]) | (high[:-1] != high[1:]), jnp.ones((1,), bool)])
    opened = jnp.zeros(low.shape, bool).at[index].set(last & (low != none)).reshape(2, nr, nc)
    return opened[0], opened[1]


def _prune_dead_ends(down, right, in_room, params: MazeParams):
    """Dead ends removed: corridor nodes with at most one open connector are walled up, again and
    again until none is left. Returns (down, right, alive bool[NR, NC]: the nodes kept)."""
    nr, nc = params.node_rows, params.node_cols

    def body(carry):
        down, right, alive, _ = carry
        degree = (down.astype(jnp.int32) + neighbour(down, UP).astype(jnp.int32) + right.astype(jnp.int32)
                  + neighbour(right, LEFT).astype(jnp.int32))
        dead = alive & ~in_room & (degree <= 1)
        keep = ~dead
        down = down & keep & neighbour(keep, DOWN, True)
        right = right & keep & neighbour(keep, RIGHT, True)
        return down, right, alive & keep, jnp.any(dead)

    init = (down, right, jnp.ones((nr, nc), bool), jnp.bool_(True))
    down, right, alive, _ = jax.lax.while_loop(lambda c: c[3], body, init)
    return down, right, alive


def _extra_connectors(seed, down, right, room, params: MazeParams):
    """Open ``extra_connections`` random closed connectors not inside one room: (down, right)."""
    k = params.extra_connections
    nr, nc = params.node_rows, params.node_cols
    if k == 0:
        return down, right
    same_down = (room >= 0) & (room == neighbour(room, DOWN, -1))
    same_right = (room >= 0) & (room == neighbour(room, RIGHT, -1))
    i = jnp.arange(nr)[:, None]
    j = jnp.arange(nc)[None, :]
    closed = jnp.stack([~down & ~same_down & (i < nr - 1), ~right & ~same_right & (j < nc - 1)]).reshape(-1)
    words = hash_words(seed, 5, jnp.arange(2 * nr * nc, dtype=jnp.uint32))
    scores = jnp.where(closed, (words >> 1).astype(jnp.int32), -1)
    k = min(k, scores.shape[0])
    values, index = jax.lax.top_k(scores, k)
    opened = jnp.zeros(scores.shape, bool).at[index].set(values >= 0).reshape(2, nr, nc)
    return down | opened[0], right | opened[1]


def _cells_open(down, right, alive, params: MazeParams):
    """bool[H, W] floor from the node grid: the ``alive`` nodes (bool[NR, NC]) and the open connectors."""
    nr, nc = params.node_rows, params.node_cols
    pillar = jnp.zeros((nr, nc), bool)
    vertical = neighbour(down, UP)      # cell (2i, 2j+1): between nodes (i-1, j) and (i, j)
    horizontal = neighbour(right, LEFT)  # cell (2i+1, 2j): between nodes (i, j-1) and (i, j)
    blocks = jnp.stack([jnp.stack([pillar, vertical], -1), jnp.stack([horizontal, alive], -1)], 1)  # [NR, 2, NC, 2]
    grid = blocks.reshape(2 * nr, 2 * nc)
    return jnp.pad(grid, ((0, 1), (0, 1)))


def _doors(cells, room_id, params: MazeParams):
    """Door cells on room entrances: (cells int8[H, W], door_cell, door_room, door_valid)."""
    dmax = params.max_doors
    h, w = cells.shape
    if not params.room_doors or params.room_count == 0:
        return cells, jnp.zeros((dmax, 2), jnp.int32), jnp.full((dmax,), -1, jnp.int32), jnp.zeros((dmax,), bool)
    next_room = room_id
    for d in range(4):
        next_room = jnp.maximum(next_room, neighbour(room_id, d, -1))
    entrance = (cells == CELL_FLOOR) & (room_id < 0) & (next_room >= 0)
    count = jnp.sum(entrance)
    rows, cols = jnp.nonzero(entrance, size=dmax, fill_value=0)
    valid = jnp.arange(dmax) < count
    rows = jnp.where(valid, rows, 0).astype(jnp.int32)
    cols = jnp.where(valid, cols, 0).astype(jnp.int32)
    code = jnp.where(rows % 2 == 1, CELL_DOOR_I, CELL_DOOR_H).astype(jnp.int8)
    cells = cells.at[jnp.where(valid, rows, h), cols].set(code, mode="drop")
    door_room = jnp.where(valid, next_room[rows, cols], -1)
    return cells, jnp.stack([rows, cols], -1), door_room, valid


def generate_maze(key: jax.Array, params: MazeParams) -> Maze:
    """A random maze with rooms (see the module docstring for the steps).

    key: a PRNG key (typed or raw uint32[2]); params: static MazeParams.
    Returns a Maze with cells int8[H, W] (H, W = params.height, width), room
    arrays of R = params.room_count rows and door arrays of Dmax =
    params.max_doors rows. Every floor and door cell is reachable from every
    other one; the outer border is wall; with ``remove_dead_ends`` (and rooms)
    no cell outside a room has fewer than two open neighbours. Pure: jit with ``params`` static
    (e.g. ``functools.partial``) and vmap over keys.
    """
    if not isinstance(params, MazeParams):
        raise TypeError(f"generate_maze: params must be a MazeParams, got {type(params).__name__}")
    h, w = params.height, params.width
    seed = jax.random.bits(key, (2,), jnp.uint32)
    node_box, valid = _place_rooms(seed, params)
    node_masks = _box_masks(node_box, valid, params.node_rows, params.node_cols, 1, 0)
    node_room = _room_index(node_masks)
    down, right, tree = _corridor_forest(seed, node_room >= 0, params)
    linked_down, linked_right = _connect_regions(seed, jnp.where(node_room >= 0, node_room, params.room_count + tree),
                                                 params)
    down, right = _extra_connectors(seed, down | linked_down, right | linked_right, node_room, params)
    alive = jnp.ones(node_room.shape, bool)
    if params.remove_dead_ends and params.room_count:
        down, right, alive = _prune_dead_ends(down, right, node_room >= 0, params)
    box = jnp.where(valid[:, None], node_box * 2 + 1, 0).astype(jnp.int32)
    room_id = _room_index(_box_masks(box, valid, h, w, 1, 0))
    open_ = _cells_open(down, right, alive, params) | (room_id >= 0)
    cells = jnp.where(open_, CELL_FLOOR, CELL_WALL).astype(jnp.int8)
    cells, door_cell, door_room, door_valid = _doors(cells, room_id, params)
    return Maze(cells=cells, room_id=room_id, room_box=box, room_valid=valid,
                door_cell=door_cell, door_room=door_room, door_valid=door_valid)
