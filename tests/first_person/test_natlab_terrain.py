"""natlab layouts on the device: properties over 10k layouts per varying variant in one batched call.

Terrain walkable and smooth, objects on walkable ground clear of obstacles,
every walkable playable height cell reachable from every spawn, counts and
regrowth delays as documented, time of day uniform, the fixed map fixed,
same key => same layout; the placement fallback is measured.
"""
import functools

import jax
import numpy as np
import pytest

from jaxlab.levels.dmlab.dmlab30 import natlab_placement as placement
from jaxlab.levels.dmlab.dmlab30.natlab_terrain import (
    BAND, FIXED_LARGE, HEIGHT_CELL, MAX_STEP, RANDOMIZED, REGROWTH, SPAWNS, VARIANTS,
    NatlabVariant, height_cell_centres, map_seed, natlab_layout, playable_cells,
    playable_height_cells, tilt_weight)
from jaxlab.levels.dmlab import heights
from jaxlab.levels.dmlab.units import PLAYER_RADIUS, STEP_HEIGHT

N = 10_000
N_FIXED = 300
VARYING = (REGROWTH, RANDOMIZED)
ALL = (REGROWTH, RANDOMIZED, FIXED_LARGE)
SPIKE = 12.0          # u: |4 z - sum of the 4 neighbours| bound inside the playable square


def size(variant):
    return N_FIXED if variant.fixed_map else N


@functools.lru_cache(maxsize=None)
def keys(n):
    return jax.random.split(jax.random.key(11), n)


@functools.lru_cache(maxsize=None)
def batch(variant):
    """The layouts of ``size(variant)`` keys, made by one jitted vmapped call (numpy)."""
    return jax.device_get(jax.jit(jax.vmap(functools.partial(natlab_layout, variant=variant)))(keys(size(variant))))


@functools.lru_cache(maxsize=None)
def drawn(variant):
    """(obstacle counts int[B, 3], mushroom count int[B]) wanted per layout."""
    def one(key):
        seed = map_seed(key, variant)
        return placement.obstacle_counts(seed, variant), placement.mushroom_count(seed, variant)
    return jax.device_get(jax.jit(jax.vmap(one))(keys(size(variant))))


def dist(a, b):
    """f32[B, P, Q]: distances between points a f32[B, P, 2] and b f32[B, Q, 2]."""
    dx = a[:, :, None, 0] - b[:, None, :, 0]
    dy = a[:, :, None, 1] - b[:, None, :, 1]
    return np.sqrt(dx * dx + dy * dy)


def cell_of(variant, xy):
    """(hr, hc) int arrays: the height cell holding world points xy[..., 2]."""
    hc = np.floor(xy[..., 0] / HEIGHT_CELL).astype(int)
    hr = 2 * variant.rows - 1 - np.floor(xy[..., 1] / HEIGHT_CELL).astype(int)
    return hr, hc


def blocked_cells(variant, lay):
    """bool[B, N, N]: height cells whose centre a solid obstacle's disc, grown by the player, covers."""
    x, y = height_cell_centres(variant)
    solid = lay.obstacle_valid & (lay.obstacle_radius > 0)
    out = np.zeros(lay.floor_z.shape, bool)
    for o in range(solid.shape[1]):
        px, py = lay.obstacle_pos[:, o, 0], lay.obstacle_pos[:, o, 1]
        d2 = (x[None, None, :] - px[:, None, None]) ** 2 + (y[None, :, None] - py[:, None, None]) ** 2
        r = lay.obstacle_radius[:, o] + PLAYER_RADIUS
        out |= solid[:, o, None, None] & (d2 < (r * r)[:, None, None])
    return out


def pack(cells):
    """uint64[B, R]: bool[B, R, C <= 64] rows packed, column c as bit c."""
    b, r, c = cells.shape
    padded = np.zeros((b, r, 64), bool)
    padded[:, :, :c] = cells
    return np.packbits(padded, axis=-1, bitorder="little").view("<u8")[..., 0]


def flood(walk, z, start):
    """bool[B, R, C]: cells reached from ``start`` over 4-adjacent walkable cells within STEP_HEIGHT
    (walk, start bool[B, R, C <= 64], z f32[B, R, C]); rows packed into 64-bit words."""
    right = pack(np.pad(walk[:, :, 1:] & walk[:, :, :-1] & (np.abs(np.diff(z, axis=2)) <= STEP_HEIGHT),
                        ((0, 0), (0, 0), (0, 1))))
    down = pack(walk[:, 1:, :] & walk[:, :-1, :] & (np.abs(np.diff(z, axis=1)) <= STEP_HEIGHT))
    reached = pack(start & walk)
    one = np.uint64(1)
    while True:
        before = reached.copy()
        for _ in range(4):
            reached |= ((reached & right) << one) | ((reached >> one) & right)
            reached[:, 1:] |= reached[:, :-1] & down
            reached[:, :-1] |= reached[:, 1:] & down
        if np.array_equal(before, reached):
            bits = np.unpackbits(reached[..., None].view(np.uint8), axis=-1, bitorder="little")
            return bits[..., :walk.shape[2]].astype(bool)


