"""DMLab-30 rooms_* levels as generators: 10k episodes per level drawn in one batched call
(layout, reachability, rewards, train/test splits) and short drives showing each mechanic."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.levels.dmlab.dmlab30 import collect_good_objects as cgo, deferred_effects as de, generators, looks
from jaxlab.levels.dmlab.dmlab30 import select_nonmatching as sn, watermaze as wm
from jaxlab.levels.dmlab.level import CELL_SIZE
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.object_catalogue import SHUT_LOCK, SWITCH_LOCK, TELEPORT_PAD_KIND
from jaxlab.levels.dmlab.procedural.cells import cell_centre_xy, flood_fill

GENERATORS = {**cgo.GENERATORS, **de.GENERATORS, **sn.GENERATORS, **wm.GENERATORS}
EPISODES = 10_000
NOOP = jnp.zeros(7, jnp.int32)
SETTLE_STEPS = 16           # x 4 frames: a little over a second of game time


def _cell_mask(xy, valid, shape):
    """bool[H, W]: the cells holding the valid points ``xy`` float32[K, 2]."""
    col = jnp.floor(xy[:, 0] / CELL_SIZE).astype(jnp.int32)
    row = (shape[0] - 1 - jnp.floor(xy[:, 1] / CELL_SIZE)).astype(jnp.int32)
    return jnp.zeros(shape, bool).at[jnp.where(valid, row, shape[0]), col].set(True, mode="drop")


def _reachable(level, closed_locks):
    """bool[H, W]: cells the player can walk to from a spawn, doors whose lock satisfies
    ``closed_locks(lock)`` being walls; a teleport pad reached adds its destination."""
    shape = level.cells.shape
    lock = level.door_lock[jnp.maximum(level.door_index, 0)]
    open_ = (level.cells != CELL_WALL) & ~((level.door_index >= 0) & closed_locks(lock))
    reached = flood_fill(open_, _cell_mask(level.spawn_pos, level.spawn_allowed[0], shape))
    row, col = ((shape[0] - 1 - jnp.floor(level.pickup_pos[:, 1] / CELL_SIZE)).astype(jnp.int32),
                jnp.floor(level.pickup_pos[:, 0] / CELL_SIZE).astype(jnp.int32))
    pad = level.pickup_valid & (level.pickup_teleport >= 0) & reached[row, col]
    dest = level.teleport_pos[jnp.maximum(level.pickup_teleport, 0)]
    return flood_fill(open_, reached | _cell_mask(dest, pad, shape))


@jax.jit
@jax.vmap
def _reach_both(level):
    """Two reachability masks bool[H, W] of a Level (batched): doors that never open closed
    (reach), and every locked door closed (reach_now, before any switch is thrown)."""
    return _reachable(level, lambda k: k == SHUT_LOCK), _reachable(level, lambda k: k != 0)


@pytest.fixture(scope="module")
def batches():
    """name -> (Levels, reach, reach_now) as numpy: EPISODES episodes per generator, drawn in one
    batched jitted call each (reachability: a second call, taking the Levels as arguments)."""
    keys = jax.random.split(jax.random.PRNGKey(7), EPISODES)
    out = {}
    for name, gen in GENERATORS.items():
        levels = jax.jit(jax.vmap(gen.episode, (0, None)))(keys, 0)
        out[name] = jax.tree_util.tree_map(np.asarray, (levels, *_reach_both(levels)))
    return out


def cell_of(xy, rows):
    """int (row, col) arrays of the cells holding world points ``xy`` [..., 2]."""
    return (rows - 1 - np.floor(xy[..., 1] / CELL_SIZE)).astype(int), np.floor(xy[..., 0] / CELL_SIZE).astype(int)


def at_cells(grid, xy):
    """grid[b, cell of xy[b, k]] for grid [B, H, W] and points xy [B, K, 2] -> [B, K]."""
    row, col = cell_of(xy, grid.shape[1])
    return grid[np.arange(xy.shape[0])[:, None], row, col]


def test_registered_under_dmlab30_names():
    for name, gen in GENERATORS.items():
        assert generators()[name] is gen and gen.name == name
    assert "rooms_collect_good_objects_test" in GENERATORS and "rooms_exploit_deferred_effects_test" in GENERATORS


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_objects_on_open_floor_and_reachable(batches, name):
    levels, reach, reach_now = batches[name]
    wall = levels.cells == CELL_WALL
    assert not (at_cells(wall, levels.pickup_pos) & levels.pickup_valid).any()
    assert not (at_cells(wall, levels.spawn_pos) & levels.spawn_allowed[:, 0]).any()
    used = (levels.pickup_teleport >= 0) & levels.pickup_valid
    assert not (at_cells(wall, levels.teleport_pos) & used.any(1)[:, None]).any()
    # valid pickups and spawns never share a spot
    pts = np.concatenate([levels.pickup_pos, levels.spawn_pos], 1)
    ok = np.concatenate([levels.pickup_valid, levels.spawn_allowed[:, 0]], 1)
    d = np.linalg.norm(pts[:, :, None] - pts[:, None], axis=-1)
    assert not ((d < 1.0) & ok[:, :, None] & ok[:, None] & ~np.eye(pts.shape[1], dtype=bool)).any()
    # every takeable object can be reached (doors that never open excepted), switches without one
    takeable = levels.pickup_valid & levels.pickup_takeable
    lost = takeable & ~at_cells(reach, levels.pickup_pos)
    if name == "rooms_exploit_deferred_effects_train":   # the cakes behind the shut door
        shut = levels.door_valid[:, 0] & (levels.door_lock[:, 0] == SHUT_LOCK)
        assert (lost == (shut[:, None] & (np.arange(lost.shape[1]) > de.NUM_APPLES))).all()
    else:
        assert not lost.any()
    assert (at_cells(reach_now, levels.pickup_pos) | ~(levels.pickup_switch & levels.pickup_valid)).all()
    assert at_cells(reach, levels.spawn_pos[:, :1]).all()
    if name == "rooms_watermaze":
        assert at_cells(reach, levels.platform_pos[:, None]).all()


def collect_config(levels):
    """int[B]: the CONFIGS row of each collect-good-objects level (bad kind, good kind, look)."""
    bad, good, theme = levels.pickup_kind[:, 0], levels.pickup_kind[:, cgo.NUM_EACH], levels.theme
    out = np.full(bad.shape, -1)
    for i, (a, b, look) in enumerate(cgo.CONFIGS):
        hit = ((bad == int(looks.collect_object_kind(a))) & (good == int(looks.collect_object_kind(b)))
               & (theme == looks.COLLECT_LOOKS[look][0]))
        out[hit] = i
    return out


def test_collect_good_objects_counts_and_split(batches):
    train = collect_config(batches["rooms_collect_good_objects_train"][0])
    test = collect_config(batches["rooms_collect_good_objects_test"][0])
    assert (test == 3).all()                                 # the held-out pair and look
    assert set(np.unique(train)) == {0, 1, 2}                # never the held-out one
    assert np.abs(np.bincount(train) / EPISODES - 1 / 3).max() < 0.03
    assert len({int(looks.collect_object_kind(o)) for o in range(4)}) == 4
    slots = {tuple(p) for p in cgo.grid_slots()}
    for name in cgo.GENERATORS:
        levels = batches[name][0]
        assert (levels.pickup_valid.sum(1) == 20).all() and levels.pickup_counts.all()
        assert (levels.end_after_pickups == 10).all() and (levels.episode_seconds == 60).all()
        assert (levels.pickup_reward[:, :10] == -1).all() and (levels.pickup_reward[:, 10:] == 1).all()
        assert not levels.pickup_is_goal.any() and (levels.pickup_respawn_frames == -1).all()
        assert {tuple(p) for p in levels.pickup_pos[:50].reshape(-1, 2)} <= slots
        letter = levels.variation[:, 0, 0]                   # the look's wall letter goes with its theme
        for theme, code in looks.COLLECT_LOOKS:
            assert (letter[levels.theme == theme] == looks.variation_code(code)).all()


def test_deferred_effects_counts_and_split(batches):
    box = de.NUM_APPLES
    for name, held_out in (("rooms_exploit_deferred_effects_train", False),
                           ("rooms_exploit_deferred_effects_test", True)):
        levels = batches[name][0]
        combo = levels.pickup_valid[:, box] & levels.door_valid[:, 0] & (levels.door_lock[:, 0] == SWITCH_LOCK)
        assert (combo == held_out).all()
        assert (levels.pickup_reward[:, :box] == 1).all() and (levels.pickup_reward[:, box] == -3).all()
        assert (levels.pickup_reward[:, box + 1:] == 10).all() and levels.pickup_switch[:, box].all()
        assert levels.pickup_counts.all() and (levels.end_after_pickups == 10).all()
        assert (levels.episode_seconds == 60).all() and levels.pickup_valid[:, :box].all()
        assert (levels.switch_theme[levels.pickup_valid[:, box]] == looks.DEFERRED_BRIGHT_THEME).all()
    train = batches["rooms_exploit_deferred_effects_train"][0]
    one_room = ~train.door_valid[:, 0]
    shut = train.door_valid[:, 0] & (train.door_lock[:, 0] == SHUT_LOCK)
    open_ = train.door_valid[:, 0] & (train.door_lock[:, 0] == 0)
    assert (one_room | shut | open_).all()
    for part in (one_room, shut, open_):
        assert abs(part.mean() - 1 / 3) < 0.03
    assert (train.pickup_valid[:, box] == one_room).all()
    assert (train.theme[open_] == looks.DEFERRED_BRIGHT_THEME).all()
    assert (train.theme[~open_] == looks.DEFERRED_DARK_THEME).all()
    assert (train.pickup_valid[:, box + 1:].all(1) == ~one_room).all()
    assert not train.pickup_valid[one_room, box + 1:].any()


def test_select_nonmatching_counts(batches):
    levels = batches["rooms_select_nonmatching_object"][0]
    kind, valid = levels.pickup_kind, levels.pickup_valid
    assert (levels.episode_seconds == sn.EPISODE_SECONDS).all() and (levels.spawn_yaw == sn.NORTH).all()
    assert (valid[:, sn.EXAMPLES].sum(1) == 1).all() and not levels.pickup_takeable[:, sn.EXAMPLES].any()
    assert (kind[:, sn.EXAMPLES] == kind[:, sn.MATCH_ROW, None]).all()
    assert (kind[:, sn.NONMATCH_ROW] != kind[:, sn.MATCH_ROW]).all()
    assert len(np.unique(kind[:, sn.MATCH_ROW])) == looks.NUM_CHOICE_OBJECTS
    assert (kind[:, sn.PAD_ROW] == TELEPORT_PAD_KIND).all() and (levels.pickup_teleport[:, sn.PAD_ROW] == 0).all()
    assert (levels.pickup_reward[:, sn.PAD_ROW] == 1).all()
    assert (levels.pickup_reward[:, sn.MATCH_ROW] == -10).all()
    assert (levels.pickup_reward[:, sn.NONMATCH_ROW] == 10).all()
    assert levels.pickup_is_goal[:, [sn.MATCH_ROW, sn.NONMATCH_ROW]].all()
    # the choices are reachable only through the pad (room 2 is closed off from room 1)
    reach_walk = flood_fill(levels.cells[0] != CELL_WALL, np.asarray(
        _cell_mask(jnp.asarray(sn.SPAWN), jnp.ones(1, bool), levels.cells[0].shape)))
    assert not at_cells(np.asarray(reach_walk)[None], levels.pickup_pos[:1, sn.MATCH_ROW:]).any()


def test_watermaze_platform(batches):
    levels = batches["rooms_watermaze"][0]
    assert not levels.pickup_valid.any() and (levels.episode_seconds == 120).all()
    assert (levels.cells == wm.ARENA).all()
    r = np.linalg.norm(levels.platform_pos - wm.CENTRE, axis=-1)
    assert r.max() <= wm.PLATFORM_DISC + 1e-3
    assert abs(np.mean(r ** 2) / wm.PLATFORM_DISC ** 2 - 0.5) < 0.02     # uniform over the disc
    assert (levels.platform_radius == 64).all() and (levels.platform_reward == 5).all()
    # inside the arena: the platform's whole disc is on floor cells
    for dx, dy in ((64, 0), (-64, 0), (0, 64), (0, -64), (45, 45), (-45, -45), (45, -45), (-45, 45)):
        assert not at_cells(levels.cells == CELL_WALL, (levels.platform_pos + [dx, dy])[:, None]).any()
    starts = levels.spawn_pos[0]
    assert levels.spawn_allowed.all() and np.allclose(np.linalg.norm(starts - wm.CENTRE, axis=-1), 700, atol=0.1)
    facing = np.rad2deg(np.arctan2(*(wm.CENTRE - starts).T[::-1]))
    assert np.allclose((levels.spawn_yaw[0] - facing + 180) % 360 - 180, 0, atol=1e-3)


def test_watermaze_platform_is_never_drawn():
    reset, _ = player("rooms_watermaze")
    state = reset(jax.random.PRNGKey(0))
    level = state.episode_level
    env = jaxlab.make("rooms_watermaze", width=16, height=12, observations=("RGBD_INTERLEAVED",))
    centre = jnp.asarray(wm.CENTRE)
    # looking down at the floor where the platform is, from beside it and from a start point; the
    # same views with the platform far away and of radius 0
    views = jnp.stack([centre - jnp.array([120.0, 0.0]), jnp.asarray(wm.STARTS[4])])
    where = jnp.stack([centre, centre + 2000.0])
    radius = jnp.array([64.0, 0.0])

    def frame(pos, xy, r):
        st = state.replace(pos=pos, yaw=jnp.float32(0.0), pitch=jnp.float32(-30.0),
                           episode_level=level.replace(platform_pos=xy, platform_radius=r))
        return env.observe(st)["RGBD_INTERLEAVED"]

    frames = np.asarray(jax.jit(jax.vmap(jax.vmap(frame, (None, 0, 0)), (0, None, None)))(views, where, radius))
    assert np.array_equal(frames[:, 0], frames[:, 1]) and frames[:, 0].std() > 0


def test_same_key_same_episode(batches):
    """One episode drawn alone (jitted) equals the same key's episode in the 10k batch."""
    keys = jax.random.split(jax.random.PRNGKey(7), EPISODES)
    for name, gen in GENERATORS.items():
        one = jax.jit(gen.episode)(keys[5], jnp.int32(0))
        for a, b in zip(jax.tree_util.tree_leaves(one), jax.tree_util.tree_leaves(batches[name][0])):
            np.testing.assert_array_equal(np.asarray(a), b[5])


