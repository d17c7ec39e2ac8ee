"""Wrappers: AutoReset, DiscreteActions, GymnaxAdapter and DmEnv."""
import functools

import chex
import dm_env
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from absl.testing import absltest
from dm_env import test_utils

import jaxlab
from jaxlab.env import Env
from jaxlab.levels.dmlab.actions import DISCRETE_ACTION_TABLE
from jaxlab.types import DiscreteArraySpec, StepType
from jaxlab.wrappers import AutoReset, Box, Dict, Discrete, DiscreteActions, DmEnv, GymnaxAdapter, Wrapper

# An arena with apples around the spawn; 0.1 s episodes at 60 fps = 6 frames = 3 steps of 2 frames.
ARENA = """
*******
*AAAAA*
*AAPAA*
*AAAAA*
*******
"""
EPISODE_STEPS = 3
POS = ("DEBUG.POS.TRANS",)  # no rendering: quick to compile
OBS = ("RGB_INTERLEAVED", "DEBUG.POS.TRANS")
FORWARD = np.array([0, 0, 0, 1, 0, 0, 0], np.int32)


@functools.lru_cache(maxsize=None)
def _arena_path():
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="jaxlab_wrap_")) / "arena.txt"
    path.write_text(ARENA)
    return str(path)


@functools.lru_cache(maxsize=None)
def short_env(observations):
    """A 16×12 env whose episodes last EPISODE_STEPS steps of 2 frames (cached: one compile per test run)."""
    return jaxlab.make(_arena_path(), width=16, height=12, observations=observations, action_repeat=2,
                       episode_length_seconds=EPISODE_STEPS * 2 / 60)


@pytest.fixture(scope="module")
def wrap_env():
    return short_env(POS)


@pytest.fixture(scope="module")
def wrap_img_env():
    return short_env(OBS)


@pytest.fixture(scope="module")
def wrap_auto(wrap_env):
    env = AutoReset(wrap_env)
    return env, jax.jit(env.reset), jax.jit(env.step)


class CountObserve(Wrapper):
    """Counts (at trace time) how often ``observe`` is called."""

    def __init__(self, env):
        super().__init__(env)
        self.calls = 0

    def observe(self, state):
        self.calls += 1
        return self.env.observe(state)

    def time_step(self, state, step_type, reward, terminated, truncated):
        return jaxlab.Env.time_step(self, state, step_type, reward, terminated, truncated)


# -- AutoReset -------------------------------------------------------------------------------------

def test_bare_env_stays_last_but_autoreset_starts_over(wrap_env, wrap_auto):
    auto, reset, step = wrap_auto
    state, ts = reset(jax.random.PRNGKey(0))
    assert int(ts.step_type) == StepType.FIRST
    types = []
    for _ in range(EPISODE_STEPS):
        state, ts = step(state, FORWARD)
        types.append(int(ts.step_type))
    assert types == [StepType.MID] * (EPISODE_STEPS - 1) + [StepType.LAST]
    assert bool(state.done) and bool(ts.extras["truncated"]) and float(ts.discount) == 1.0

    bare_state, bare_ts = jax.jit(wrap_env.step)(state, FORWARD)
    assert int(bare_ts.step_type) == StepType.LAST and float(bare_ts.reward) == 0.0

    state, ts = step(state, FORWARD)
    assert int(ts.step_type) == StepType.FIRST
    assert float(ts.reward) == 0.0 and float(ts.discount) == 1.0
    assert not bool(state.done) and int(state.frames) == 0
    assert not bool(ts.extras["terminated"]) and not bool(ts.extras["truncated"])
    np.testing.assert_array_equal(ts.observation["DEBUG.POS.TRANS"][:2], np.asarray(state.pos))
    state, ts = step(state, FORWARD)
    assert int(ts.step_type) == StepType.MID and int(state.frames) == 2