def steps(z, mask):
    """|differences| of 4-adjacent height cells both in mask bool[N, N]: (across f[B, K1], down f[B, K2])."""
    across = np.abs(np.diff(z, axis=2))[:, mask[:, 1:] & mask[:, :-1]]
    down = np.abs(np.diff(z, axis=1))[:, mask[1:, :] & mask[:-1, :]]
    return across, down


def chi_square_ok(counts, expected):
    """Pearson's statistic within df + 5 sqrt(2 df) (a loose bound, p well under 1e-4)."""
    counts = np.asarray(counts, float)
    df = len(counts) - 1
    stat = np.sum((counts - expected) ** 2 / expected)
    return stat <= df + 5 * np.sqrt(2 * df), stat


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_shapes_and_config(variant):
    lay = batch(variant)
    b, n, o, m = size(variant), variant.height_cells, placement.OBSTACLES, variant.max_mushrooms
    expect = dict(floor_z=(n, n), obstacle_pos=(o, 2), obstacle_kind=(o,), obstacle_scale=(o,), obstacle_yaw=(o,),
                  obstacle_radius=(o,), obstacle_height=(o,), obstacle_valid=(o,), mushroom_pos=(m, 2),
                  mushroom_valid=(m,), mushroom_respawn_seconds=(m,), spawn_pos=(SPAWNS, 2),
                  spawn_valid=(SPAWNS,), time_of_day=())
    for name, shape in expect.items():
        assert getattr(lay, name).shape == (b,) + shape, name
    assert lay.floor_z.dtype == np.float32 and lay.time_of_day.dtype == np.int32
    assert playable_cells(variant).shape == (variant.rows, variant.rows)
    assert playable_cells(variant).sum() == variant.playable ** 2 and not playable_cells(variant)[:BAND].any()
    assert variant.rows == {21: 25, 30: 34}[variant.playable] and VARIANTS[variant.name] is variant
    with pytest.raises(ValueError, match="mushrooms"):
        NatlabVariant("bad", playable=21, mushrooms=(5, 3))


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_terrain_is_walkable_smooth_and_in_range(variant):
    z = batch(variant).floor_z
    play = playable_height_cells(variant)
    across, down = steps(z, play)
    assert max(across.max(), down.max()) <= MAX_STEP + 1e-3
    relief = z[:, play].max(1) - z[:, play].min(1)
    assert relief.min() >= 150.0 and relief.max() <= 820.0, (relief.min(), relief.max())
    whole = z.max((1, 2)) - z.min((1, 2))
    assert whole.max() <= 820.0
    # no single-cell spikes: the discrete Laplacian stays small inside the playable square
    lap = 4 * z[:, 1:-1, 1:-1] - z[:, :-2, 1:-1] - z[:, 2:, 1:-1] - z[:, 1:-1, :-2] - z[:, 1:-1, 2:]
    inner = play[1:-1, 1:-1] & play[:-2, 1:-1] & play[2:, 1:-1] & play[1:-1, :-2] & play[1:-1, 2:]
    assert np.abs(lap[:, inner]).max() <= SPIKE
    # the band joins smoothly: across the playable edge at most twice the playable step
    edge_across = np.abs(np.diff(z, axis=2))[:, play[:, 1:] ^ play[:, :-1]]
    edge_down = np.abs(np.diff(z, axis=1))[:, play[1:, :] ^ play[:-1, :]]
    assert max(edge_across.max(), edge_down.max()) <= 2 * MAX_STEP


