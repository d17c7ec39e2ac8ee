"""The memory-task suite as a whole: its names against dm_memorytasks' documented ones, the host API
(``jaxlab.memorytasks``), the sticky-action rule, Score, and determinism across batch sizes and jit."""
import dm_env
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.errors import UnknownNameError
from jaxlab.levels.dmlab import memory
from jaxlab.levels.dmlab.memory import actions
import jaxlab.memorytasks as dm_memorytasks

# dm_memorytasks' README: the base task names, by group, and the level suffixes.
DOCUMENTED_TASKS = [
    "arbitrary_visuomotor_mapping", "change_detection", "continuous_recognition", "what_then_where",
    "spot_diff", "spot_diff_motion", "spot_diff_multi", "spot_diff_passive",
    "explore_goal_locations", "invisible_goal_empty_arena", "invisible_goal_with_buildings",
    "visible_goal_with_buildings",
    "transitive_inference",
]
DOCUMENTED_SUFFIXES = ["_train", "_holdout_interpolate", "_holdout_extrapolate", "_interpolate", "_extrapolate",
                       "_holdout_small", "_holdout_large"]
SPLIT_TRAIN = {"explore_goal_locations", "transitive_inference"}   # `_train_small` / `_train_large` instead


def documented_names():
    names = set()
    for task in DOCUMENTED_TASKS:
        for suffix in DOCUMENTED_SUFFIXES:
            if suffix == "_train" and task in SPLIT_TRAIN:
                names |= {task + "_train_small", task + "_train_large"}
            else:
                names.add(task + suffix)
    return names


def test_the_suite_has_exactly_the_documented_level_names():
    assert len(documented_names()) == 13 * 7 + 2
    assert set(dm_memorytasks.LEVEL_NAMES) == documented_names()
    assert set(jaxlab.levels.names(family="memory")) == documented_names()
    assert set(memory.tasks()) == set(DOCUMENTED_TASKS)


def test_every_level_constructs_on_device_and_through_the_host_api():
    for name in sorted(documented_names()):
        env = jaxlab.make("memory/" + name)
        assert env.action_spec().shape == (4,)
        assert env.observation_spec()["RGB_INTERLEAVED"].shape == (72, 96, 3)
        host = dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=0, level_name=name))
        assert set(host.action_spec()) == set(actions.ACTION_NAMES)
        assert host.observation_spec()["RGB_INTERLEAVED"].shape == (72, 96, 3)


def test_splits_use_disjoint_stimuli_and_scale_values_between_or_beyond_the_train_ones():
    for name, task in memory.tasks().items():
        train, holdout = set(task.stimuli.train), set(task.stimuli.holdout)
        assert train and holdout and not train & holdout, name
        scale = task.scale
        lo, hi = min(scale.train), max(scale.train)
        assert all(lo < v < hi and v not in scale.train for v in scale.interpolate), name
        assert all(v > hi for v in scale.extrapolate), name
        assert set(scale.small) | set(scale.large) == set(scale.train), name
        assert max(scale.small) < min(scale.large), name


def test_unknown_names_and_settings_get_suggestions():
    with pytest.raises(UnknownNameError, match="spot_diff_train"):
        dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=0, level_name="spot_dif_train"))
    with pytest.raises(UnknownNameError, match="level_name"):
        dm_memorytasks.load({"seed": 0, "levelname": "spot_diff_train"})
    with pytest.raises(UnknownNameError, match="episode_length_seconds"):
        jaxlab.make("memory/spot_diff_train", episode_length_second=10)
    with pytest.raises(ValueError, match="4:3"):
        dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=0, level_name="spot_diff_train",
                                                               width=96, height=96))
    with pytest.raises(TypeError, match="width"):
        dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=0, level_name="spot_diff_train", width="96"))
    with pytest.raises(ValueError, match="episode_length_seconds"):
        dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=0, level_name="spot_diff_train",
                                                               episode_length_seconds=float("inf")))


