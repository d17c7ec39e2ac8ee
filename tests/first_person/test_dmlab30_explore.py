"""DMLab-30 explore_* levels: 10k episodes per level in one batched call each, checked against the
facts of the original (maze sizes, object counts, rewards, doors, categories); then the mechanics in
the env (the goal restarts the map, obstructions and objects are re-dealt at restarts)."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.levels.dmlab import dmlab30
from jaxlab.levels.dmlab.dmlab30 import explore
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.procedural.cells import flood_fill
from jaxlab.render.first_person.textures import NUM_LEVEL_THEMES

EPISODES = 10_000
NAMES = tuple(explore.GENERATORS)


@functools.lru_cache(maxsize=None)
def draw(name):
    """(levels of EPISODES episodes, the same levels after one restart), as numpy."""
    gen = explore.GENERATORS[name]
    keys = jax.random.split(jax.random.key(11), EPISODES)

    def both(key):
        level = gen.episode(key, 0)
        return level, gen.restart(level, jax.random.fold_in(key, 9), 0)

    return jax.device_get(jax.jit(jax.vmap(both))(keys))


def _cells_of(level, xy):
    """int [B, K, 2] (row, col) of world points [B, K, 2]."""
    rows = level.cells.shape[1]
    return np.stack([rows - 1 - np.floor(xy[..., 1] / 100), np.floor(xy[..., 0] / 100)], -1).astype(int)


def _at(grid, rc):
    """grid [B, H, W] read at rc [B, K, 2] -> [B, K]."""
    b = np.arange(grid.shape[0])[:, None]
    return grid[b, rc[..., 0], rc[..., 1]]


def _passable(level):
    """bool[B, H, W]: floor and doors that are not shut."""
    open_ = level.cells != CELL_WALL
    door = level.door_index >= 0
    lock = np.take_along_axis(level.door_lock, np.maximum(level.door_index, 0).reshape(EPISODES, -1), 1)
    return open_ & ~(door & (lock.reshape(door.shape) != 0))


def _reached_from_spawns(level):
    """bool[B, H, W]: cells reachable from the allowed spawns."""
    spawn = level.spawn_allowed[:, 0, :] & ~np.isnan(level.spawn_pos[..., 0])
    rc = _cells_of(level, np.nan_to_num(level.spawn_pos))
    start = np.zeros(level.cells.shape, bool)
    b, k = np.nonzero(spawn)
    start[b, rc[b, k, 0], rc[b, k, 1]] = True
    return np.asarray(jax.jit(jax.vmap(flood_fill))(_passable(level), start))


@pytest.mark.parametrize("name", NAMES)
def test_ten_thousand_episodes_keep_the_levels_rules(name):
    gen = explore.GENERATORS[name]
    for level in draw(name):
        size = 13 if "object_rewards" in name else (11 if name.endswith("_small") else 17)
        assert level.cells.shape == (EPISODES, size, size)
        np.testing.assert_array_equal(level.episode_seconds, 90.0 if name.endswith(("_small", "_few")) else 120.0)
        valid = level.pickup_valid
        rc = _cells_of(level, level.pickup_pos)
        assert np.all(_at(level.cells, rc)[valid] == CELL_FLOOR), "an object sits in a wall or a door"
        occupied = np.where(valid, rc[..., 0] * 100 + rc[..., 1], -1 - np.arange(valid.shape[1]))
        assert all(len(set(o)) == len(o) for o in occupied), "two objects share a cell"
        reached = _reached_from_spawns(level)
        assert np.all(_at(reached, rc)[valid]), "an object cannot be reached from a spawn"
        if "obstructed" not in name:     # shut doors wall parts of the obstructed mazes off by design
            np.testing.assert_array_equal(reached, level.cells != CELL_WALL, "an open cell is cut off")
        spawn = level.spawn_allowed[:, 0, :]
        assert np.all(spawn.sum(1) >= 1)
        assert np.all(_at(level.cells, _cells_of(level, np.nan_to_num(level.spawn_pos)))[spawn] == CELL_FLOOR)
        assert len(np.unique(level.theme)) == NUM_LEVEL_THEMES - 1, "themes are not all drawn"
        assert len({c.tobytes() for c in level.cells[:200]}) > (150 if "rewards" not in name else 0)
        if "goal" in name:
            assert np.all(valid.sum(1) == 1) and np.all(level.pickup_is_goal[valid])
            np.testing.assert_array_equal(level.pickup_reward[valid], 10.0)
        if "object_locations" in name:
            rooms = (level.spawn_allowed[:, 0, :].reshape(EPISODES, -1, 5).any(-1)).sum(1)
            np.testing.assert_array_equal(valid.sum(1), 2 * rooms)        # half of 4 cells per room
            assert np.all(level.pickup_kind[valid] == PICKUP_INDEX["apple_reward"])
            np.testing.assert_array_equal(level.pickup_reward[valid], 1.0)
        if "obstructed" in name:
            doors = level.door_valid
            assert set(np.unique(level.door_lock[doors])) == {0, dmlab30.explore.SHUT_LOCK}
            shut = (level.door_lock[doors] != 0).mean()
            assert 0.15 < shut < 0.6, shut      # the path's doors open, half of the rest
        if "object_rewards" in name:
            n = gen.spec.categories
            np.testing.assert_array_equal(valid.sum(1), n)
            assert np.all(np.sort(level.pickup_reward, 1)[:, :n // 2] == -1.0)
            assert np.all((level.pickup_reward == 2.0).sum(1) == n // 2)
            kinds = np.where(valid, level.pickup_kind, -1 - np.arange(valid.shape[1]))
            assert all(len(set(k)) == len(k) for k in kinds), "two categories look the same"


@pytest.mark.parametrize("name", [n for n in NAMES if explore.GENERATORS[n].redraws_on_restart])
def test_restarts_keep_the_maze_and_redeal_the_rest(name):
    first, again = draw(name)
    np.testing.assert_array_equal(first.cells, again.cells)
    np.testing.assert_array_equal(first.theme, again.theme)
    if "obstructed" in name:
        np.testing.assert_array_equal(first.pickup_pos, again.pickup_pos)         # the goal stays
        assert (first.door_lock != again.door_lock).any(1).mean() > 0.5
        assert (first.spawn_pos[:, 0] != again.spawn_pos[:, 0]).any(1).mean() > 0.5
    else:
        same = lambda lv: np.sort(np.where(lv.pickup_valid, lv.pickup_kind, -1), 1)
        np.testing.assert_array_equal(same(first), same(again))                   # the same categories
        assert (first.pickup_valid != again.pickup_valid).any(1).mean() > 0.9      # on fresh cells


def test_goal_restarts_the_map_and_stays_put():
    env = jaxlab.make("explore_goal_locations_small", width=16, height=12, observations=("DEBUG.POS.TRANS",))
    state, _ = jax.jit(env.reset)(jax.random.key(2))
    goal = state.episode_level.pickup_pos[0]
    near = state.replace(pos=goal + jnp.array([20.0, 0.0]))
    step = jax.jit(env.step)
    after, ts = step(near, jnp.zeros(7, jnp.int32))
    assert float(ts.reward) == 10.0 and not bool(ts.last())
    assert float(jnp.linalg.norm(after.pos - goal)) > 50.0          # respawned
    np.testing.assert_array_equal(after.episode_level.pickup_pos, state.episode_level.pickup_pos)
    again, ts = step(after.replace(pos=goal), jnp.zeros(7, jnp.int32))
    assert float(ts.reward) == 10.0                                 # the goal is back after the restart


def test_object_rewards_restart_when_the_good_objects_are_gone():
    env = jaxlab.make("explore_object_rewards_few", width=16, height=12, observations=("DEBUG.POS.TRANS",))
    state, _ = jax.jit(env.reset)(jax.random.key(4))
    level = state.episode_level
    step = jax.jit(env.step)
    good = np.flatnonzero(np.asarray(level.pickup_valid & (level.pickup_reward > 0)))
    bad = np.flatnonzero(np.asarray(level.pickup_valid & (level.pickup_reward < 0)))
    state, ts = step(state.replace(pos=level.pickup_pos[bad[0]]), jnp.zeros(7, jnp.int32))
    assert float(ts.reward) == -1.0
    state, ts = step(state.replace(pos=level.pickup_pos[good[0]]), jnp.zeros(7, jnp.int32))
    assert float(ts.reward) == 2.0
    np.testing.assert_array_equal(state.episode_level.pickup_valid, level.pickup_valid)   # one good one left
    state, ts = step(state.replace(pos=level.pickup_pos[good[1]]), jnp.zeros(7, jnp.int32))
    assert float(ts.reward) == 2.0
    assert (np.asarray(state.episode_level.pickup_valid) != np.asarray(level.pickup_valid)).any()  # re-dealt
    assert np.all(np.asarray(state.pickup_wait) == 0)


def test_contact_sheet_shows_each_episode(tmp_path):
    from jaxlab.demo.contact_sheet import main

    main(["explore_object_rewards_few", "--episodes", "3", "--out", str(tmp_path)])
    import imageio.v3 as iio

    sheet = iio.imread(tmp_path / "explore_object_rewards_few.png")
    assert sheet.ndim == 3 and sheet.shape[1] > 3 * 192          # three tiles side by side
    tiles = [sheet[:, 4 + i * 196:4 + i * 196 + 192] for i in range(3)]
    assert all((a != b).any() for a, b in zip(tiles, tiles[1:]))  # episodes differ
