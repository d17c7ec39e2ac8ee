"""DMLab-30's levels with heights (skymaze, natlab) as Levels and envs: the layouts' properties carried
into the Level, the player never starting in the air, JUMP a no-op in skymaze, a scripted walk down a
skymaze that falls onto the platforms below and takes the goal's +100, mushrooms that pay and regrow
only in ``_regrowth``, and the time of day in the frame. (The layouts' own properties over 10,000
episodes each: test_skymaze_paths.py and test_natlab_terrain.py; physics and rendering of heights in
general: test_heights.py.)"""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.demo.skymaze_walk import cell_at, cell_heights, downhill_route, walk_down
from jaxlab.levels.dmlab import actions as A
from jaxlab.levels.dmlab.dmlab30 import natlab, skymaze
from jaxlab.levels.dmlab.dmlab30.natlab_terrain import VARIANTS, playable_cells
from jaxlab.levels.dmlab.heights import (GROUND_SLABS, GROUND_TERRAIN, NO_FLOOR, SKY_INDEX, footprint_ground,
                                         ground_at)
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR, CELL_WALL
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.levels.dmlab.units import PLAYER_RADIUS, STEP_HEIGHT
from jaxlab.render import Camera, render_first_person

EPISODES = 64
SKYMAZES = tuple(skymaze.GENERATORS)
NATLABS = tuple(natlab.GENERATORS)


@functools.lru_cache(maxsize=None)
def starts(name):
    """(position float32[E, 2], feet height float32[E], Levels) at reset of EPISODES envs of ``name``
    (one batched call, numpy)."""
    env = jaxlab.make(name, width=8, height=6, observations=("DEBUG.POS.TRANS",))
    state, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(8), EPISODES))
    return jax.device_get((state.pos, state.z, jax.vmap(env.level)(state)))


def levels(name):
    """The Levels of ``starts(name)``'s episodes."""
    return starts(name)[2]


@functools.lru_cache(maxsize=None)
def skymaze_hard():
    """(env, jitted reset, jitted step) of skymaze_irreversible_path_hard at 8x6 pixels, 4 frames a step
    (each jit of a reset or step is a compile of its own: these are compiled once for the module)."""
    env = jaxlab.make("skymaze_irreversible_path_hard", width=8, height=6, action_repeat=4,
                      observations=("DEBUG.POS.TRANS",))
    return env, jax.jit(env.reset), jax.jit(env.step)


@pytest.mark.parametrize("name", SKYMAZES)
def test_skymaze_levels_carry_the_layout(name):
    lv = levels(name)
    z = lv.floor_z[:, ::2, ::2]
    assert np.array_equal(lv.floor_z[:, 1::2, 1::2], z)                       # a platform fills its cell
    platform = z > NO_FLOOR
    assert np.array_equal(lv.cells == CELL_FLOOR, platform) and (lv.cells[~platform] == CELL_WALL).all()
    assert np.all(np.mod(z[platform], skymaze.UNITS_PER_LEVEL) == 0) and z[platform].max() == 800.0
    assert (lv.sky == SKY_INDEX["sky"]).all() and not lv.jump_crouch.any() and (lv.episode_seconds == 60).all()
    goal = lv.pickup_pos[:, 0]
    assert (lv.pickup_kind[:, 0] == PICKUP_INDEX["goal"]).all() and (lv.pickup_reward[:, 0] == 100).all()
    assert (lv.end_after_pickups == 1).all() and lv.pickup_counts[:, 0].all() and not lv.pickup_is_goal.any()
    for i in range(EPISODES):
        lv_i = jax.tree_util.tree_map(lambda a: a[i], lv)
        start, end = cell_at(lv_i, lv.spawn_pos[i, 0]), cell_at(lv_i, goal[i])
        assert z[i][start] == 800.0 and z[i][end] <= 700.0
        route = downhill_route(lv_i, start, end)
        assert route and all(z[i][b] <= z[i][a] + STEP_HEIGHT for a, b in zip(route, route[1:]))
    if name.endswith("_hard"):
        assert (platform.sum(axis=(1, 2)) <= 19 * 19).all() and not platform[:, 19:, :].any()
    else:   # the varied level's size changes with its difficulty
        assert len(np.unique(platform.any(axis=1).sum(axis=1))) > 3


@pytest.mark.parametrize("name", SKYMAZES + NATLABS)
def test_the_player_never_starts_in_the_air(name):
    pos, z, lv = starts(name)
    ground = np.asarray(jax.vmap(lambda f, r, p: footprint_ground(f, r, p[0], p[1]))(lv.floor_z, lv.rows, pos))
    np.testing.assert_array_equal(z, ground)     # standing on the highest ground under its box
    assert (ground > NO_FLOOR).all()