def test_host_actions_are_checked():
    with pytest.raises(UnknownNameError, match="MOVE_BACK_FORWARD"):
        dm_memorytasks.action_array({"MOVE_FORWARD": 1.0})
    for bad in (1.5, float("nan"), float("inf"), True, "1", [1.0], None):
        with pytest.raises((TypeError, ValueError), match="MOVE_BACK_FORWARD"):
            dm_memorytasks.action_array({"MOVE_BACK_FORWARD": bad})
    with pytest.raises(TypeError, match="dict"):
        dm_memorytasks.action_array(None)
    out = dm_memorytasks.action_array({"LOOK_DOWN_UP": -0.25})
    assert out[actions.LOOK_DOWN_UP] == -0.25 and np.isnan(out[[0, 1, 2]]).all()


ARENA = "invisible_goal_empty_arena_train"


@pytest.fixture(scope="module")
def arena():
    env = jaxlab.make("memory/" + ARENA)
    return env, jax.jit(env.reset), jax.jit(env.step)


def _player_frame_velocity(state):
    w = state.world
    rad = jnp.deg2rad(w.yaw)
    forward = jnp.stack([jnp.cos(rad), jnp.sin(rad)])
    left = jnp.stack([-jnp.sin(rad), jnp.cos(rad)])
    return float(w.vel @ forward), float(w.vel @ left)


def test_sticky_actions_follow_the_documented_example_step_for_step(arena):
    """dm_memorytasks' README: strafe left; then (strafe left and) move; then both 0: stationary. The
    player is put in the arena's middle so that no wall stops it."""
    env, reset, step = arena
    state, _ = reset(jax.random.PRNGKey(3))
    level = state.world.episode_level
    free = np.argwhere(np.asarray(level.cells) == 0)
    middle = free[len(free) // 2]
    centre = jnp.array([(middle[1] + 0.5) * 100.0, (int(level.rows) - 1 - middle[0] + 0.5) * 100.0], jnp.float32)
    state = state.replace(world=state.world.replace(pos=centre))

    def act(**given):
        a = np.full(4, np.nan, np.float32)
        for name, value in given.items():
            a[actions.ACTION_NAMES.index(name)] = value
        return jnp.asarray(a)

    state, _ = step(state, act(STRAFE_LEFT_RIGHT=-1.0))
    np.testing.assert_array_equal(np.asarray(state.held), [-1.0, 0.0, 0.0, 0.0])
    forward, left = _player_frame_velocity(state)
    assert left > 0 and abs(forward) < 1e-3          # strafing left
    for _ in range(5):                              # an empty dict (all NaN) keeps strafing
        state, _ = step(state, act())
    np.testing.assert_array_equal(np.asarray(state.held), [-1.0, 0.0, 0.0, 0.0])
    state, _ = step(state, act(MOVE_BACK_FORWARD=1.0))
    np.testing.assert_array_equal(np.asarray(state.held), [-1.0, 1.0, 0.0, 0.0])
    forward, left = _player_frame_velocity(state)
    assert left > 0 and forward > 0                 # strafing left and moving
    state, _ = step(state, act(STRAFE_LEFT_RIGHT=0.0, MOVE_BACK_FORWARD=0.0))
    np.testing.assert_array_equal(np.asarray(state.held), [0.0, 0.0, 0.0, 0.0])
    for _ in range(60):
        state, _ = step(state, act())
    assert np.linalg.norm(np.asarray(state.world.vel)) < 1e-3   # stationary


def test_the_host_runs_the_documented_example_and_score_sums_rewards():
    env = dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=7, level_name=ARENA, num_action_repeats=4))
    ts = env.reset()
    assert ts.step_type == dm_env.StepType.FIRST and float(ts.observation["Score"]) == 0.0
    ts = env.step({"STRAFE_LEFT_RIGHT": -1.0})
    ts = env.step({"MOVE_BACK_FORWARD": 1.0})
    np.testing.assert_array_equal(np.asarray(env.state.held), [-1.0, 1.0, 0.0, 0.0])
    ts = env.step({"STRAFE_LEFT_RIGHT": 0.0, "MOVE_BACK_FORWARD": 0.0})
    np.testing.assert_array_equal(np.asarray(env.state.held), [0.0, 0.0, 0.0, 0.0])
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(100):
        ts = env.step({name: float(v) for name, v in zip(actions.ACTION_NAMES, rng.uniform(-1, 1, 4))})
        total += float(ts.reward)
        assert float(ts.observation["Score"]) == pytest.approx(total)
        assert ts.observation["AvatarPosition"].shape == (3,)