def test_autoreset_under_jit_and_vmap_resets_each_element_on_its_own(wrap_auto):
    auto, reset, step = wrap_auto
    batch = 4
    states = jax.vmap(auto.init_state)(jax.random.split(jax.random.PRNGKey(1), batch))
    states = states.replace(frames=states.frames.at[0].set(2))  # element 0 is one step ahead

    @jax.jit
    def rollout(states):
        def body(states, _):
            states, ts = jax.vmap(auto.step)(states, jnp.tile(FORWARD, (batch, 1)))
            return states, (ts.step_type, ts.observation["DEBUG.POS.TRANS"], states.frames)
        return jax.lax.scan(body, states, None, length=8)

    _, (types, positions, counters) = rollout(states)
    types = np.asarray(types)
    assert positions.shape == (8, batch, 3)
    M, L, F = StepType.MID, StepType.LAST, StepType.FIRST
    np.testing.assert_array_equal(types[:, 0], [M, L, F, M, M, L, F, M])
    for i in range(1, batch):
        np.testing.assert_array_equal(types[:, i], [M, M, L, F, M, M, L, F])
    assert (np.asarray(counters)[types == F] == 0).all()


def test_autoreset_renders_once_per_step(wrap_env):
    counting = CountObserve(wrap_env)
    auto = AutoReset(counting)
    state = wrap_env.init_state(jax.random.PRNGKey(0))
    jax.make_jaxpr(auto.step)(state, FORWARD)
    assert counting.calls == 1


def test_autoreset_same_key_same_next_episode(wrap_auto):
    _, reset, step = wrap_auto

    def play(seed):
        state, _ = reset(jax.random.PRNGKey(seed))
        for _ in range(EPISODE_STEPS + 1):
            state, ts = step(state, FORWARD)
        return np.asarray(state.pos), float(state.yaw)

    a, b, c = play(5), play(5), play(6)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1] and a[1] != c[1]


# -- DiscreteActions -------------------------------------------------------------------------------

def test_discrete_actions_index_the_table(wrap_env):
    env = DiscreteActions(wrap_env)
    spec = env.action_spec()
    assert isinstance(spec, DiscreteArraySpec) and spec.num_values == 9 and spec.shape == ()
    assert env.num_actions == 9 and env.action_names[0] == "forward"
    assert env.fps == wrap_env.fps and env.unwrapped is wrap_env  # attributes go through
    state = wrap_env.init_state(jax.random.PRNGKey(2))

    @jax.jit
    def both(index):  # one compile for the indexed step and the raw step it stands for
        return env.step(state, index)[0], wrap_env.step(state, jnp.asarray(DISCRETE_ACTION_TABLE)[index])[0]

    for index in (0, 4, 7):
        s_idx, s_raw = both(jnp.int32(index))
        np.testing.assert_allclose(np.asarray(s_idx.pos), np.asarray(s_raw.pos))
        assert float(s_idx.yaw) == pytest.approx(float(s_raw.yaw))
    moved, turned = both(jnp.int32(0))[0], both(jnp.int32(4))[0]
    assert not np.allclose(np.asarray(moved.pos), np.asarray(state.pos))
    assert float(turned.yaw) != pytest.approx(float(state.yaw))


def test_discrete_actions_default_table_comes_from_the_env(wrap_env):
    through = DiscreteActions(AutoReset(wrap_env))   # wrappers forward ``discrete_actions``
    np.testing.assert_array_equal(through.table, DISCRETE_ACTION_TABLE)
    assert through.action_names == tuple(wrap_env.discrete_actions)
    own = DiscreteActions(wrap_env, DISCRETE_ACTION_TABLE[::-1])
    assert own.action_names[0] == "action_0" and own.num_actions == 9


def test_discrete_actions_need_a_table_when_the_env_has_none():
    class NoTable(Env):
        name = "no_table_env"

    with pytest.raises(TypeError, match="no_table_env.*discrete_actions"):
        DiscreteActions(NoTable())


