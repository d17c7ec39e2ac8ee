"""The skymaze platform generator: DMLab's rules checked over 10,000 hard (d = 0.9) and 10,000 varied
(d ~ U[0, 1)) layouts, each batch drawn in one jitted, vmapped call.

Moves are those of a player who cannot jump: onto a 4-neighbour platform no higher than the one
underfoot (a rise of one level is 20 units, more than the 18-unit step). The goal is always reached
that way, and a layout has a "wrong move" (a move from a cell on a route to the goal after which the
goal is out of reach) exactly when it has two or more paths. As measured on these batches: wrong
moves in 100% of hard layouts and 92.7% of varied ones (d < 1/14 builds one path).
"""
import functools
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.levels.dmlab.dmlab30 import skymaze_paths as sky

N = 10_000
HARD = 0.9
START_H = sky.FACTORY_HEIGHT_OFFSET + sky.MAX_HEIGHT                                          # 40
MAIN_TOP = sky.FACTORY_HEIGHT_OFFSET + sky.MAX_HEIGHT - sky.START_HEIGHT_OFFSET               # 35
LOWEST = sky.FACTORY_HEIGHT_OFFSET + sky.MIN_HEIGHT - (sky.MAX_PATHS - 1)                     # 15
SHIFTS = ((1, 0), (-1, 0), (0, 1), (0, -1))            # down, up, right, left
LAYOUTS = jax.jit(jax.vmap(sky.skymaze_layout))         # one compile for both batches


@functools.lru_cache(maxsize=None)
def draw(kind: str):
    """(keys, difficulties, layouts as numpy) for N episodes of one kind, one jitted vmapped call."""
    keys = jax.random.split(jax.random.key({"hard": 11, "varied": 12}[kind]), N)
    if kind == "hard":
        d = jnp.full((N,), HARD, jnp.float32)
    else:
        d = jax.random.uniform(jax.random.key(13), (N,), jnp.float32)
    layouts = LAYOUTS(keys, d)
    return keys, np.asarray(d), jax.device_get(layouts)


def reference_parameters(d: float):
    """DMLab's formulas in double."""
    size = 4 + math.floor(d * 6 + 0.5)
    extra = math.floor(size * (0.3 + d))
    return size, 1 + math.floor(d * 7 + 0.5), 2 if extra == 1 else extra


def neighbours(x, fill):
    """[N, S, S] -> [4, N, S, S]: each cell's neighbour in each of SHIFTS (``fill`` off the grid)."""
    p = np.pad(x, ((0, 0), (1, 1), (1, 1)), constant_values=fill)
    s = x.shape[1]
    return np.stack([p[:, 1 + dr:1 + dr + s, 1 + dc:1 + dc + s] for dr, dc in SHIFTS])


def one_hot(n, cells):
    """bool[N, ASCII, ASCII] with each episode's (row, col) cell set."""
    out = np.zeros((n, sky.ASCII, sky.ASCII), bool)
    out[np.arange(n), cells[:, 0], cells[:, 1]] = True
    return out


def row_bits(x):
    """bool[N, S, S] -> uint32[N, S]: bit c of row r is x[:, r, c]."""
    return (x.astype(np.uint32) << np.arange(x.shape[2], dtype=np.uint32)).sum(2, dtype=np.uint32)


def spread(h, seed, allowed):
    """bool[N, S, S]: the platform cells reached from ``seed`` by 4-neighbour moves from a platform to a
    platform with ``allowed(h_from, h_to)``. Rows are bit sets, so one pass is a few shifts."""
    nb = neighbours(h, 0)
    edge = [row_bits((h > 0) & (nb[k] > 0) & allowed(h, nb[k])) for k in range(4)]   # move from here, dir k
    reached = row_bits(seed & (h > 0))
    while True:
        out = reached | ((reached & edge[2]) << 1) | ((reached & edge[3]) >> 1)     # right, left
        out[:, 1:] |= reached[:, :-1] & edge[0][:, :-1]                              # down
        out[:, :-1] |= reached[:, 1:] & edge[1][:, 1:]                               # up
        if np.array_equal(out, reached):
            return ((reached[:, :, None] >> np.arange(h.shape[2], dtype=np.uint32)) & 1).astype(bool)
        reached = out


