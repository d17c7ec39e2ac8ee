"""DMLab-30 rooms_* levels as generators: layouts over many episodes, splits, and behaviour."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.level import CELL_SIZE, SHUT_LOCK, SWITCH_LOCK
from jaxlab.levels.dmlab.map_parser import CELL_WALL
from jaxlab.levels.dmlab.dmlab30 import collect_good_objects as cgo
from jaxlab.levels.dmlab.dmlab30 import deferred_effects as de
from jaxlab.levels.dmlab.dmlab30 import looks
from jaxlab.levels.dmlab.dmlab30 import select_nonmatching as sn
from jaxlab.levels.dmlab.dmlab30 import watermaze as wm

GENERATORS = {**cgo.GENERATORS, **de.GENERATORS, **sn.GENERATORS, **wm.GENERATORS}
EPISODES = 10_000
NOOP = jnp.zeros(7, jnp.int32)
SETTLE_STEPS = 16           # x 4 frames: a little over a second of game time


@pytest.fixture(scope="module")
def batches():
    """name -> EPISODES Levels (numpy), each generator's drawn in one batched jitted call."""
    keys = jax.random.split(jax.random.PRNGKey(7), EPISODES)
    out = {}
    for name, gen in GENERATORS.items():
        out[name] = jax.tree_util.tree_map(np.asarray, jax.jit(jax.vmap(gen.episode, (0, None)))(keys, 0))
    return out


def cell_of(xy, rows):
    """int (row, col) arrays of the cells holding world points ``xy`` [..., 2]."""
    col = np.floor(xy[..., 0] / CELL_SIZE).astype(int)
    row = (rows - 1 - np.floor(xy[..., 1] / CELL_SIZE)).astype(int)
    return row, col


def is_wall(levels, xy):
    """bool[B, K]: the points ``xy`` [B, K, 2] sit in a wall cell of their level."""
    rows = levels.cells.shape[1]
    row, col = cell_of(xy, rows)
    b = np.arange(xy.shape[0])[:, None]
    return levels.cells[b, row, col] == CELL_WALL


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_objects_and_spawns_sit_on_open_floor(batches, name):
    levels = batches[name]
    assert not (is_wall(levels, levels.pickup_pos) & levels.pickup_valid).any()
    assert not (is_wall(levels, levels.spawn_pos) & levels.spawn_allowed[:, 0]).any()
    assert not (is_wall(levels, levels.teleport_pos) & (levels.pickup_teleport >= 0).any(1)[:, None]).any()
    # valid pickups and spawns never share a spot
    pts = np.concatenate([levels.pickup_pos, levels.spawn_pos], 1)
    ok = np.concatenate([levels.pickup_valid, levels.spawn_allowed[:, 0]], 1)
    d = np.linalg.norm(pts[:, :, None] - pts[:, None], axis=-1)
    same = (d < 1.0) & ok[:, :, None] & ok[:, None] & ~np.eye(pts.shape[1], dtype=bool)
    assert not same.any()


def collect_config(levels):
    """int[B]: the CONFIGS row of each collect-good-objects level (bad kind, good kind, theme)."""
    bad, good, theme = levels.pickup_kind[:, 0], levels.pickup_kind[:, cgo.NUM_EACH], levels.theme
    out = np.full(bad.shape, -1)
    for i, (a, b, look) in enumerate(cgo.CONFIGS):
        hit = ((bad == int(looks.collect_object_kind(a))) & (good == int(looks.collect_object_kind(b)))
               & (theme == looks.COLLECT_LOOKS[look][0]))
        out[hit] = i
    return out


def test_collect_good_objects_split(batches):
    train = collect_config(batches["rooms_collect_good_objects_train"])
    test = collect_config(batches["rooms_collect_good_objects_test"])
    assert (test == 3).all()
    assert set(np.unique(train)) == {0, 1, 2}
    assert np.abs(np.bincount(train) / EPISODES - 1 / 3).max() < 0.03
    for levels in (batches["rooms_collect_good_objects_train"], batches["rooms_collect_good_objects_test"]):
        assert levels.pickup_valid.sum(1).min() == 20 and levels.pickup_counts.all()
        assert (levels.end_after_pickups == 10).all()
        assert (levels.pickup_reward[:, :10] == -1).all() and (levels.pickup_reward[:, 10:] == 1).all()
        # the look's wall letter goes with its theme
        letter = levels.variation[:, 0, 0]
        for theme, code in looks.COLLECT_LOOKS:
            assert (letter[levels.theme == theme] == looks.variation_code(code)).all()