def _rollout(env, keys, steps):
    """Observations (stacked over the ``steps`` + 1 time steps) of random-action steps from ``keys``
    (vmapped; each episode's actions drawn from its own key)."""
    def action(k, i):
        a = jax.random.uniform(jax.random.fold_in(k, 100 + i), (4,), minval=-1.0, maxval=1.0)
        return a.at[actions.MOVE_BACK_FORWARD].set(1.0)

    def run(keys):
        states, ts = jax.vmap(env.reset)(keys)

        def body(states, i):
            states, ts = jax.vmap(env.step)(states, jax.vmap(action, (0, None))(keys, i))
            return states, ts.observation

        rest = jax.lax.scan(body, states, jnp.arange(steps))[1]
        return jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a[None], b]), ts.observation, rest)

    return run, action


#: the tasks whose episodes are also run at batch 1 and op by op: a task of each generator family
#: and of both envs (each is a compile of its own; the batch size is the kernel's, shared by all)
ONE_BY_ONE_CHECKED = {"spot_diff_motion", "invisible_goal_with_buildings",
                      "transitive_inference", "what_then_where"}


@pytest.mark.parametrize("task", DOCUMENTED_TASKS)
def test_same_key_same_episode_at_any_batch_size_jitted_or_not(task, quick_compile):
    """A batch of 3 in another order gives each episode the same frames, positions and scores (an
    episode follows its own key, whatever its neighbours); for a task of each generator family and
    both envs, batch 1 (jitted) gives episode 1 the same too, and op by op (no jit, no vmap) the same
    positions and scores (op-by-op runs are slow, explore_goal_locations' maze generation most of all)."""
    name = task + ("_train_large" if task in SPLIT_TRAIN else "_train")
    env = jaxlab.make("memory/" + name, width=32, height=24, action_repeat=8)
    keys = jax.random.split(jax.random.PRNGKey(11), 3)
    run, action = _rollout(env, keys, 3)
    batched = quick_compile(run, keys)
    batch3 = batched(keys)
    order = np.array([2, 0, 1])
    shuffled = batched(keys[order])
    for row, episode in enumerate(order):
        for i in range(4):
            assert_same_observations(jax.tree_util.tree_map(lambda x: x[i, row], shuffled),
                                     jax.tree_util.tree_map(lambda x: x[i, episode], batch3),
                                     f"batch 3 in another order, episode {episode}, step {i}")
    if task not in ONE_BY_ONE_CHECKED:
        return
    batch1 = quick_compile(run, keys[1:2])(keys[1:2])
    for i in range(4):
        assert_same_observations(jax.tree_util.tree_map(lambda x: x[i, 1], batch3),
                                 jax.tree_util.tree_map(lambda x: x[i, 0], batch1), f"batch 3 vs 1, step {i}")
    plain = jaxlab.make("memory/" + name, width=32, height=24, action_repeat=8,
                        observations=("AvatarPosition", "Score"))
    state, ts = plain.reset(keys[1])
    eager = [ts.observation]
    state, ts = plain.step(state, action(keys[1], 0))
    eager.append(ts.observation)
    for i, obs in enumerate(eager):
        assert_same_observations(obs, {k: batch3[k][i, 1] for k in obs}, f"op by op vs jit, step {i}")


def assert_same_observations(a, b, what):
    """Equal observations, up to float rounding: positions and scores within 1e-3, frames identical but
    for the odd edge pixel (under 1 %)."""
    for name in a:
        x, y = np.asarray(a[name]), np.asarray(b[name])
        if x.dtype == np.uint8:
            assert (x != y).any(-1).mean() < 0.01, f"{name}: {what}"
        else:
            np.testing.assert_allclose(x, y, atol=1e-3, err_msg=f"{name}: {what}")


def test_the_docs_state_every_tasks_stimulus_sets_and_scale_values():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "memorytasks.md").read_text()
    assert memory.splits_table() in docs, "regenerate the table: python -c 'from jaxlab.levels.dmlab import " \
                                          "memory; print(memory.splits_table())'"
    for task in DOCUMENTED_TASKS:
        assert f"`{task}`" in docs and f"images/memory/{task}.png" in docs, task
