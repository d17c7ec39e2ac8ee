"""On-device procedural mazes with rooms and doors (pure JAX; jit- and vmap-safe).

A maze lives on a grid of odd size H x W (the outer wall included). Cells at
odd (row, col) are *nodes*, the cells between two nodes are *connectors*, and
cells at even (row, col) are pillars (always wall outside rooms). Work is done
on the node grid, NR x NC = (H-1)/2 x (W-1)/2 nodes:

1. Rooms: up to ``room_count`` rectangles of odd side in cells, odd-aligned,
   placed by a fixed number of sequential tries (``lax.fori_loop``) so that
   no two share a node: at least one wall cell always separates two rooms.
2. A random spanning tree over all nodes in which each room is one vertex,
   grown in parallel (``lax.while_loop``): every iteration each *head* (a
   node that joined on the previous iteration) pushes into one random
   out-of-tree neighbour, as in a depth-first maze, which gives long winding
   corridors; a few frontier nodes join on their own (``BRANCH_PROB``),
   starting new heads, and when no head can move the best-scored frontier
   node joins, so the loop ends in at most NR*NC iterations. A room joins
   through exactly one of its nodes and then all its nodes are in the tree.
3. ``extra_connections`` random closed connectors outside rooms are opened
   (loops), by top-k of random scores.
4. Doors: every open connector next to a room becomes a door cell
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
# Sequential room placement tries per wanted room.
ROOM_TRIES_PER_ROOM = 6


@dataclasses.dataclass(frozen=True)
class MazeParams:
    """Static parameters of one maze size class (Python ints/bools; hashable).

    height, width: cells including the outer wall; odd, 5..255.
    room_count: the most rooms wanted (R; rooms that do not fit are invalid), >= 0.
    room_min_size, room_max_size: room side in cells (interior), odd, 3 <= min
      <= max <= min(height, width) - 2.
    extra_connections: closed corridor connectors opened after the spanning
      tree (each adds a loop), >= 0.
    room_doors: put a door cell on each room entrance.
    """

    height: int = 21
    width: int = 21
    room_count: int = 4
    room_min_size: int = 3
    room_max_size: int = 5
    extra_connections: int = 3
    room_doors: bool = True

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
        if not isinstance(self.room_doors, bool):
            raise ValueError(f"MazeParams.room_doors must be a bool, got {self.room_doors!r}")

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
        """Dmax, the length of the door arrays: 4 * room_count (at least 1)."""
        return max(1, 4 * self.room_count)


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
    """Rooms on the node grid: (box int32[R, 4] (i0, j0, i1, j1) inclusive nodes, valid bool[R])."""
    r, nr, nc = params.room_count, params.node_rows, params.node_cols
    tries = ROOM_TRIES_PER_ROOM * r
    words = hash_words(seed, 1, jnp.arange(4 * tries, dtype=jnp.uint32)).reshape(4, tries)
    min_nodes = (params.room_min_size + 1) // 2
    n_sizes = (params.room_max_size - params.room_min_size) // 2 + 1
    size_i = min_nodes + uniform_below(words[0], n_sizes)
    size_j = min_nodes + uniform_below(words[1], n_sizes)
    i0 = uniform_below(words[2], nr - size_i + 1)
    j0 = uniform_below(words[3], nc - size_j + 1)
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


def _spanning_tree(seed, room_masks, params: MazeParams):
    """Open connectors of a random spanning tree: (down bool[NR, NC], right bool[NR, NC]).

    ``down[i, j]`` joins node (i, j) to (i + 1, j); ``right[i, j]`` joins (i, j) to (i, j + 1).
    Connectors inside rooms are left out (rooms are opened whole later).
    """
    nr, nc = params.node_rows, params.node_cols
    n = nr * nc
    node = jnp.arange(n, dtype=jnp.uint32).reshape(nr, nc)
    room = _room_index(room_masks)
    in_room = room >= 0
    room_c = jnp.maximum(room, 0)
    branch_level = int(BRANCH_PROB * 256)
    nb_room = jnp.stack([neighbour(in_room, d) for d in range(4)])

    def priority(words):
        # unique per node and never 0: 16 random high bits, then node index + 1
        return ((words >> 16) << 16) | (node + 1)

    def with_room(mask):
        """mask | every node of a room that has a node in mask."""
        if room_masks.shape[0] == 0:
            return mask
        hit = jnp.any(room_masks & mask[None], axis=(1, 2))
        return mask | (in_room & hit[room_c])

    start_prio = priority(hash_words(seed, 2, node))
    start = start_prio == jnp.max(start_prio)
    in_tree0 = with_room(start)
    heads0 = start   # a room start pushes out of one node at first
    zeros = jnp.zeros((nr, nc), bool)

    def cond(carry):
        it, in_tree = carry[0], carry[1]
        return (it < n) & ~jnp.all(in_tree)

    def body(carry):
        it, in_tree, heads, down, right = carry
        counter = node + jnp.uint32(n) * it.astype(jnp.uint32)
        h1 = hash_words(seed, 3, counter)
        prio = priority(hash_words(seed, 4, counter))
        score = jnp.stack([(h1 >> (6 * d)) & 63 for d in range(4)]).astype(jnp.int32)
        out = ~in_tree
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
        best = frontier & (prio == jnp.max(jnp.where(frontier, prio, 0)))
        join = join | (best & ~jnp.any(join))
        # each joining node links to one in-tree neighbour: a pusher when pushed, else
        # preferably a corridor (rooms keep few entrances)
        link_score = jnp.where(nb_room, score, score + 64)
        link_dir = _argmax_dir(jnp.where(pushed, pushed_from, nb_in), link_score)
        new_in = with_room(in_tree | join)
        new_heads = join & ~in_room
        if room_masks.shape[0]:
            # a room joins through its best-priority joining node only, and its
            # best-priority node next to the outside becomes a head (one way out)
            room_best = jnp.max(jnp.where(room_masks & join[None], prio[None], 0), axis=(1, 2))
            link = join & (~in_room | (prio == room_best[room_c]))
            exits = in_room & (new_in & ~in_tree) & jnp.any(jnp.stack([neighbour(~new_in, d) for d in range(4)]), 0)
            exit_best = jnp.max(jnp.where(room_masks & exits[None], prio[None], 0), axis=(1, 2))
            new_heads = new_heads | (exits & (prio == exit_best[room_c]))
        else:
            link = join
        sel = [link & (link_dir == d) for d in range(4)]
        down = down | sel[DOWN] | neighbour(sel[UP], DOWN)
        right = right | sel[RIGHT] | neighbour(sel[LEFT], RIGHT)
        return it + 1, new_in, new_heads, down, right

    carry = jax.lax.while_loop(cond, body, (jnp.int32(0), in_tree0, heads0, zeros, zeros))
    return carry[3], carry[4]


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


def _cells_open(down, right, params: MazeParams):
    """bool[H, W] floor from the node grid: every node plus the open connectors."""
    nr, nc = params.node_rows, params.node_cols
    pillar = jnp.zeros((nr, nc), bool)
    vertical = neighbour(down, UP)      # cell (2i, 2j+1): between nodes (i-1, j) and (i, j)
    horizontal = neighbour(right, LEFT)  # cell (2i+1, 2j): between nodes (i, j-1) and (i, j)
    node = jnp.ones((nr, nc), bool)
    blocks = jnp.stack([jnp.stack([pillar, vertical], -1), jnp.stack([horizontal, node], -1)], 1)  # [NR, 2, NC, 2]
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
    other one; the outer border is wall. Pure: jit with ``params`` static
    (e.g. ``functools.partial``) and vmap over keys.
    """
    if not isinstance(params, MazeParams):
        raise TypeError(f"generate_maze: params must be a MazeParams, got {type(params).__name__}")
    h, w = params.height, params.width
    seed = jax.random.bits(key, (2,), jnp.uint32)
    node_box, valid = _place_rooms(seed, params)
    node_masks = _box_masks(node_box, valid, params.node_rows, params.node_cols, 1, 0)
    down, right = _spanning_tree(seed, node_masks, params)
    down, right = _extra_connectors(seed, down, right, _room_index(node_masks), params)
    box = jnp.where(valid[:, None], node_box * 2 + 1, 0).astype(jnp.int32)
    room_id = _room_index(_box_masks(box, valid, h, w, 1, 0))
    open_ = _cells_open(down, right, params) | (room_id >= 0)
    cells = jnp.where(open_, CELL_FLOOR, CELL_WALL).astype(jnp.int8)
    cells, door_cell, door_room, door_valid = _doors(cells, room_id, params)
    return Maze(cells=cells, room_id=room_id, room_box=box, room_valid=valid,
                door_cell=door_cell, door_room=door_room, door_valid=door_valid)