def test_deferred_effects_split(batches):
    box = de.NUM_APPLES
    for name, expect in (("rooms_exploit_deferred_effects_train", False),
                         ("rooms_exploit_deferred_effects_test", True)):
        levels = batches[name]
        held_out = levels.pickup_valid[:, box] & levels.door_valid[:, 0] & (levels.door_lock[:, 0] == SWITCH_LOCK)
        assert (held_out == expect).all()
    train = batches["rooms_exploit_deferred_effects_train"]
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


def test_watermaze_platform_is_hidden(batches):
    levels = batches["rooms_watermaze"]
    assert not levels.pickup_valid.any()
    assert (levels.cells == wm.ARENA).all() and (levels.variation == levels.variation[0]).all()
    r = np.linalg.norm(levels.platform_pos - wm.CENTRE, axis=-1)
    assert r.max() <= wm.PLATFORM_DISC + 1e-3
    assert abs(np.mean(r ** 2) / wm.PLATFORM_DISC ** 2 - 0.5) < 0.02     # uniform over the disc
    assert (levels.platform_radius == 64).all()
    # the rendered frame does not depend on where the platform is
    env = FirstPersonEnv(generator=GENERATORS["rooms_watermaze"], width=32, height=24)
    state, _ = env.reset(jax.random.PRNGKey(0))
    level = state.episode_level
    state = state.replace(pos=jnp.asarray(wm.STARTS[4]), yaw=jnp.float32(0.0), pitch=jnp.float32(-20.0))
    observe = jax.jit(env.observe)
    here = observe(state.replace(episode_level=level.replace(platform_pos=jnp.asarray(wm.CENTRE))))
    there = observe(state.replace(episode_level=level.replace(platform_pos=jnp.asarray(wm.CENTRE) + 300.0)))
    assert np.array_equal(here["RGB_INTERLEAVED"], there["RGB_INTERLEAVED"])


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_same_key_same_episode(name):
    gen = GENERATORS[name]
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    eager = gen.episode(keys[5], jnp.int32(0))
    jitted = jax.jit(gen.episode)(keys[5], jnp.int32(0))
    one = jax.vmap(gen.episode, (0, None))(keys[5:6], jnp.int32(0))
    eight = jax.jit(jax.vmap(gen.episode, (0, None)))(keys, jnp.int32(0))
    for a, b, c, d in zip(*(jax.tree_util.tree_leaves(t) for t in (eager, jitted, one, eight))):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c[0])
        np.testing.assert_array_equal(a, d[5])


class Player:
    """A FirstPersonEnv of one generator (no frames) with a jitted reset and a jitted 'stand still'."""

    def __init__(self, name):
        self.env = FirstPersonEnv(generator=GENERATORS[name], observations=("DEBUG.POS.TRANS",), action_repeat=4)
        self.reset = jax.jit(lambda key: self.env.reset(key)[0])

        def settle(state):
            def body(carry, _):
                state, total, last = carry
                state, ts = self.env.step(state, NOOP)
                return (state, total + ts.reward, last | ts.last()), None
            return jax.lax.scan(body, (state, jnp.float32(0.0), jnp.bool_(False)), None, SETTLE_STEPS)[0]

        self.settle = jax.jit(settle)

    def stand_on(self, state, xy):
        """Put the player at ``xy`` and stand still: (state, reward summed, episode ended)."""
        return self.settle(state.replace(pos=jnp.asarray(xy, jnp.float32), vel=jnp.zeros(2)))

    def state_for(self, accept, tries=64):
        """A reset state whose Level satisfies ``accept(level)`` (host-side)."""
        for i in range(tries):
            state = self.reset(jax.random.PRNGKey(i))
            if accept(state.episode_level):
                return state
        raise AssertionError("no episode of the wanted kind")