@functools.lru_cache(maxsize=None)
def player(name):
    """A jitted (reset, settle) pair of ``jaxlab.make(name)`` (16 x 12, position only)."""
    env = jaxlab.make(name, width=16, height=12, observations=("DEBUG.POS.TRANS",), action_repeat=4)

    def settle(state, xy):
        def body(carry, _):
            state, total, last = carry
            state, ts = env.step(state, NOOP)
            return (state, total + ts.reward, last | ts.last()), None
        state = state.replace(pos=jnp.asarray(xy, jnp.float32), vel=jnp.zeros(2))
        return jax.lax.scan(body, (state, jnp.float32(0.0), jnp.bool_(False)), None, SETTLE_STEPS)[0]

    return jax.jit(lambda key: env.reset(key)[0]), jax.jit(settle)


def test_collect_good_objects_rewards_and_end():
    reset, stand_on = player("rooms_collect_good_objects_test")
    state = reset(jax.random.PRNGKey(1))
    pos = np.asarray(state.episode_level.pickup_pos)
    total = 0.0
    for i in range(10):                      # 5 bad and 5 good: the 10th pickup ends the episode
        assert not bool(state.done)
        state, reward, ended = stand_on(state, pos[i // 2 + (i % 2) * cgo.NUM_EACH])
        assert float(reward) == (-1.0 if i % 2 == 0 else 1.0)
        total += float(reward)
        assert bool(ended) == (i == 9)
    assert total == 0.0 and bool(state.finished)


def test_deferred_effects_box_opens_door_and_switches_theme():
    reset, stand_on = player("rooms_exploit_deferred_effects_test")
    state = reset(jax.random.PRNGKey(0))
    level = state.episode_level
    box = de.NUM_APPLES
    near_door = np.asarray(cell_centre_xy(np.array([3, 5]), de.TWO_ROOMS.shape[0]))
    assert int(level.theme) == looks.DEFERRED_DARK_THEME and int(level.switch_theme) == looks.DEFERRED_BRIGHT_THEME
    shut, _, _ = stand_on(state, near_door)
    assert float(shut.door_open[0]) == 0.0 and not bool(shut.switched)
    _, apple, _ = stand_on(state, level.pickup_pos[0])
    assert float(apple) == 1.0
    state, cost, _ = stand_on(state, level.pickup_pos[box])
    assert float(cost) == -3.0 and bool(state.switched) and int(state.door_lock[0]) == 0
    state, _, _ = stand_on(state, near_door)
    assert float(state.door_open[0]) == 1.0
    state, cake, _ = stand_on(state, level.pickup_pos[box + 1])
    assert float(cake) == 10.0
    # a door that never opens (train config 2) stays shut however long one waits by it
    never = state.replace(door_lock=jnp.full_like(state.door_lock, SHUT_LOCK),
                          door_open=jnp.zeros_like(state.door_open))
    for _ in range(2):
        never, _, _ = stand_on(never, near_door)
        assert float(never.door_open[0]) == 0.0


def test_select_nonmatching_teleport_then_choice():
    reset, stand_on = player("rooms_select_nonmatching_object")
    start = reset(jax.random.PRNGKey(2))
    level = start.episode_level
    match = int(level.pickup_kind[sn.MATCH_ROW])
    assert float(start.yaw) == sn.NORTH and np.allclose(start.pos, sn.SPAWN[0])
    state, pad, _ = stand_on(start, level.pickup_pos[sn.PAD_ROW])
    assert float(pad) == 1.0 and np.allclose(state.pos, sn.ENTRY[0]) and float(state.yaw) == sn.NORTH
    for row, reward in ((sn.NONMATCH_ROW, 10.0), (sn.MATCH_ROW, -10.0)):
        after, got, ended = stand_on(state, level.pickup_pos[row])
        assert float(got) == reward and not ended
        assert np.allclose(after.pos, sn.SPAWN[0])           # back in room 1, a new trial
        new = after.episode_level
        assert int(new.pickup_kind[sn.MATCH_ROW]) == match and int(new.pickup_kind[sn.NONMATCH_ROW]) != match
        shown = np.asarray(new.pickup_valid[sn.EXAMPLES])
        assert shown.sum() == 1 and (np.asarray(new.pickup_kind[sn.EXAMPLES]) == match).all()
    # the example is shown, never taken
    _, nothing, _ = stand_on(start, level.pickup_pos[int(np.argmax(level.pickup_valid[:2]))])
    assert float(nothing) == 0.0


def test_select_nonmatching_restart_redraws():
    gen = GENERATORS["rooms_select_nonmatching_object"]
    level = gen.episode(jax.random.PRNGKey(4), 0)
    keys = jax.random.split(jax.random.PRNGKey(5), 2000)
    trials = jax.jit(jax.vmap(gen.restart, (None, 0, None)))(level, keys, 0)
    kinds = np.asarray(trials.pickup_kind)
    assert (kinds[:, sn.MATCH_ROW] == int(level.pickup_kind[sn.MATCH_ROW])).all()
    assert (kinds[:, sn.NONMATCH_ROW] != kinds[:, sn.MATCH_ROW]).all()
    assert len(np.unique(kinds[:, sn.NONMATCH_ROW])) == looks.NUM_CHOICE_OBJECTS - 1
    assert 0.45 < np.mean(np.asarray(trials.pickup_pos)[:, sn.MATCH_ROW, 0] < 600) < 0.55
    assert 0.45 < np.mean(np.asarray(trials.pickup_valid)[:, 0]) < 0.55


def test_watermaze_platform_pays_and_respawns():
    reset, stand_on = player("rooms_watermaze")
    state = reset(jax.random.PRNGKey(9))
    level = state.episode_level
    assert np.isclose(np.linalg.norm(state.pos - wm.CENTRE), wm.START_RADIUS, atol=1e-2)
    state, reward, ended = stand_on(state, level.platform_pos)
    assert float(reward) == wm.PLATFORM_REWARD and not ended
    start = int(np.argmin(np.linalg.norm(wm.STARTS - np.asarray(state.pos), axis=-1)))
    assert np.allclose(state.pos, wm.STARTS[start], atol=1e-3)
    to_centre = np.rad2deg(np.arctan2(*(wm.CENTRE - wm.STARTS[start])[::-1]))
    assert abs((float(state.yaw) - to_centre + 180) % 360 - 180) < 1e-3
    assert np.array_equal(state.episode_level.platform_pos, level.platform_pos)   # same place all episode
    _, again, _ = stand_on(state, state.pos)   # a start is never on the platform
    assert float(again) == 0.0
