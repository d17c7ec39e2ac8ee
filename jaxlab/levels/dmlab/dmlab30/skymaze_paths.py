"""The skymaze platform layout (DMLab's platforms generator) as one pure, jittable JAX function.

DeepMind Lab's skymaze levels are platforms at different heights on an
empty sky: the player starts on the highest one and must walk down to the
goal; a platform one level higher than the one underfoot cannot be climbed.
The layout comes from a small generator (platforms_v1), reproduced here:

1. Difficulty d in [0, 1] gives the path grid side L = w(4, 10, d), the
   number of paths numPaths = w(1, 8, d) and maxExtraSteps =
   floor(L * (0.3 + d)) (1 becomes 2), with w(a, b, d) = a + floor(d * (b - a)
   + 0.5). d = 0.9 gives L = 9, 7 paths, 10 extra steps.
2. On the L x L grid (all cells open) the player cell is in the first third
   of the rows, the goal cell in the last third, both in columns 2..L-1
   (1-indexed), redrawn together until their L1 distance D is L-3 or L-2.
3. Each path is the stack of a randomised depth-first search from player to
   goal (at each step a uniformly random unvisited 4-neighbour, pop when there
   is none, stop when a neighbour is the goal). A path is kept if it has at
   most maxExtraSteps extra steps (cells - 1 - D) and a cell no earlier path
   used; otherwise another search is drawn. DMLab stops adding paths after
   1000 failed searches for one path.
4. The ascii map is (2L+1) x (2L+1): path cell (r, c) (0-indexed) sits at
   (2r+1, 2c+1), and the connector of two consecutive path cells between them.
5. Heights h (integers, larger is higher): the start is 26; the first (main)
   path's cells and connectors, in order, start from 21 and at each cell
   drop by 1 or 2 with probability 0.3, never below 8; the goal takes the
   main path's last height. Each later path keeps the heights already set;
   each stretch of new cells between set cells p-1 and q descends from
   min(h[p-1], 21) to min(h[p-1], h[q]) - 1, its total drop shared evenly
   over its cells with the remainder on random ones. So every path descends
   and a stretch ends at least one level below the cell it rejoins: a player
   who cannot climb (one level is 20 units, the step 18) and walks into it
   cannot get back, and every layout with two or more paths has such a
   wrong move. A stretch that rejoins a cell at the floor of 8 goes to 7,
   a later one rejoining that to 6, and so on: h >= 8 - 7 = 1.
6. The factory's platform height is H = 14 + h: the start 40, the main path
   in [22, 35], later paths in [15, 35]; a platform's surface is at 20 * H units.

Differences from DMLab, because shapes are fixed on the device:
- endpoints: ENDPOINT_TRIES candidate pairs are drawn and the first
  acceptable one is taken (a pair is acceptable with chance >= 1/4, so all
  fail with chance (3/4)^64, about 1e-8; then a fixed acceptable pair is used);
- searches: one pool of WALK_POOL searches per episode (DMLab's searches
  are independent draws too) is consumed in order, each path taking the
  next acceptable one; paths stop when the pool runs out, where DMLab allows
  1000 failures per path. Measured over 10,000 layouts: fewer paths than
  numPaths in 0.08% at d = 0.9 and 0.18% at d ~ U[0, 1) (DMLab: practically
  never); no path at all (then only the start platform) has chance < 1e-15;
- a search still running after WALK_STEPS pushes and pops is not acceptable.
  DMLab waits for it: about 1% of the searches DMLab keeps at d near 1 take
  longer (none at d <= 0.5).
Randomness: two seed words from ``jax.random.bits(key)``; every other draw
is a counter-based hash of them (``procedural.rng``). Same key, same
layout: jitted or not, at any batch size.
"""
from __future__ import annotations

import math
from typing import Callable, Tuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxlab.levels.dmlab.procedural.rng import hash_words, uniform_below

MIN_LEVEL_SIZE = 4
MAX_LEVEL_SIZE = 10
MIN_PATHS = 1
MAX_PATHS = 8
ASCII = 2 * MAX_LEVEL_SIZE + 1            # 21: the static (padded) side of the ascii map
MAX_HEIGHT = 26                           # the start platform, generator units
MIN_HEIGHT = 8                            # the main path's floor
START_HEIGHT_OFFSET = 5                   # the first platform after the start is this much lower
HEIGHT_DECREASE_PROBABILITY = 0.3
MAX_HEIGHT_DECREASE = 2
FACTORY_HEIGHT_OFFSET = 14                # factory height H = 14 + h
EXTRA_STEPS_BASE = 0.3                    # maxExtraSteps = floor(L * (0.3 + d))