@pytest.mark.parametrize("name", NATLABS)
def test_natlab_levels_carry_the_layout(name):
    lv = levels(name)
    variant = VARIANTS[name]
    assert np.array_equal(lv.cells[0] == CELL_FLOOR, playable_cells(variant)) and (lv.cells == lv.cells[0]).all()
    mushroom = lv.pickup_kind == PICKUP_INDEX["mushroom"]
    assert (lv.pickup_reward[mushroom] == 1).all() and lv.pickup_takeable[mushroom].all()
    assert not lv.pickup_takeable[~mushroom].any() and (lv.pickup_reward[~mushroom] == 0).all()
    regrows = lv.pickup_respawn_frames[mushroom & lv.pickup_valid]
    if variant.regrow:
        assert regrows.min() >= 24 * 60 and regrows.max() <= 108 * 60
    else:
        assert (regrows == -1).all()
    # mushrooms and spawns on walkable playable ground, clear of every solid obstacle
    for points, valid in ((lv.pickup_pos, mushroom & lv.pickup_valid), (lv.spawn_pos, lv.spawn_allowed[:, 0])):
        rows = lv.rows[:, None]
        cell_r = (rows - 1 - np.floor(points[..., 1] / 100)).astype(int)
        cell_c = np.floor(points[..., 0] / 100).astype(int)
        on_floor = np.take_along_axis(lv.cells.reshape(EPISODES, -1), cell_r * lv.cells.shape[2] + cell_c, 1) == 0
        assert on_floor[valid].all()
        gap = np.linalg.norm(points[:, :, None] - lv.obstacle_pos[:, None], axis=-1)
        inside = (gap < lv.obstacle_radius[:, None] + PLAYER_RADIUS) & (lv.obstacle_radius[:, None] > 0)
        assert not (inside.any(axis=2) & valid).any()
    last = lv.obstacle_radius.shape[1]          # the obstacles are the last pickups, in their slots
    kinds = lv.pickup_kind[:, -last:]
    solid = np.isin(kinds, [PICKUP_INDEX["cactus"], PICKUP_INDEX["rock"]]) & lv.pickup_valid[:, -last:]
    assert np.array_equal(lv.obstacle_radius > 0, solid) and (kinds != PICKUP_INDEX["mushroom"]).all()
    assert set(np.unique(lv.sky)) == {SKY_INDEX[s] for s in ("desert_day", "desert_dawn", "desert_night")}
    assert (lv.episode_seconds == 120).all() and lv.jump_crouch.all()


def test_jump_and_crouch_do_nothing_in_skymaze():
    _, reset, step = skymaze_hard()
    state, _ = reset(jax.random.key(1))
    for action in (A.JUMP, A.CROUCH):
        press = np.zeros(7, np.int32)
        press[action] = 1
        after, ts = step(state, jnp.asarray(press))
        assert float(after.z) == float(state.z) == 800.0 and float(after.vz) == 0.0 and not bool(after.crouch)


@pytest.fixture(scope="module")
def walk():
    env, reset, _ = skymaze_hard()
    obs, rewards, route = walk_down(env, jax.random.key(5))
    state, _ = reset(jax.random.key(5))
    return np.stack([o["DEBUG.POS.TRANS"] for o in obs]), rewards, route, jax.device_get(env.level(state))


def test_a_walk_down_the_route_falls_onto_the_platforms_below_and_takes_the_goal(walk):
    pos, rewards, route, lv = walk
    z = cell_heights(lv)
    heights = [z[c] for c in route]
    assert heights[0] == 800.0 and heights == sorted(heights, reverse=True) and heights[-1] < 700.0
    assert rewards.sum() == 100.0 and rewards[-1] == 100.0      # the goal pays and ends the episode
    ground = np.asarray([footprint_ground(lv.floor_z, lv.rows, p[0], p[1]) for p in pos])
    assert (pos[:, 2] >= ground - 1e-3).all()                   # never under the ground
    standing = np.isclose(pos[:, 2], ground)
    assert set(np.unique(pos[standing, 2])) == set(heights)      # it stood on every platform of the route
    drops = np.flatnonzero(np.diff(pos[:, 2]) < -STEP_HEIGHT)
    assert len(drops) and all(standing[d + 1:].any() for d in drops)