def test_relief_fallback_is_rare():
    """The tilted-plane mix (a steep narrow bump would leave too little relief) is rarely needed."""
    tilt = np.asarray(jax.jit(jax.vmap(lambda k: tilt_weight(map_seed(k, RANDOMIZED), RANDOMIZED)))(keys(N)))
    assert np.mean(tilt > 0) <= 0.02 and np.mean(tilt >= 1.0) <= 1e-3


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_objects_stand_clear_on_playable_ground(variant):
    lay = batch(variant)
    lo, hi = variant.bounds
    solid = lay.obstacle_valid & (lay.obstacle_radius > 0)
    assert not (lay.obstacle_valid & (lay.obstacle_kind == placement.SHRUB) & (lay.obstacle_radius > 0)).any()
    for pos, valid in ((lay.mushroom_pos, lay.mushroom_valid), (lay.spawn_pos, lay.spawn_valid)):
        p = pos[valid]
        assert p.min() >= lo + 50.0 and p.max() <= hi - 50.0
        d = dist(pos, lay.obstacle_pos)      # [B, P, O]
        both = valid[:, :, None] & lay.obstacle_valid[:, None, :]
        clear = d > lay.obstacle_radius[:, None, :] + PLAYER_RADIUS + 15.0
        assert np.all(clear | ~(both & solid[:, None, :])), "an object stands inside a solid obstacle"
        assert np.all((d > PLAYER_RADIUS + 15.0) | ~both), "an object stands on an obstacle"
    m = lay.mushroom_pos
    dm = dist(m, m)
    pair = lay.mushroom_valid[:, :, None] & lay.mushroom_valid[:, None] & ~np.eye(m.shape[1], dtype=bool)
    assert dm[pair].min() >= 60.0 - 1e-3
    ds = dist(lay.spawn_pos, m)
    assert ds[lay.spawn_valid[:, :, None] & lay.mushroom_valid[:, None]].min() >= placement.SPAWN_MUSHROOM_GAP - 1e-3
    # obstacles keep the player's passage from each other and from the playable edge
    o = lay.obstacle_pos
    do = dist(o, o)
    fp = np.where(lay.obstacle_kind == placement.SHRUB, 0.0, lay.obstacle_radius)
    gap = do - fp[:, :, None] - fp[:, None, :]
    opair = solid[:, :, None] & solid[:, None, :] & ~np.eye(o.shape[1], dtype=bool)
    assert gap[opair].min() >= 2 * PLAYER_RADIUS + placement.OBSTACLE_GAP - 1e-2
    edge = np.minimum(o - lo, hi - o).min(-1) - fp
    assert edge[solid].min() >= PLAYER_RADIUS + placement.OBSTACLE_GAP - 1e-2


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_every_walkable_cell_is_reachable_from_every_spawn(variant):
    lay = batch(variant)
    play = playable_height_cells(variant)
    walk = play[None] & ~blocked_cells(variant, lay)
    b = size(variant)
    assert lay.spawn_valid.all()
    hr, hc = cell_of(variant, lay.spawn_pos)
    assert walk[np.arange(b)[:, None], hr, hc].all(), "a spawn stands on blocked ground"
    start = np.zeros_like(walk)
    start[np.arange(b), hr[:, 0], hc[:, 0]] = True
    k = 2 * BAND                              # the playable square's first height cell
    inner = np.s_[:, k:walk.shape[1] - k, k:walk.shape[2] - k]
    reached = np.zeros_like(walk)
    reached[inner] = flood(walk[inner], lay.floor_z[inner], start[inner])
    assert np.array_equal(reached, walk), "walkable playable ground cut off from the first spawn"
    mr, mc = cell_of(variant, lay.mushroom_pos)
    at = reached[np.arange(b)[:, None], mr, mc]
    assert np.all(at | ~lay.mushroom_valid), "a mushroom out of reach"


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_counts_sizes_and_fallback(variant):
    lay = batch(variant)
    want_obstacles, want_mushrooms = drawn(variant)
    got = np.stack([(lay.obstacle_valid & (lay.obstacle_kind == k)).sum(1) for k in range(3)], 1)
    # the placement fallback (a slot left invalid) is never hit
    assert np.array_equal(got, want_obstacles) and np.array_equal(lay.mushroom_valid.sum(1), want_mushrooms)
    for k, span in enumerate((variant.cacti, variant.rocks, variant.shrubs)):
        assert got[:, k].min() >= span[0] and got[:, k].max() <= span[1]
    lo, hi = variant.mushrooms
    count = lay.mushroom_valid.sum(1)
    assert count.min() >= lo and count.max() <= hi
    valid = lay.mushroom_valid
    assert np.array_equal(valid, np.arange(variant.max_mushrooms)[None] < count[:, None])
    if not variant.fixed_map:
        assert set(np.unique(count)) == set(range(lo, hi + 1))
        ok, stat = chi_square_ok(np.bincount(count - lo, minlength=hi - lo + 1), N / (hi - lo + 1))
        assert ok, f"mushroom counts not uniform: chi-square {stat:.0f}"
        for k, span in enumerate((variant.cacti, variant.rocks, variant.shrubs)):
            bins = np.bincount(got[:, k] - span[0], minlength=span[1] - span[0] + 1)
            assert chi_square_ok(bins, N / len(bins))[0], f"kind {k} counts not uniform"
    v = lay.obstacle_valid
    for k, (r, h) in enumerate(zip(placement.RADIUS, placement.HEIGHT)):
        sel = v & (lay.obstacle_kind == k)
        assert lay.obstacle_radius[sel].min() >= r[0] and lay.obstacle_radius[sel].max() <= r[1]
        assert lay.obstacle_height[sel].min() >= h[0] and lay.obstacle_height[sel].max() <= h[1]
    assert lay.obstacle_scale[v].min() >= 0.7 and lay.obstacle_scale[v].max() <= 1.3
    assert lay.obstacle_yaw[v].min() >= 0.0 and lay.obstacle_yaw[v].max() < 360.0


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_regrowth_delays(variant):
    lay = batch(variant)
    delay, valid = lay.mushroom_respawn_seconds, lay.mushroom_valid
    if not variant.regrow:
        assert np.all(delay == -1.0)
        return
    d = delay[valid]
    assert np.all(delay[~valid] == -1.0)
    assert d.min() >= 24.0 and d.max() <= 108.0
    assert abs(d.mean() - 60.0) <= 0.5, d.mean()
    assert d.min() < 26.0 and d.max() > 100.0       # the whole of [24, 108] is used
    # r ~ U[24, 36], delay ~ U[r, 3r]: P(delay < 36) = (36 ln 1.5 - 12) / 24 ~ 0.108
    assert abs(np.mean(d < 36.0) - (36 * np.log(1.5) - 12) / 24) <= 0.005


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_time_of_day_is_uniform(variant):
    tod = batch(variant).time_of_day
    assert set(np.unique(tod)) == {0, 1, 2}
    ok, stat = chi_square_ok(np.bincount(tod, minlength=3), size(variant) / 3)
    assert ok, f"time of day not uniform: chi-square {stat:.1f}"