def downhill(h_from, h_to):
    """A player who cannot jump steps onto a platform no higher than the one underfoot."""
    return h_to <= h_from


def wrong_moves(layouts):
    """(bool[N] some allowed move from a cell on a route to the goal leaves the goal out of reach,
    bool[N] the goal is reachable from the start)."""
    h, n = layouts.level_h, len(layouts.level_h)
    from_start = spread(h, one_hot(n, layouts.player), downhill)
    to_goal = spread(h, one_hot(n, layouts.goal), lambda a, b: downhill(b, a))   # the reverse moves
    on_route = from_start & to_goal
    nb = neighbours(h, 0)
    lost = (nb > 0) & downhill(h[None], nb) & ~neighbours(to_goal, False) & on_route[None]
    return lost.any((0, 2, 3)), (from_start & one_hot(n, layouts.goal)).any((1, 2))


def test_difficulty_parameters_follow_dmlab_formulas():
    grid = np.concatenate([np.arange(1001) / 1000, np.arange(13) / 12, np.arange(15) / 14, [0.9, 0.7, 0.2]])
    ds = np.concatenate([grid, np.random.default_rng(0).random(3000)]).astype(np.float32)
    got = np.stack(jax.jit(jax.vmap(sky.difficulty_parameters))(jnp.asarray(ds)), -1)
    want = np.array([reference_parameters(float(d)) for d in ds])
    bad = np.flatnonzero((got != want).any(1))
    assert bad.size == 0, f"d={ds[bad[:5]]}: got {got[bad[:5]]}, want {want[bad[:5]]}"
    assert tuple(int(v) for v in sky.difficulty_parameters(jnp.float32(HARD))) == (9, 7, 10)
    assert tuple(int(v) for v in sky.difficulty_parameters(jnp.float32(0.0))) == (4, 1, 2)   # floor(1.2) = 1 -> 2
    assert tuple(int(v) for v in sky.difficulty_parameters(jnp.float32(1.0))) == (10, 8, 13)