def test_collect_good_objects_rewards_and_end():
    player = Player("rooms_collect_good_objects_train")
    state = player.reset(jax.random.PRNGKey(1))
    pos = np.asarray(state.episode_level.pickup_pos)
    _, bad, ended = player.stand_on(state, pos[0])
    assert float(bad) == -1.0 and not ended
    _, good, ended = player.stand_on(state, pos[cgo.NUM_EACH])
    assert float(good) == 1.0 and not ended
    total = 0.0
    for i in range(10):                      # 5 bad and 5 good: the 10th pickup ends the episode
        assert not bool(state.done)
        state, reward, ended = player.stand_on(state, pos[i // 2 + (i % 2) * cgo.NUM_EACH])
        total += float(reward)
        assert bool(ended) == (i == 9)
    assert total == 0.0 and bool(state.finished)


def test_deferred_effects_box_and_door():
    test = Player("rooms_exploit_deferred_effects_test")
    state = test.reset(jax.random.PRNGKey(0))
    level = state.episode_level
    box = de.NUM_APPLES
    near_door = de.centres([(3, 5)], de.TWO_ROOMS.shape[0])[0]
    shut, _, _ = test.stand_on(state, near_door)
    assert float(shut.door_open[0]) == 0.0
    _, apple, _ = test.stand_on(state, level.pickup_pos[0])
    assert float(apple) == 1.0
    _, cake, _ = test.stand_on(state, level.pickup_pos[box + 1])
    assert float(cake) == 10.0
    state, cost, _ = test.stand_on(state, level.pickup_pos[box])
    assert float(cost) == -3.0 and bool(state.switched) and int(state.door_lock[0]) == 0
    state, _, _ = test.stand_on(state, near_door)
    assert float(state.door_open[0]) == 1.0

    train = Player("rooms_exploit_deferred_effects_train")
    state = train.state_for(lambda lv: int(lv.door_lock[0]) == SHUT_LOCK and bool(lv.door_valid[0]))
    for _ in range(3):
        state, _, _ = train.stand_on(state, near_door)
        assert float(state.door_open[0]) == 0.0


def test_select_nonmatching_trial():
    player = Player("rooms_select_nonmatching_object")
    start = player.reset(jax.random.PRNGKey(2))
    level = start.episode_level
    match = int(level.pickup_kind[sn.MATCH_ROW])
    assert int(level.pickup_kind[sn.NONMATCH_ROW]) != match
    assert float(start.yaw) == sn.NORTH and np.allclose(start.pos, sn.SPAWN[0])
    state, pad, _ = player.stand_on(start, level.pickup_pos[sn.PAD_ROW])
    assert float(pad) == 1.0 and np.allclose(state.pos, sn.ENTRY[0]) and float(state.yaw) == sn.NORTH
    for row, reward in ((sn.NONMATCH_ROW, 10.0), (sn.MATCH_ROW, -10.0)):
        after, got, ended = player.stand_on(state, level.pickup_pos[row])
        assert float(got) == reward and not ended
        assert np.allclose(after.pos, sn.SPAWN[0])           # back in room 1
        new = after.episode_level
        assert int(new.pickup_kind[sn.MATCH_ROW]) == match
        shown = np.asarray(new.pickup_valid[sn.EXAMPLES])
        assert shown.sum() == 1 and (np.asarray(new.pickup_kind[sn.EXAMPLES]) == match).all()
        assert int(new.pickup_kind[sn.NONMATCH_ROW]) != match
        assert not np.asarray(new.pickup_takeable[sn.EXAMPLES]).any()
    # the example is never taken, and the pad is back for the next trial
    _, nothing, _ = player.stand_on(start, level.pickup_pos[int(np.argmax(level.pickup_valid[:2]))])
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
    player = Player("rooms_watermaze")
    state = player.reset(jax.random.PRNGKey(9))
    level = state.episode_level
    assert np.isclose(np.linalg.norm(state.pos - wm.CENTRE), wm.START_RADIUS, atol=1e-2)
    state, reward, ended = player.stand_on(state, level.platform_pos)
    assert float(reward) == wm.PLATFORM_REWARD and not ended
    start = int(np.argmin(np.linalg.norm(wm.STARTS - np.asarray(state.pos), axis=-1)))
    assert np.allclose(state.pos, wm.STARTS[start], atol=1e-3)
    to_centre = np.rad2deg(np.arctan2(*(wm.CENTRE - wm.STARTS[start])[::-1]))
    assert abs((float(state.yaw) - to_centre + 180) % 360 - 180) < 1e-3
    _, again, _ = player.stand_on(state, state.pos)   # a start is never on the platform
    assert float(again) == 0.0