def test_discrete_actions_rejects_bad_tables(wrap_env):
    with pytest.raises(ValueError, match="shape"):
        DiscreteActions(wrap_env, np.zeros((3, 6), np.int32))
    bad = np.zeros((2, 7), np.int32)
    bad[1, 3] = 5
    with pytest.raises(ValueError, match="row 1.*MOVE_BACK_FORWARD"):
        DiscreteActions(wrap_env, bad)


# -- GymnaxAdapter ---------------------------------------------------------------------------------

def test_gymnax_spaces():
    single = GymnaxAdapter(DiscreteActions(short_env(("RGB_INTERLEAVED",))))
    space = single.action_space(single.default_params)
    assert isinstance(space, Discrete) and space.n == 9 and single.num_actions == 9
    samples = jax.vmap(space.sample)(jax.random.split(jax.random.PRNGKey(0), 64))
    assert samples.dtype == jnp.int32 and int(samples.min()) >= 0 and int(samples.max()) <= 8
    assert len(np.unique(np.asarray(samples))) > 1
    assert bool(space.contains(jnp.int32(8))) and not bool(space.contains(jnp.int32(9)))
    obs_space = single.observation_space(single.default_params)
    assert isinstance(obs_space, Box) and obs_space.shape == (12, 16, 3) and obs_space.dtype == np.uint8
    assert bool(obs_space.contains(jnp.zeros((12, 16, 3), jnp.uint8)))
    assert not bool(obs_space.contains(jnp.zeros((12, 16, 4), jnp.uint8)))
    assert single.name.endswith("arena.txt")

    multi = GymnaxAdapter(short_env(OBS))
    obs_space = multi.observation_space(multi.default_params)
    assert isinstance(obs_space, Dict) and set(obs_space.spaces) == set(OBS)
    assert obs_space.spaces["DEBUG.POS.TRANS"].shape == (3,)
    raw = multi.action_space(multi.default_params)
    assert isinstance(raw, Box) and raw.shape == (7,) and multi.num_actions == 7
    assert raw.low[0] == -512 and raw.high[3] == 1
    action = raw.sample(jax.random.PRNGKey(3))
    assert action.dtype == jnp.int32 and bool(raw.contains(action))
    assert not bool(raw.contains(jnp.array([0, 0, 0, 2, 0, 0, 0], jnp.int32)))


def test_gymnax_purejaxrl_style_rollout_autoresets():
    env = GymnaxAdapter(DiscreteActions(short_env(("RGB_INTERLEAVED",))))
    params = env.default_params
    num_envs, steps = 4, 7
    rng = jax.random.PRNGKey(0)
    rng, reset_rng = jax.random.split(rng)
    obs, state = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(reset_rng, num_envs), params)
    assert obs.shape == (num_envs, 12, 16, 3) and obs.dtype == jnp.uint8

    def env_step(carry, _):
        state, obs, rng = carry
        rng, a_rng, s_rng = jax.random.split(rng, 3)
        action = jax.vmap(env.action_space(params).sample)(jax.random.split(a_rng, num_envs))
        obs, state, reward, done, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
            jax.random.split(s_rng, num_envs), state, action, params)
        return (state, obs, rng), (done, reward, info, state.frames, state.done, obs)

    _, (done, reward, info, frames, state_done, seen) = jax.jit(
        lambda c: jax.lax.scan(env_step, c, None, length=steps))((state, obs, rng))
    expected = np.array([False, False, True] * 3)[:steps]
    np.testing.assert_array_equal(np.asarray(done), np.tile(expected[:, None], (1, num_envs)))
    assert reward.dtype == jnp.float32 and reward.shape == (steps, num_envs)
    assert bool(np.all(np.asarray(info["truncated"]) == expected[:, None]))
    assert not np.asarray(info["terminated"]).any()
    assert (np.asarray(info["discount"]) == 1.0).all()
    # on done the returned state is already a fresh episode
    assert (np.asarray(frames)[expected] == 0).all() and not np.asarray(state_done).any()
    assert (np.asarray(frames)[~expected] > 0).all()
    assert seen.shape == (steps, num_envs, 12, 16, 3)