ENDPOINT_TRIES = 64                       # candidate (player, goal) pairs per episode
WALK_POOL = 240                           # depth-first searches per episode, shared by all paths
WALK_STEPS = 40                           # pushes + pops a search may take
#: the most cells a kept path can have: D <= L-2 and maxExtraSteps <= floor(L * 1.3)
MAX_PATH_CELLS = (MAX_LEVEL_SIZE - 2) + math.floor(MAX_LEVEL_SIZE * (1.0 + EXTRA_STEPS_BASE)) + 1
MAX_PATH_ASCII = 2 * MAX_PATH_CELLS - 1   # cells and connectors of one kept path
#: loop trips per iteration of the generator's loops off the CPU (a GPU pays for each iteration apart)
_UNROLL = 8

_CELLS = MAX_LEVEL_SIZE * MAX_LEVEL_SIZE  # path cells, index r * MAX_LEVEL_SIZE + c
_VISIT_WORDS = -(-_CELLS // 32)           # one bit per path cell
_PARENT_WORDS = -(-_CELLS // 16)          # two bits per path cell: the direction it was entered by
_DR = np.array([-1, 1, 0, 0], np.int32)   # up, down, left, right
_DC = np.array([0, 0, -1, 1], np.int32)
_STREAM_ENDPOINTS, _STREAM_WALK, _STREAM_MAIN, _STREAM_STRETCH = 1, 2, 3, 4



def _fori_loop(lower: int, upper: int, body, init):
    """``jax.lax.fori_loop(lower, upper, body, init)``; off the CPU ``_UNROLL`` trips to an iteration
    (the same values: on a GPU each iteration costs kernel launches and a check of the condition; on
    the CPU unrolled walks run 1.5x slower)."""
    return jax.lax.platform_dependent(
        init, cpu=lambda carry: jax.lax.fori_loop(lower, upper, body, carry),
        default=lambda carry: jax.lax.fori_loop(lower, upper, body, carry, unroll=_UNROLL))

def _float32_threshold(pred: Callable[[float], bool]) -> float:
    """The smallest float32 d in [0, 1] with pred(d) (pred monotone, evaluated in double), else inf."""
    lo, hi = 0, int(np.float32(1.0).view(np.int32))      # non-negative float32s sort like their bits

    def as_float(bits):
        return float(np.int32(bits).view(np.float32))

    if not pred(as_float(hi)):
        return math.inf
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if pred(as_float(mid)) else (mid + 1, hi)
    return as_float(lo)


def _weighted(lo: int, hi: int, d: float) -> int:
    """DMLab's w(lo, hi, d) = lo + floor(d * (hi - lo) + 0.5), in double."""
    return lo + math.floor(d * (hi - lo) + 0.5)


# float32 thresholds of d at which each parameter reaches each value, found on the host, so that a
# float32 d gives exactly the integers DMLab's double arithmetic gives for that d
_SIZE_AT = np.array([_float32_threshold(lambda d, k=k: _weighted(MIN_LEVEL_SIZE, MAX_LEVEL_SIZE, d) >= k)
                     for k in range(MIN_LEVEL_SIZE + 1, MAX_LEVEL_SIZE + 1)], np.float32)
_PATHS_AT = np.array([_float32_threshold(lambda d, k=k: _weighted(MIN_PATHS, MAX_PATHS, d) >= k)
                      for k in range(MIN_PATHS + 1, MAX_PATHS + 1)], np.float32)
_EXTRA_AT = np.array([[_float32_threshold(lambda d, k=k, n=n: math.floor(n * (EXTRA_STEPS_BASE + d)) >= k)
                       for k in range(1, MAX_PATH_CELLS)] for n in range(MIN_LEVEL_SIZE, MAX_LEVEL_SIZE + 1)],
                      np.float32)


@struct.dataclass
class SkymazeLayout:
    """One skymaze platform layout on the padded ascii grid (rows top to bottom, 0-indexed).

    level_h: int32[ASCII, ASCII] factory platform height H = 14 + h per ascii
      cell, 0 where there is no platform (the '.' cells); the start is 40.
    size: int32[] the real ascii side 2L+1; cells at row or col >= size are empty.
    player: int32[2] the start cell (row, col); goal: int32[2] the goal cell (row, col).
    num_paths: int32[] the paths built (1 <= num_paths <= numPaths).
    """

    level_h: jnp.ndarray
    size: jnp.ndarray
    player: jnp.ndarray
    goal: jnp.ndarray
    num_paths: jnp.ndarray


def difficulty_parameters(difficulty) -> Tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """DMLab's parameters for difficulty d (f32[], clipped to [0, 1]).

    Returns (level_size L int32[] in [4, 10], num_paths int32[] in [1, 8],
    max_extra_steps int32[] >= 2), as DMLab's double arithmetic gives them.
    """
    d = jnp.clip(jnp.asarray(difficulty, jnp.float32), 0.0, 1.0)
    size = MIN_LEVEL_SIZE + jnp.sum(d >= _SIZE_AT).astype(jnp.int32)
    paths = MIN_PATHS + jnp.sum(d >= _PATHS_AT).astype(jnp.int32)
    extra = jnp.sum(d >= jnp.asarray(_EXTRA_AT)[size - MIN_LEVEL_SIZE]).astype(jnp.int32)
    return size, paths, jnp.where(extra == 1, 2, extra)


def _endpoints(seed, size):
    """Player and goal path cells (0-indexed (row, col) int32[2] each) and whether a drawn pair was taken.

    size: int32[] L. Rows: floor(u * L / 3) and floor((2 + u) * L / 3) with u
    uniform in [0, 1) (24-bit); columns uniform in [1, L-2]; the first of
    ENDPOINT_TRIES pairs at L1 distance L-3 or L-2, else a fixed such pair.
    """
    words = hash_words(seed, _STREAM_ENDPOINTS, jnp.arange(4 * ENDPOINT_TRIES, dtype=jnp.uint32))
    words = words.reshape(4, ENDPOINT_TRIES)
    u = (words[:2] >> 8).astype(jnp.int32)                                # [2, K] in [0, 2^24)
    player_row = (u[0] * size) // (3 << 24)
    goal_row = ((u[1] + (2 << 24)) * size) // (3 << 24)
    player_col = 1 + uniform_below(words[2], size - 2)
    goal_col = 1 + uniform_below(words[3], size - 2)
    dist = jnp.abs(goal_row - player_row) + jnp.abs(goal_col - player_col)
    ok = (dist >= size - 3) & (dist <= size - 2)
    first = jnp.argmax(ok)
    # the fallback: the top row and the first goal row, columns apart by what the distance needs
    fall_goal_row = (2 * size) // 3
    fall = jnp.stack([0, 1, fall_goal_row, 1 + jnp.maximum(0, size - 3 - fall_goal_row)])
    drawn = jnp.stack([player_row[first], player_col[first], goal_row[first], goal_col[first]])
    cells = jnp.where(jnp.any(ok), drawn, fall)
    return cells[:2], cells[2:], jnp.any(ok)


def _bits(words, index, width: int):
    """The ``width``-bit fields of packed uint32 ``words`` [W] at int32 ``index`` (any shape)."""
    per = 32 // width
    word = jnp.sum(jnp.where(jnp.arange(words.shape[0]) == (index // per)[..., None], words, 0), -1)
    return (word >> ((index % per) * width).astype(jnp.uint32)) & ((1 << width) - 1)


def _one_field(shape, index, value, when, width: int):
    """uint32[shape] zeros with ``value`` in the ``width``-bit field at scalar ``index`` where ``when``."""
    per = 32 // width
    hit = (jnp.arange(shape) == index // per) & when
    return jnp.where(hit, value.astype(jnp.uint32) << ((index % per) * width).astype(jnp.uint32), 0)


def _walk(seed, size, start, goal, walk):
    """One randomised depth-first search from ``start`` to ``goal`` (path cell indices, int32[]).

    walk: int32[] its number in the pool (picks its random words). Returns
    (done bool[], cells int32[] on the stack incl. both ends, on_path
    uint32[4] a bit per cell on the stack, parent uint32[7] two bits per
    cell: the direction it was entered by), after at most WALK_STEPS pushes
    and pops. (vmapped over the pool: XLA fuses the [pool, words] arrays well.)
    """
    n = MAX_LEVEL_SIZE
    delta = jnp.asarray(_DR * n + _DC)
    one = jnp.uint32(1)

    def body(it, state):
        top, depth, done, seen, on_path, parent = state
        row, col = top // n + _DR, top % n + _DC
        inside = (row >= 0) & (row < size) & (col >= 0) & (col < size)
        nbr = jnp.where(inside, top + delta, 0)
        at_goal = inside & (nbr == goal)
        free = inside & (_bits(seen, nbr, 1) == 0)
        count = jnp.sum(free)
        word = hash_words(seed, _STREAM_WALK, (walk * WALK_STEPS + it).astype(jnp.uint32))
        pick = uniform_below(word, jnp.maximum(count, 1))
        hit = jnp.any(at_goal)
        # the goal when it is next door, else the pick-th free neighbour
        way = jnp.where(hit, jnp.argmax(at_goal), jnp.argmax(free & (jnp.cumsum(free) - 1 == pick)))
        push = ~done & (hit | (count > 0))
        pop = ~done & ~push
        nxt = top + delta[way]
        back = top - delta[_bits(parent, top, 2).astype(jnp.int32)]
        added = _one_field(_VISIT_WORDS, nxt, one, push, 1)
        on_path = (on_path | added) & ~_one_field(_VISIT_WORDS, top, one, pop, 1)
        parent = parent | _one_field(_PARENT_WORDS, nxt, way, push, 2)
        top = jnp.where(push, nxt, jnp.where(pop, back, top))
        return top, depth + push.astype(jnp.int32) - pop.astype(jnp.int32), done | (push & hit), seen | added, \
            on_path, parent

    start_bits = _one_field(_VISIT_WORDS, start, one, True, 1)
    init = (start, jnp.int32(1), jnp.bool_(False), start_bits, start_bits, jnp.zeros(_PARENT_WORDS, jnp.uint32))
    _, depth, done, _, on_path, parent = _fori_loop(0, WALK_STEPS, body, init)
    return done, depth, on_path, parent


def _choose_paths(ok, on_path, num_paths):
    """Take walks in pool order: each kept one is ok and has a cell no kept one had.

    ok: bool[P]; on_path: uint32[P, 4]; num_paths: int32[] the most to keep.
    Returns (chosen int32[MAX_PATHS] pool indices, count int32[]).

    The cells already taken change only where a walk is kept, so the next kept walk is the first one
    after the last kept that is ok and has a new cell: MAX_PATHS searches over the whole pool at
    once, the same choice as looking at the walks one by one (a GPU runs each loop trip apart).
    """
    index = jnp.arange(ok.shape[0])
    used = jnp.zeros(_VISIT_WORDS, jnp.uint32)
    after, count, chosen = jnp.int32(-1), jnp.int32(0), []
    for slot in range(MAX_PATHS):
        fits = ok & (index > after) & jnp.any((on_path & ~used) != 0, axis=-1)
        keep = jnp.any(fits) & (count < num_paths)
        pick = jnp.argmax(fits).astype(jnp.int32)
        chosen.append(jnp.where(keep, pick, 0))
        used = jnp.where(keep, used | on_path[pick], used)
        after = jnp.where(keep, pick, after)
        count = count + keep.astype(jnp.int32)
    return jnp.stack(chosen), count


def _ascii_paths(goal, cells, parent):
    """Kept paths as ascii cells in order from the player: flat index int32[MAX_PATHS, MAX_PATH_ASCII]
    (row * ASCII + col) and the count of valid entries int32[MAX_PATHS] (2 * cells - 1).

    goal: int32[] path cell index; cells: int32[MAX_PATHS]; parent: uint32[MAX_PATHS, 7].
    """
    n = MAX_LEVEL_SIZE
    delta = jnp.asarray(_DR * n + _DC)
    slot = jnp.arange(MAX_PATH_CELLS)

    def back(j, carry):
        cur, order = carry
        order = jnp.where(slot == (cells - 1 - j)[:, None], cur[:, None], order)
        up = jax.vmap(lambda p, c: _bits(p, c, 2))(parent, cur).astype(jnp.int32)
        return jnp.where(j < cells - 1, cur - delta[up], cur), order

    init = (jnp.full((MAX_PATHS,), goal, jnp.int32), jnp.zeros((MAX_PATHS, MAX_PATH_CELLS), jnp.int32))
    _, order = _fori_loop(0, MAX_PATH_CELLS, back, init)
    row, col = order // n, order % n
    node = (2 * row + 1) * ASCII + 2 * col + 1
    link = (row[:, 1:] + row[:, :-1] + 1) * ASCII + col[:, 1:] + col[:, :-1] + 1
    seq = jnp.stack([node[:, :-1], link], -1).reshape(MAX_PATHS, -1)
    return jnp.concatenate([seq, node[:, -1:]], -1), 2 * cells - 1


def _main_heights(seed, count):
    """Generator heights int32[MAX_PATH_ASCII] along the main path (entry 0: the start, 26)."""
    words = hash_words(seed, _STREAM_MAIN, jnp.arange(MAX_PATH_ASCII, dtype=jnp.uint32))
    falls = uniform_below(words, 1000) < int(HEIGHT_DECREASE_PROBABILITY * 1000)
    amount = 1 + uniform_below(words << 16, MAX_HEIGHT_DECREASE)
    index = jnp.arange(MAX_PATH_ASCII)
    drop = jnp.where(falls & (index >= 1) & (index < count), amount, 0)
    h = jnp.maximum(MAX_HEIGHT - START_HEIGHT_OFFSET - jnp.cumsum(drop), MIN_HEIGHT)
    return jnp.where(index == 0, MAX_HEIGHT, h).astype(jnp.int32)


def _secondary_heights(seed, k, flat, count, heights):
    """Heights of the new cells of later path ``k`` (flat int32[MAX_PATH_ASCII], ``count`` valid),
    set into ``heights`` int32[ASCII * ASCII] (0 = unset), which is returned."""
    index = jnp.arange(MAX_PATH_ASCII)
    valid = index < count
    cur = heights[flat]
    fixed = (cur > 0) | ~valid
    prev = jax.lax.cummax(jnp.where(fixed, index, -1))
    nxt = jax.lax.cummin(jnp.where(fixed, index, MAX_PATH_ASCII), reverse=True)
    h_prev = cur[jnp.maximum(prev, 0)]
    start = jnp.minimum(h_prev, MAX_HEIGHT - START_HEIGHT_OFFSET)
    h_next = jnp.where(nxt < count, cur[jnp.minimum(nxt, MAX_PATH_ASCII - 1)], start + 1)   # never open-ended
    end = jnp.minimum(h_prev - 1, h_next - 1)
    total = jnp.maximum(start - end, 0)
    length = jnp.maximum(nxt - prev - 1, 1)
    # (total mod length) cells of each stretch, a uniformly random subset, drop one level more
    rand = hash_words(seed, _STREAM_STRETCH, (k * MAX_PATH_ASCII + index).astype(jnp.uint32))
    before = (rand[None, :] < rand[:, None]) | ((rand[None, :] == rand[:, None]) & (index[None, :] < index[:, None]))
    rank = jnp.sum(before & (prev[None, :] == prev[:, None]) & ~fixed[None, :], -1)
    step = jnp.where(fixed, 0, total // length + (rank < total % length))
    done = jnp.cumsum(step)
    new = start - (done - done[jnp.maximum(prev, 0)])
    target = jnp.where(fixed, ASCII * ASCII, flat)
    return heights.at[target].set(new, mode="drop")


def skymaze_layout(key: jax.Array, difficulty) -> SkymazeLayout:
    """A skymaze platform layout for difficulty d (see the module docstring for the steps).

    key: a PRNG key (typed or raw uint32[2]); difficulty: f32[] in [0, 1]
    (the varied level draws it per episode: the caller does). Returns a
    SkymazeLayout (ascii grid ASCII x ASCII = 21 x 21, padded past 2L+1).
    Pure: jit it and vmap over keys and difficulties.
    """
    seed = jax.random.bits(key, (2,), jnp.uint32)
    size, num_paths, max_extra = difficulty_parameters(difficulty)
    player, goal, _ = _endpoints(seed, size)
    start, end = player[0] * MAX_LEVEL_SIZE + player[1], goal[0] * MAX_LEVEL_SIZE + goal[1]
    dist = jnp.sum(jnp.abs(goal - player))
    walks = jnp.arange(WALK_POOL, dtype=jnp.int32)
    done, cells, on_path, parent = jax.vmap(_walk, (None, None, None, None, 0))(seed, size, start, end, walks)
    ok = done & (cells - 1 - dist <= max_extra)
    chosen, count = _choose_paths(ok, on_path, num_paths)
    flat, length = _ascii_paths(end, jnp.where(jnp.arange(MAX_PATHS) < count, cells[chosen], 1), parent[chosen])
    main = _main_heights(seed, length[0])
    heights = jnp.zeros(ASCII * ASCII, jnp.int32)
    heights = heights.at[jnp.where(jnp.arange(MAX_PATH_ASCII) < length[0], flat[0], ASCII * ASCII)].set(
        main, mode="drop")

    def secondary(k, h):
        return jnp.where(k < count, _secondary_heights(seed, k, flat[k], length[k], h), h)

    heights = _fori_loop(1, MAX_PATHS, secondary, heights).reshape(ASCII, ASCII)
    level_h = jnp.where(heights > 0, heights + FACTORY_HEIGHT_OFFSET, 0).astype(jnp.int32)
    return SkymazeLayout(level_h=level_h, size=2 * size + 1, player=2 * player + 1, goal=2 * goal + 1,
                         num_paths=count)
