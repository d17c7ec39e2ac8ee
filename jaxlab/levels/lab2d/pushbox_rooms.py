"""On-device Sokoban rooms for the built-in ``pushbox`` level.

A room is generated the way Lab2D's pushbox builds its rooms: by playing
*backwards* from a solved state, so every room is solvable by construction.

1. Carve: a random walk of ``room_steps`` steps inside the outer wall digs an
   irregular, connected room (each step digs the walker's cell and, at random,
   a neighbour, a neighbour pair or a 2×2 block around it).
2. Solve: a cell ``g`` with two floor cells beyond it in a line (``g+d``,
   ``g+2d``) gets the first goal, and the player starts on ``g+d``; the other
   goals go on distinct random floor cells. Every goal holds a box.
3. Unsolve: the player pulls the first box from ``g`` to ``g+d`` (so at least
   one box is always off its goal) and then plays ``reverse_steps - 1``
   random reverse moves — walk a step, or step away from an adjacent box and
   pull it along — with pulls favoured so boxes really travel.
4. Keep the most scrambled state seen along the way (boxes off goals first,
   then how far the boxes travelled) with the player on plain floor; its
   reverse moves, undone in reverse order, are the forward solution.
5. ``num_candidates`` rooms are generated side by side (``vmap``) and the
   best-scoring one is returned.

All randomness is integer-valued (random bits, integer weights), so a key
gives the same room jitted or not, alone or inside any ``vmap`` batch.

Map characters (ASCII codes in the returned ``uint8[H, W]``): ``'*'`` wall,
``' '`` floor, ``'B'`` box off a goal, ``'X'`` empty goal, ``'&'`` box on a
goal, ``'P'`` the player's start (always plain floor). Moves: 0 none, 1 N,
2 E, 3 S, 4 W (``jaxlab.levels.lab2d.spec.COMPASS``); row 0 is north.
"""
from __future__ import annotations

import functools
from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.levels.lab2d.spec import DIRECTIONS

WALL, FLOOR, BOX, GOAL, BOX_ON_GOAL, PLAYER = (ord(c) for c in "* BX&P")

_DIRS = jnp.asarray(DIRECTIONS, jnp.int32)  # (4, 2): N, E, S, W

# Carving shapes: which of the cells (0,0), (0,sc), (sr,0), (sr,sc) a walk step
# digs, with sr, sc random signs; row k is picked with weight _SHAPE_WEIGHT[k].
_SHAPES = ((1, 0, 0, 0), (1, 1, 0, 0), (1, 0, 1, 0), (1, 1, 1, 1))
_SHAPE_WEIGHT = (1, 2, 2, 4)
_TURN_PERCENT = 30  # chance (in %) that the walker picks a new heading
_PULL_WEIGHT = 3  # a possible pull is this many times likelier than a walk
_SEEK_WEIGHT = 4  # a walk towards a box to pull is this many times likelier
_OFF_GOAL_WEIGHT = 8  # score per box off every goal (plus travel distance)


def check_sizes(height: int, width: int, num_boxes: int, room_steps: int,
                reverse_steps: int = 1, num_candidates: int = 1) -> None:
    """Raise ValueError unless the static sizes can hold a room."""
    if num_boxes < 1 or room_steps < 0 or reverse_steps < 1 or num_candidates < 1:
        raise ValueError(
            "pushbox rooms need num_boxes >= 1, room_steps >= 0, "
            f"reverse_steps >= 1, num_candidates >= 1; got {num_boxes}, "
            f"{room_steps}, {reverse_steps}, {num_candidates}")
    inner_h, inner_w = height - 2, width - 2
    if min(inner_h, inner_w) < 1 or max(inner_h, inner_w) < 3 or (
            inner_h * inner_w < num_boxes + 2):
        raise ValueError(
            f"a {height}x{width} room cannot hold {num_boxes} boxes, the "
            "player and a straight run of three cells")


def _shift(a: jax.Array, dr: int, dc: int) -> jax.Array:
    """b[r, c] = a[r + dr, c + dc] for bool[H, W] ``a`` (False outside);
    dr, dc static ints."""
    h, w = a.shape
    p = max(abs(dr), abs(dc))
    padded = jnp.pad(a, p)
    return padded[p + dr:p + dr + h, p + dc:p + dc + w]


def _look(grid: jax.Array, cells: jax.Array) -> jax.Array:
    """grid[cells] for int32[..., 2] (row, col) ``cells``; cells outside the
    grid read the nearest border cell (a wall)."""
    h, w = grid.shape
    rows = jnp.minimum(jnp.maximum(cells[..., 0], 0), h - 1)
    cols = jnp.minimum(jnp.maximum(cells[..., 1], 0), w - 1)
    return grid[rows, cols]