def test_gymnax_step_renders_once():
    counting = CountObserve(DiscreteActions(short_env(("RGB_INTERLEAVED",))))
    env = GymnaxAdapter(counting)
    state = counting.init_state(jax.random.PRNGKey(0))
    jax.make_jaxpr(lambda k, s, a: env.step(k, s, a))(jax.random.PRNGKey(1), state, jnp.int32(0))
    assert counting.calls == 1


# -- DmEnv -----------------------------------------------------------------------------------------

def test_dm_env_step_type_protocol(wrap_img_env):
    env = DmEnv(wrap_img_env, seed=3)
    assert isinstance(env, dm_env.Environment)
    ts = env.step(FORWARD)  # a step on a fresh env starts an episode
    assert ts.step_type is dm_env.StepType.FIRST and ts.reward is None and ts.discount is None
    types = [env.step(FORWARD).step_type for _ in range(2 * EPISODE_STEPS + 2)]
    F, M, L = dm_env.StepType.FIRST, dm_env.StepType.MID, dm_env.StepType.LAST
    assert types == [M, M, L, F, M, M, L, F]
    ts = env.reset()
    assert ts.step_type is F and set(ts.observation) == set(OBS)
    assert ts.observation["RGB_INTERLEAVED"].shape == (12, 16, 3)
    ts = env.step(FORWARD)
    assert ts.mid() and ts.reward.dtype == np.float32 and ts.discount == np.float32(1.0)
    assert isinstance(env.observation_spec()["DEBUG.POS.TRANS"], dm_env.specs.Array)
    spec = env.action_spec()
    assert isinstance(spec, dm_env.specs.BoundedArray) and spec.shape == (7,)


def test_dm_env_seeds(wrap_img_env):
    def first_pos(seed):
        return DmEnv(wrap_img_env, seed=seed).reset().observation["DEBUG.POS.TRANS"]

    # one spawn point: the seed shows in the random yaw, so compare where a step forward leads
    def walk(seed):
        env = DmEnv(wrap_img_env, seed=seed)
        env.reset()
        return env.step(FORWARD).observation["DEBUG.POS.TRANS"]

    np.testing.assert_array_equal(first_pos(1), first_pos(1))
    np.testing.assert_array_equal(walk(1), walk(1))
    assert not np.array_equal(walk(1), walk(2))


def test_dm_env_validates_actions(wrap_img_env, wrap_env):
    env = DmEnv(wrap_img_env)
    env.reset()
    with pytest.raises(ValueError, match="MOVE_BACK_FORWARD"):
        env.step(np.array([0, 0, 0, 2, 0, 0, 0], np.int32))
    with pytest.raises(ValueError, match="LOOK_LEFT_RIGHT_PIXELS_PER_FRAME"):
        env.step(np.array([-513, 0, 0, 0, 0, 0, 0], np.int32))
    with pytest.raises(ValueError, match="dtype"):
        env.step(np.zeros(7, np.float32))
    with pytest.raises(ValueError, match="dtype"):
        env.step(np.zeros(7, np.int64))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(6, np.int32))
    with pytest.raises(ValueError):
        env.step([0.5, 0, 0, 0, 0, 0, 0])
    assert env.step([0, 0, 0, 1, 0, 0, 0]).mid()  # plain ints are converted

    discrete = DmEnv(DiscreteActions(wrap_env))
    assert isinstance(discrete.action_spec(), dm_env.specs.DiscreteArray)
    assert discrete.action_spec().num_values == 9
    discrete.reset()
    assert discrete.step(3).mid() and discrete.step(np.int32(8)).mid()
    for bad in (9, -1, np.int32(9)):
        with pytest.raises(ValueError, match="outside"):
            discrete.step(bad)
    with pytest.raises(ValueError):
        discrete.step(True)


class DmEnvConformanceTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    """dm_env's own interface-contract tests; 20 steps span several 3-step episodes."""

    def make_object_under_test(self):
        return DmEnv(short_env(OBS), seed=0)

    def make_action_sequence(self):
        for i in range(20):
            yield np.array([20 * (i % 3 - 1), 0, 0, 1, 0, 0, 0], np.int32)


class DmEnvDiscreteConformanceTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    def make_object_under_test(self):
        return DmEnv(_discrete_env(), seed=0)


@functools.lru_cache(maxsize=None)
def _discrete_env():
    return DiscreteActions(short_env(POS))


def test_vmap_auto_reset_equals_vmapped_auto_reset():
    from jaxlab.wrappers import VmapAutoReset

    env = jaxlab.make("pushbox", episodeLengthFrames=3, layouts=4, observations=["WORLD.LAYER", "1.POSITION"])
    batch = 4
    states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(5), batch))
    states = states.replace(frame=jnp.array([0, 1, 2, 0], jnp.int32))      # episodes end on different steps
    per_env = jax.jit(jax.vmap(AutoReset(env).step))
    whole = jax.jit(VmapAutoReset(env).step)
    a, b = states, states
    firsts = 0
    for t in range(7):
        moves = {"MOVE": jax.random.randint(jax.random.PRNGKey(t), (batch,), 0, 5)}
        a, ts_a = per_env(a, moves)
        b, ts_b = whole(b, moves)
        chex.assert_trees_all_equal((a, ts_a), (b, ts_b))
        firsts += int((ts_b.step_type == StepType.FIRST).sum())
    assert firsts >= batch          # every env started a new episode at least once


def test_auto_reset_of_a_big_batch_equals_resetting_every_row_and_selecting():
    """Under vmap, AutoReset computes new episodes for the ended rows only (a block of 1/16 of a batch
    of at least ``BLOCKS_FROM`` rows, or every row when more ended), and so does VmapAutoReset: the
    same states and time steps as a fresh episode computed for every row and selected, with few
    episodes ending at once and with all."""
    from jaxlab.env import BLOCKS_FROM, select_tree
    from jaxlab.wrappers import VmapAutoReset
    from jaxlab.wrappers.core import reset_key, restarted_time_step

    env = jaxlab.make("pushbox", episodeLengthFrames=40, layouts=4, observations=["WORLD.LAYER", "1.POSITION"])
    batch = 2 * BLOCKS_FROM

    def every_row(state, action):
        fresh = env.init_state(reset_key(state.key))
        stepped, reward, terminated, truncated = env.advance(state, action)
        after = select_tree(jnp.asarray(state.done), fresh, stepped)
        return after, restarted_time_step(env, after, state.done, reward, terminated, truncated)

    states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(7), batch))
    few_end = states.replace(frame=jnp.arange(batch, dtype=jnp.int32) % 40)   # about 3 rows end per step
    all_end = states.replace(frame=jnp.full(batch, 39, jnp.int32))
    sparse, plain = jax.jit(jax.vmap(AutoReset(env).step)), jax.jit(jax.vmap(every_row))
    whole = jax.jit(VmapAutoReset(env).step)
    ended = []
    for start in (few_end, all_end):
        a = b = c = start
        for t in range(5):
            moves = {"MOVE": jax.random.randint(jax.random.PRNGKey(t), (batch,), 0, 5)}
            ended.append(int(np.asarray(a.done).sum()))
            a, ts_a = sparse(a, moves)
            b, ts_b = plain(b, moves)
            c, ts_c = whole(c, moves)
            chex.assert_trees_all_equal((a, ts_a), (b, ts_b))
            chex.assert_trees_all_equal((c, ts_c), (b, ts_b))
    assert 0 < min(n for n in ended[:5] if n) <= batch // 16 and max(ended[5:]) == batch  # block, then every row