def test_fixed_map_is_the_same_every_episode():
    lay = batch(FIXED_LARGE)
    for name in ("floor_z", "obstacle_pos", "obstacle_kind", "obstacle_scale", "obstacle_yaw", "obstacle_radius",
                 "obstacle_height", "obstacle_valid", "mushroom_pos", "mushroom_valid",
                 "mushroom_respawn_seconds", "spawn_pos", "spawn_valid"):
        value = getattr(lay, name)
        assert np.array_equal(value, np.broadcast_to(value[:1], value.shape)), name
    assert lay.mushroom_valid[0].sum() == 40 and lay.spawn_valid[0].sum() == SPAWNS
    assert FIXED_LARGE.playable * 100 == 3000 and lay.floor_z.shape[1:] == (68, 68)


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_same_key_same_layout_jitted_or_not_at_any_batch_size(variant):
    """Called outside jit (it compiles itself), in the 10k batch, and (regrowth) in a batch of 1: bit for bit."""
    big = batch(variant)
    ks = keys(size(variant))
    for i in (0, 7):
        plain = jax.device_get(natlab_layout(ks[i], variant))
        for a, b in zip(jax.tree_util.tree_leaves(plain), jax.tree_util.tree_leaves(big)):
            np.testing.assert_array_equal(a, b[i])
    raw = jax.random.key_data(ks[3])
    np.testing.assert_array_equal(jax.device_get(natlab_layout(raw, variant)).floor_z, big.floor_z[3])
    if variant is REGROWTH:
        single = jax.device_get(jax.jit(jax.vmap(functools.partial(natlab_layout, variant=variant)))(ks[5:6]))
        for a, b in zip(jax.tree_util.tree_leaves(single), jax.tree_util.tree_leaves(big)):
            np.testing.assert_array_equal(a[0], b[5])


def ground_at(floor_z, rows, xy):
    """``heights.ground_at`` of world points xy [..., 2]."""
    xy = jax.numpy.asarray(xy, np.float32)
    return heights.ground_at(floor_z, rows, xy[..., 0], xy[..., 1])


def test_ground_at_reads_the_height_cell_under_a_point():
    lay = batch(REGROWTH)
    z = lay.floor_z[0]
    rows = REGROWTH.rows
    n = 2 * rows
    assert float(ground_at(z, rows, np.array([25.0, 25.0]))) == z[n - 1, 0]          # bottom-left
    assert float(ground_at(z, rows, np.array([49.9, n * 50.0 - 0.1]))) == z[0, 0]      # top-left
    assert float(ground_at(z, rows, np.array([n * 50.0 - 1.0, 50.0]))) == z[n - 2, n - 1]
    x, y = height_cell_centres(REGROWTH)
    grid = np.stack(np.meshgrid(x, y, indexing="xy"), -1)                                # [N, N, 2] centres
    np.testing.assert_array_equal(np.asarray(ground_at(z, rows, grid)), z)
    hr, hc = cell_of(REGROWTH, lay.spawn_pos[0])
    np.testing.assert_array_equal(np.asarray(jax.jit(ground_at)(z, rows, lay.spawn_pos[0])),
                                  z[hr, hc])