def _mask(shape: Tuple[int, int], cells: jax.Array, valid=True) -> jax.Array:
    """bool[H, W] (``shape``), True exactly at the int32[..., 2] ``cells``
    whose bool[...] ``valid`` is True (elementwise compares, no scatter:
    cheap to compile)."""
    valid = jnp.broadcast_to(valid, cells.shape[:-1]).reshape(-1)
    cells = cells.reshape(-1, 2)
    rows = jnp.arange(shape[0], dtype=jnp.int32)[:, None, None]
    cols = jnp.arange(shape[1], dtype=jnp.int32)[None, :, None]
    return jnp.any((rows == cells[:, 0]) & (cols == cells[:, 1]) & valid, axis=-1)


def _pick_weighted(bits: jax.Array, weights: jax.Array) -> Tuple[jax.Array, jax.Array]:
    """Pick an index of int32[n] ``weights`` (>= 0) using uint32 random
    ``bits`` (exact integer arithmetic). Returns (int32 index, bool: some
    weight > 0); index 0 when all weights are zero."""
    cum = jnp.cumsum(weights).astype(jnp.uint32)
    r = bits % jnp.maximum(cum[-1], jnp.uint32(1))
    return jnp.argmax(cum > r).astype(jnp.int32), cum[-1] > 0