def test_a_rise_of_one_level_cannot_be_climbed(walk):
    pos, rewards, route, lv = walk
    _, reset, step = skymaze_hard()
    state, _ = reset(jax.random.key(5))
    z = cell_heights(lv)
    # stand on the first platform of the route a level or more below its predecessor, facing back
    k = next(i for i in range(1, len(route)) if z[route[i]] < z[route[i - 1]])
    rows = int(lv.rows)
    here = np.asarray([(route[k][1] + 0.5) * 100, (rows - 1 - route[k][0] + 0.5) * 100], np.float32)
    back = np.asarray([(route[k - 1][1] + 0.5) * 100, (rows - 1 - route[k - 1][0] + 0.5) * 100], np.float32)
    yaw = np.degrees(np.arctan2(*(back - here)[::-1]))
    state = state.replace(pos=jnp.asarray(here), z=jnp.float32(z[route[k]]), yaw=jnp.float32(yaw))
    forward = jnp.asarray([0, 0, 0, 1, 0, 0, 0], jnp.int32)
    for _ in range(20):
        state, _ = step(state, forward)
    assert float(state.z) == z[route[k]] and cell_at(lv, np.asarray(state.pos)) == route[k]


def _take_first_mushroom_and_wait(name, seconds):
    """(rewards float32[T] over ``seconds`` of standing on the level's first mushroom, its respawn frames)."""
    env = jaxlab.make(name, width=8, height=6, action_repeat=4, observations=("DEBUG.POS.TRANS",))
    state, _ = jax.jit(env.reset)(jax.random.key(2))
    lv = env.level(state)
    state = state.replace(pos=lv.pickup_pos[0], z=footprint_ground(lv.floor_z, lv.rows, *lv.pickup_pos[0]))
    noop = jnp.zeros(7, jnp.int32)
    steps = int(seconds * env.fps / env.action_repeat)
    _, rewards = jax.jit(lambda s: jax.lax.scan(lambda s, _: (lambda o: (o[0], o[1].reward))(env.step(s, noop)),
                                                s, None, length=steps))(state)
    return np.asarray(rewards), int(lv.pickup_respawn_frames[0])


@pytest.mark.parametrize("name", NATLABS)
def test_mushrooms_pay_and_regrow_after_about_a_minute_only_in_regrowth(name):
    rewards, respawn = _take_first_mushroom_and_wait(name, 115.0)
    assert rewards[0] == 1.0
    again = np.flatnonzero(rewards[1:] == 1.0)
    if VARIANTS[name].regrow:
        assert 24 * 60 <= respawn <= 108 * 60 and len(again)
        assert abs((again[0] + 1) * 4 - respawn) <= 4          # back after its delay, in the same place
    else:
        assert respawn == -1 and not len(again)
    assert set(np.unique(rewards)) <= {0.0, 1.0}


def test_day_dawn_and_night_change_the_frame():
    lv = jax.tree_util.tree_map(lambda a: jnp.asarray(a[0]), levels("natlab_varying_map_regrowth"))
    pos = lv.spawn_pos[0]
    cam = Camera(pos=jnp.asarray(pos), eye_z=ground_at(lv.floor_z, lv.rows, *pos) + 26.0, yaw=jnp.float32(30.0),
                 pitch=jnp.float32(-5.0))
    render = jax.jit(lambda sky: render_first_person(lv.replace(sky=sky), cam, np.zeros(1, bool), lv.pickup_pos,
                                                     lv.pickup_valid, width=48, height=36, with_depth=False))
    frames = {sky: np.asarray(render(jnp.int32(SKY_INDEX[sky]))).astype(float)
              for sky in ("desert_day", "desert_dawn", "desert_night")}
    day, dawn, night = frames.values()
    assert (day != dawn).mean() > 0.5 and (day != night).mean() > 0.5 and (dawn != night).mean() > 0.5
    assert night.mean() < 0.5 * day.mean() and night.mean() < dawn.mean()


@pytest.mark.parametrize("name", ["skymaze_irreversible_path_hard", "natlab_varying_map_randomized"])
def test_a_generators_known_ground_draws_the_same_frames(name):
    """The env tells the renderer what its levels stand on (slabs, terrain); drawing only that kind gives
    the frames of the general view, which decides per level."""
    pos, z, lv = starts(name)
    ground = jaxlab.levels.dmlab.dmlab30.generators()[name].ground
    assert ground in (GROUND_SLABS, GROUND_TERRAIN)

    def frame(level, p, eye, yaw, known):
        cam = Camera(pos=p, eye_z=eye + 26.0, yaw=yaw, pitch=jnp.float32(-12.0))
        return render_first_person(level, cam, jnp.zeros(level.door_valid.shape, bool), level.pickup_pos,
                                   level.pickup_valid, width=32, height=24, with_depth=True, ground=known)

    yaws = jnp.linspace(-180.0, 180.0, EPISODES, endpoint=False)
    frames = [jax.jit(jax.vmap(functools.partial(frame, known=known)))(lv, pos, z, yaws) for known in (None, ground)]
    np.testing.assert_array_equal(*frames)
    assert len(np.unique(np.asarray(frames[0])[..., :3].reshape(-1, 3), axis=0)) > 20