@pytest.mark.parametrize("kind", ["hard", "varied"])
def test_player_and_goal_cells(kind):
    keys, d, lay = draw(kind)
    size = np.array([reference_parameters(float(x))[0] for x in d])
    assert np.array_equal(lay.size, 2 * size + 1)
    assert np.all(lay.player % 2 == 1) and np.all(lay.goal % 2 == 1)
    p, g = (lay.player + 1) // 2, (lay.goal + 1) // 2          # 1-indexed path-grid (row, col)
    assert np.all((p[:, 0] >= 1) & ((p[:, 0] - 1) * 3 < size)), "player below the first third of rows"
    assert np.all((g[:, 0] - 1 >= 2 * size // 3) & (g[:, 0] <= size)), "goal above the last third of rows"
    for cells in (p, g):
        assert np.all((cells[:, 1] >= 2) & (cells[:, 1] <= size - 1))
    dist = np.abs(p - g).sum(1)
    assert np.all((dist >= size - 3) & (dist <= size - 2))
    # the endpoint fallback is never needed
    taken = jax.jit(jax.vmap(lambda k, s: sky._endpoints(jax.random.bits(k, (2,), jnp.uint32), s)[2]))(
        keys, jnp.asarray(size, jnp.int32))
    assert bool(np.all(taken))


def endpoint_marginals(size: int):
    """DMLab's exact distribution of (player row, player col, goal row, goal col), 0-indexed path-grid
    cells, as four marginals float[4, size]: rows from u ~ U[0, 1), columns uniform, pairs kept at L1
    distance size-3 or size-2."""
    def rows(offset):     # P(floor((offset + u) * size / 3) = b)
        return {b: hi - lo for b in range(size) for lo, hi in [(max(0.0, 3 * b / size - offset),
                                                                min(1.0, 3 * (b + 1) / size - offset))] if hi > lo}
    cols = range(1, size - 1)
    out = np.zeros((4, size))
    for (a, pa), (b, pb) in itertools.product(rows(0).items(), rows(2).items()):
        for c1, c2 in itertools.product(cols, cols):
            if size - 3 <= abs(a - b) + abs(c1 - c2) <= size - 2:
                for i, v in enumerate((a, c1, b, c2)):
                    out[i, v] += pa * pb
    return out / out[0].sum()


def test_endpoints_follow_dmlab_distribution():
    _, _, lay = draw("hard")
    size = reference_parameters(HARD)[0]
    cells = np.concatenate([(lay.player - 1) // 2, (lay.goal - 1) // 2], 1)
    seen = np.stack([np.bincount(cells[:, i], minlength=size) / N for i in range(4)])
    assert np.abs(seen - endpoint_marginals(size)).max() < 0.02, (seen, endpoint_marginals(size))


@pytest.mark.parametrize("kind", ["hard", "varied"])
def test_platforms_heights_and_connectivity(kind):
    _, d, lay = draw(kind)
    h, n = lay.level_h, len(lay.level_h)
    idx = np.arange(sky.ASCII)
    inside = (idx[None, :, None] < lay.size[:, None, None]) & (idx[None, None, :] < lay.size[:, None, None])
    assert not np.any(h[~inside]), "a platform outside the (2L+1)^2 map"
    assert not np.any(h[:, ::2, ::2]), "a platform on a cell between four path cells"
    assert not np.any(h[:, 0, :]) and not np.any(h[:, :, 0])
    assert np.all(h[np.arange(n), lay.player[:, 0], lay.player[:, 1]] == START_H)
    assert np.all((h == 0) | ((h >= LOWEST) & (h <= MAIN_TOP)) | (h == START_H))
    assert np.all((h == START_H).sum((1, 2)) == 1)
    assert np.all(h[np.arange(n), lay.goal[:, 0], lay.goal[:, 1]] <= MAIN_TOP)
    # a connector cell lies between two path cells on platforms
    pad = np.pad(h, ((0, 0), (1, 1), (1, 1)))
    vertical, horizontal = h[:, ::2, 1::2] > 0, h[:, 1::2, ::2] > 0
    assert np.all(~vertical | ((pad[:, 0:-1:2, 2:-1:2] > 0) & (pad[:, 2::2, 2:-1:2] > 0)))
    assert np.all(~horizontal | ((pad[:, 2:-1:2, 0:-1:2] > 0) & (pad[:, 2:-1:2, 2::2] > 0)))
    reached = spread(h, one_hot(n, lay.player), lambda a, b: np.ones(a.shape, bool))
    assert np.array_equal(reached, h > 0), "a platform not connected to the start"


@pytest.mark.parametrize("kind", ["hard", "varied"])
def test_goal_reachable_downhill_and_irreversible(kind):
    """The goal is reached from the start without climbing, and most layouts have a wrong move: exactly
    those with two or more paths (a later path's first new stretch leaves a cell on the main path and
    ends a level below the cell it rejoins)."""
    _, _, lay = draw(kind)
    wrong, reachable = wrong_moves(lay)
    assert np.all(reachable), f"goal out of reach in {np.flatnonzero(~reachable)[:5]}"
    print(f"{kind}: wrong-move share {wrong.mean():.4f}")
    assert wrong.mean() > 0.5
    assert np.array_equal(wrong, lay.num_paths >= 2)


@pytest.mark.parametrize("kind", ["hard", "varied"])
def test_path_counts(kind):
    _, d, lay = draw(kind)
    wanted = np.array([reference_parameters(float(x))[1] for x in d])
    assert np.all(lay.num_paths >= 1) and np.all(lay.num_paths <= wanted)
    short = np.mean(lay.num_paths < wanted)
    print(f"{kind}: {short:.4f} of layouts have fewer paths than asked")
    assert short < 0.01


def test_same_key_same_layout():
    """Not jitted, jitted in a batch of one and inside the big batch: one layout per key."""
    keys, d, lay = draw("hard")
    batch_of_one = jax.jit(jax.vmap(sky.skymaze_layout))
    outs = [(i, sky.skymaze_layout(keys[i], jnp.float32(d[i]))) for i in (0, 1234)]
    outs += [(i, jax.tree.map(lambda x: x[0], batch_of_one(keys[i:i + 1], d[i:i + 1]))) for i in (0, 7, 9999)]
    for i, out in outs:
        for name in ("level_h", "size", "player", "goal", "num_paths"):
            assert np.array_equal(np.asarray(getattr(out, name)), getattr(lay, name)[i]), (i, name)
    distinct = len({h.tobytes() for h in lay.level_h})          # and different keys, different layouts
    assert distinct > 0.99 * N, distinct