def _random_cells(bits: jax.Array, mask: jax.Array, n: int) -> jax.Array:
    """n distinct random cells where bool[H, W] ``mask`` is True (mask must
    hold at least n), drawn with uint32[H * W] random ``bits``. Returns
    int32[n, 2] (row, col)."""
    h, w = mask.shape
    prio = (bits >> 1).astype(jnp.int32)  # >= 0
    prio = jnp.where(mask.reshape(-1), prio, -1)
    _, idx = jax.lax.top_k(prio, n)
    return jnp.stack([idx // w, idx % w], axis=-1).astype(jnp.int32)


def _carve(bits: jax.Array, height: int, width: int, room_steps: int) -> jax.Array:
    """Dig a connected room by a random walk inside the outer wall, driven by
    uint32[room_steps + 1, 5] random ``bits``. Returns bool[height, width]
    floor (False on the border)."""
    lo = jnp.array([1, 1], jnp.int32)
    hi = jnp.array([height - 2, width - 2], jnp.int32)

    # Row 0 of ``bits`` places the walker; row t >= 1 steps it. Columns:
    # (turn or start row, heading, shape, signs, start column).
    start = jnp.stack([bits[0, 0], bits[0, 4]])
    pos = lo + (start % (hi - lo + 1).astype(jnp.uint32)).astype(jnp.int32)
    heading = (bits[0, 1] % 4).astype(jnp.int32)

    def step(carry, b):
        pos, heading = carry
        turn = b[0] % 100 < _TURN_PERCENT
        heading = jnp.where(turn, (b[1] % 4).astype(jnp.int32), heading)
        # At the wall the walker turns back instead of stalling.
        inside = jnp.all((pos + _DIRS[heading] >= lo) & (pos + _DIRS[heading] <= hi))
        heading = jnp.where(inside, heading, (heading + 2) % 4)
        pos = jnp.minimum(jnp.maximum(pos + _DIRS[heading], lo), hi)
        return (pos, heading), pos

    _, path = jax.lax.scan(step, (pos, heading), bits[1:])
    path = jnp.concatenate([pos[None], path])  # (T + 1, 2)

    # Every position digs its cell plus, by its shape, the cells (0, sc),
    # (sr, 0), (sr, sc) next to it (random signs sr, sc); each dug cell
    # touches the walker's cell directly or through another dug one, so
    # the room stays connected (cells in the outer wall are skipped).
    shape = jax.vmap(_pick_weighted, (0, None))(
        bits[:, 2], jnp.asarray(_SHAPE_WEIGHT, jnp.int32))[0]
    dig = jnp.asarray(_SHAPES, bool)[shape]  # (T + 1, 4)
    sr = 2 * (bits[:, 3] & 1).astype(jnp.int32) - 1
    sc = 2 * ((bits[:, 3] >> 1) & 1).astype(jnp.int32) - 1
    zero = jnp.zeros_like(sr)
    offsets = jnp.stack([jnp.stack([zero, zero], -1), jnp.stack([zero, sc], -1),
                         jnp.stack([sr, zero], -1), jnp.stack([sr, sc], -1)], 1)
    cells = path[:, None] + offsets  # (T + 1, 4, 2)
    dig = dig & jnp.all((cells >= lo) & (cells <= hi), axis=-1)
    return _mask((height, width), cells, dig)


def _runs_of_three(floor: jax.Array) -> jax.Array:
    """bool[4, H, W]: [d, r, c] is True when (r, c) and the two cells beyond it
    in direction d are floor."""
    return jnp.stack([floor & _shift(floor, dr, dc) & _shift(floor, 2 * dr, 2 * dc)
                      for dr, dc in DIRECTIONS])


def _bits_needed(height: int, width: int, room_steps: int, reverse_steps: int
                 ) -> Tuple[int, int, int, int]:
    """Static sizes of the random-bit segments one candidate consumes:
    (carving, first goal, other goals, reverse play)."""
    return (5 * (room_steps + 1), 4 * height * width, height * width,
            reverse_steps - 1)


def _one_candidate(bits: jax.Array, height: int, width: int, num_boxes: int,
                   room_steps: int, reverse_steps: int):
    """One room by reverse play. Returns (uint8[H, W] map, int32[reverse_steps]
    forward solution, int32 score)."""
    sizes = _bits_needed(height, width, room_steps, reverse_steps)
    ends = [sum(sizes[:j + 1]) for j in range(4)]
    b_carve, b_first, b_goals, b_play = (bits[e - n:e] for e, n in zip(ends, sizes))
    floor = _carve(b_carve.reshape(room_steps + 1, 5), height, width, room_steps)

    # Degenerate walks (too few cells, no straight run of three) fall back to
    # the whole interior, which check_sizes guarantees is big enough.
    interior = np.zeros((height, width), bool)
    interior[1:-1, 1:-1] = True
    interior = jnp.asarray(interior)
    runs = _runs_of_three(floor)
    ok = (jnp.sum(floor) >= num_boxes + 2) & jnp.any(runs)
    floor = jnp.where(ok, floor, interior)
    runs = jnp.where(ok, runs, _runs_of_three(interior))

    # First goal g and direction d with g+d, g+2d floor: the player starts on
    # g+d, and the forced first pull brings the box to g+d, the player to g+2d.
    flat = _random_cells(b_first, runs.reshape(4 * height, width), 1)[0]
    d0, g0 = flat[0] // height, jnp.stack([flat[0] % height, flat[1]])
    step0 = _DIRS[d0]
    reserved = _mask((height, width), g0 + jnp.arange(3)[:, None] * step0)
    others = _random_cells(b_goals, floor & ~reserved, num_boxes - 1)
    goals = jnp.concatenate([g0[None], others], axis=0)  # (N, 2)
    boxes = jnp.concatenate([(g0 + step0)[None], others], axis=0)
    player = g0 + 2 * step0

    goal_grid = _mask((height, width), goals)

    def score_of(player, boxes):
        off = num_boxes - jnp.sum(_look(goal_grid, boxes))
        travel = jnp.sum(jnp.abs(boxes - goals))
        valid = (off > 0) & ~_look(goal_grid, player)
        return jnp.where(valid, _OFF_GOAL_WEIGHT * off + travel, -1).astype(jnp.int32)

    def reverse_move(carry, bits):
        player, boxes, box_grid, best_score, best_t, best_player, best_boxes, t = carry
        free_grid = floor & ~box_grid
        ahead = player[None] + _DIRS  # (4, 2)
        behind = player[None] - _DIRS
        free = _look(free_grid, ahead)
        can_pull = free & _look(box_grid, behind)
        # Seek: walks towards the nearest spot from which a box still on a
        # goal (else any box) can be pulled are likelier.
        spots = boxes[:, None] + _DIRS[None]  # (N, 4, 2): player stands here
        usable = ((_look(free_grid, spots) | jnp.all(spots == player, -1))
                  & _look(free_grid, spots + _DIRS[None]))
        on_goal = _look(goal_grid, boxes)
        wanted = jnp.where(jnp.any(on_goal), on_goal, True)
        usable = usable & wanted[:, None]

        def dist(p):
            d = jnp.sum(jnp.abs(spots - p), axis=-1)
            return jnp.min(jnp.where(usable, d, height + width))

        closer = jax.vmap(dist)(ahead) < dist(player)
        # Pulling a box off a goal is likelier still.
        pull_w = jnp.where(_look(goal_grid, behind), 2 * _PULL_WEIGHT, _PULL_WEIGHT)
        weights = jnp.concatenate([
            free.astype(jnp.int32) * jnp.where(closer, _SEEK_WEIGHT, 1),
            can_pull.astype(jnp.int32) * pull_w]).astype(jnp.int32)
        choice, moved = _pick_weighted(bits, weights)
        d, pull = choice % 4, (choice >= 4) & moved
        hit = jnp.all(boxes == behind[d], axis=-1) & pull
        boxes = jnp.where(hit[:, None], player[None], boxes)
        box_grid = jnp.where(_mask(box_grid.shape, behind[d]), box_grid & ~pull,
                             box_grid | (_mask(box_grid.shape, player) & pull))
        player = jnp.where(moved, ahead[d], player)
        move = jnp.where(moved, (d + 2) % 4 + 1, 0).astype(jnp.int32)
        score = score_of(player, boxes)
        better = score > best_score
        carry = (player, boxes, box_grid, jnp.where(better, score, best_score),
                 jnp.where(better, t, best_t), jnp.where(better, player, best_player),
                 jnp.where(better, boxes, best_boxes), t + 1)
        return carry, move

    box_grid = _mask((height, width), boxes)
    carry = (player, boxes, box_grid, score_of(player, boxes), jnp.int32(0),
             player, boxes, jnp.int32(1))
    carry, moves = jax.lax.scan(reverse_move, carry, b_play)
    _, _, _, best_score, best_t, player, boxes, _ = carry

    # Reverse moves 0..best_t, undone last-first, solve the room.
    rev = jnp.concatenate([((d0 + 2) % 4 + 1)[None].astype(jnp.int32), moves])
    rev = jnp.where(jnp.arange(reverse_steps) <= best_t, rev, 0)
    fwd = rev[::-1]
    fwd = fwd[jnp.argsort((fwd == 0).astype(jnp.int32), stable=True)]

    grid = jnp.where(floor, FLOOR, WALL).astype(jnp.uint8)
    box_grid = _mask((height, width), boxes)
    grid = jnp.where(goal_grid, jnp.uint8(GOAL), grid)
    grid = jnp.where(box_grid, jnp.uint8(BOX), grid)
    grid = jnp.where(goal_grid & box_grid, jnp.uint8(BOX_ON_GOAL), grid)
    grid = jnp.where(_mask(grid.shape, player), jnp.uint8(PLAYER), grid)
    return grid, fwd, jnp.where(ok, best_score, -1)


def generate_room_and_solution(key: jax.Array, height: int = 10, width: int = 10,
                               num_boxes: int = 4, room_steps: int = 30, *,
                               reverse_steps: int = 160,
                               num_candidates: int = 8
                               ) -> Tuple[jax.Array, jax.Array]:
    """A random solvable pushbox room and a solution for it.

    Args:
      key: a jax PRNG key (shape () typed key or uint32[2]).
      height, width: static ints, the grid size including the outer wall.
      num_boxes: static int, boxes (and goals) in the room.
      room_steps: static int, steps of the random walk that digs the room.
      reverse_steps: static int, reverse moves played from the solved state
        (also the solution's length).
      num_candidates: static int, rooms generated side by side; the most
        scrambled one is returned.

    Returns:
      (room, solution): room uint8[height, width] of ASCII map characters
      ('*' wall, ' ' floor, 'B' box, 'X' empty goal, '&' box on a goal, 'P'
      the player's start on plain floor; the border is all wall, the floor
      is 4-connected, at least one box is off its goal); solution
      int32[reverse_steps] of forward moves (0 none, 1 N, 2 E, 3 S, 4 W),
      the real moves first, then zeros, which played from the start puts
      every box on a goal.
    """
    check_sizes(height, width, num_boxes, room_steps, reverse_steps, num_candidates)
    return _generate(key, height, width, num_boxes, room_steps, reverse_steps,
                     num_candidates)


@functools.partial(jax.jit, static_argnums=(1, 2, 3, 4, 5, 6))
def _generate(key, height, width, num_boxes, room_steps, reverse_steps,
              num_candidates):
    """Jitted body of ``generate_room_and_solution`` (compiled once per
    static size, so calling it outside ``jit`` stays fast)."""
    # One draw of random bits for everything (cheap to compile), consumed by
    # integer arithmetic only.
    n = sum(_bits_needed(height, width, room_steps, reverse_steps))
    bits = jax.random.bits(key, (num_candidates, n), jnp.uint32)
    grids, sols, scores = jax.vmap(
        lambda b: _one_candidate(b, height, width, num_boxes, room_steps,
                                 reverse_steps))(bits)
    best = jnp.argmax(scores)
    return grids[best], sols[best]


def generate_room(key: jax.Array, height: int = 10, width: int = 10,
                  num_boxes: int = 4, room_steps: int = 30, *,
                  reverse_steps: int = 160, num_candidates: int = 8) -> jax.Array:
    """A random solvable pushbox room: uint8[height, width] of ASCII map
    characters ('*' wall, ' ' floor, 'B' box, 'X' empty goal, '&' box on a
    goal, 'P' player start). ``key`` is a jax PRNG key; the other arguments
    are static ints, as in ``generate_room_and_solution``. Usable as
    ``GridSpec.generator`` via ``functools.partial``."""
    return generate_room_and_solution(
        key, height, width, num_boxes, room_steps, reverse_steps=reverse_steps,
        num_candidates=num_candidates)[0]


def room_to_text(room) -> str:
    """The rows of a uint8[H, W] room (numpy or jax) as one newline-joined
    string, for printing and debugging."""
    return "\n".join(bytes(row).decode("ascii") for row in np.asarray(room, np.uint8))
