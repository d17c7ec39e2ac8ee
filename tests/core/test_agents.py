"""jaxlab.agents: PPO compiles and runs on every observation kind, is a pure function of its key,
computes GAE as specified, plays multi-player grids as independent learners, and learns a small
text quest well past a random policy."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab import agents
from jaxlab.agents.rollout import StepRecord
from jaxlab.kernels.grid.env import GridEnv

# an odd batch (3 envs) and 24 samples per player in 5 minibatches of 4 (the other 4 sit each epoch out)
TINY = agents.PPOConfig(total_env_steps=2 * 3 * 8, num_envs=3, rollout_length=8, update_epochs=2,
                        num_minibatches=5, hidden_size=16)
LOSSES = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")


@functools.lru_cache(maxsize=None)
def make_env(kind: str):
    """A small env of each observation kind (cached: text games and grid rooms are built once)."""
    if kind == "pixels":
        return jaxlab.make("nav_maze_static_01", width=16, height=12, action_repeat=4,
                           observations=("RGB_INTERLEAVED",))
    if kind == "grid":
        return jaxlab.make("pushbox", gridShape={"width": 6, "height": 6}, numBoxes=1, roomSteps=8, layouts=8,
                           observations=("WORLD.LAYER", "1.POSITION", "1.REWARD"))
    if kind == "grid_2_players":
        return jaxlab.make("jaxlab_predator_prey", numPredators=1, numPrey=1,
                           observations=("WORLD.LAYER", "1.POSITION", "1.REWARD", "2.POSITION", "2.REWARD"))
    return jaxlab.make("tw-coin_collector", level=10, seed=0, max_steps=25,
                       observations=("feedback", "description", "admissible"))


@functools.lru_cache(maxsize=None)
def tiny_train(kind: str, seed: int):
    """(params, metrics) of PPO with TINY on ``make_env(kind)`` from key ``seed``, built and compiled once per
    kind (the grid run is also the first of test_same_key_same_parameters_and_metrics)."""
    return agents.make_train(TINY, make_env(kind))(jax.random.PRNGKey(seed))


@pytest.mark.parametrize("kind", ["pixels", "grid", "grid_2_players", "text"])
def test_train_runs_on_every_observation_kind(kind):
    params, metrics = tiny_train(kind, 0)
    players = 2 if kind == "grid_2_players" else 1
    assert metrics["episode_return"].shape == (TINY.num_updates, players)
    np.testing.assert_array_equal(metrics["env_steps"], [24, 48])
    for name in LOSSES:
        assert metrics[name].shape == (TINY.num_updates,) and np.isfinite(metrics[name]).all(), name
    assert np.all(np.diff(metrics["wall_time_s"]) >= 0) and metrics["wall_time_s"][0] >= 0
    assert all(np.isfinite(leaf).all() for leaf in jax.tree_util.tree_leaves(params))


def test_same_key_same_parameters_and_metrics():
    first = tiny_train("grid", 0)
    train = agents.make_train(TINY, make_env("grid"))   # built and compiled anew
    again, other = train(jax.random.PRNGKey(0)), train(jax.random.PRNGKey(4))
    deterministic = lambda out: (out[0], {k: v for k, v in out[1].items() if k != "wall_time_s"})
    jax.tree_util.tree_map(np.testing.assert_array_equal, deterministic(first), deterministic(again))
    assert not all(np.array_equal(a, b) for a, b in zip(jax.tree_util.tree_leaves(first[0]),
                                                          jax.tree_util.tree_leaves(other[0])))


def test_advantages_bootstrap_truncation_cut_termination_and_skip_restarts():
    """One env, one player, gamma 0.5, lambda 1: steps 0-1 end in a truncation (discount 1), step 2
    starts from that LAST step (masked), step 3 terminates (discount 0)."""
    value = jnp.array([1.0, 2.0, 3.0, 4.0])[:, None, None]
    record = StepRecord(inputs={}, action=jnp.zeros((4, 1, 1), jnp.int32), log_prob=jnp.zeros((4, 1, 1)),
                        value=value, valid=jnp.array([True, True, False, True])[:, None],
                        reward=jnp.array([1.0, 2.0, 0.0, 5.0])[:, None, None],
                        discount=jnp.array([1.0, 1.0, 1.0, 0.0])[:, None], ended=jnp.zeros((4, 1), bool),
                        ended_return=jnp.zeros((4, 1, 1)))
    advantages, targets = agents.advantages_and_targets(record, jnp.full((1, 1), 100.0), 0.5, 1.0)
    # step 1: 2 + 0.5·V(LAST step 2) − 2 = 1.5; step 0: 1 + 0.5·2 − 1 + 0.5·1.5 = 1.75; step 3: 5 − 4 = 1
    np.testing.assert_allclose(advantages[:, 0, 0], [1.75, 1.5, 0.0, 1.0])
    np.testing.assert_allclose(targets[:, 0, 0], [2.75, 3.5, 0.0, 5.0])


def test_multiplayer_grid_maps_each_players_action_and_reward():
    task = agents.make_agent(make_env("grid_2_players")).task
    assert task.num_agents == 2 and task.num_actions == 7 + len(task.world.beam_actions)
    action = task.env_action(jnp.array([2, 6]))   # player 1 moves east, player 2 turns right
    assert int(action["1.move"]) == 2 and int(action["1.turn"]) == 0
    assert int(action["2.move"]) == 0 and int(action["2.turn"]) == 1
    state, ts = task.env.reset(jax.random.PRNGKey(0))
    inputs = task.inputs(state, ts)
    assert inputs["layer"].shape[0] == 2 and inputs["mask"].shape == (2, task.num_actions)
    np.testing.assert_array_equal(inputs["position"], np.stack([ts.observation["1.POSITION"],
                                                                ts.observation["2.POSITION"]]))


def test_missing_observations_and_pictures_are_named():
    grid = make_env("grid")
    bare = GridEnv(grid.world, observations=("WORLD.RGB",), layouts=grid.layouts)
    with pytest.raises(ValueError, match=r"missing \['WORLD.LAYER', '1.POSITION', '1.REWARD'\]"):
        agents.make_agent(bare)
    frames = functools.partial(agents.rollout_frames, agents.make_agent(make_env("text")), steps=2, how="random")
    with pytest.raises(ValueError, match="text tasks have no picture"):
        jax.jit(frames)(None, jax.random.PRNGKey(0))   # raised while tracing


def test_rollout_frames_show_the_grid():
    agent = agents.make_agent(make_env("grid"))
    frames, rewards = agents.rollout_frames(agent, None, jax.random.PRNGKey(0), steps=3, how="random")
    assert frames.shape == (3, 48, 48, 3) and frames.dtype == jnp.uint8 and rewards.shape == (3, 1)


def test_random_policy_keeps_to_admissible_commands():
    agent = agents.make_agent(make_env("text"))
    start_and_step = jax.jit(lambda key: agents.rollout.batched_step(
        agent, None, agents.rollout.start(agent, key, 64), "random"))
    _, record = start_and_step(jax.random.PRNGKey(0))
    mask = np.asarray(record.inputs["mask"][:, 0])
    assert mask[np.arange(64), np.asarray(record.action[:, 0])].all() and not mask.all()


def test_ppo_learns_a_small_text_quest():
    """Ten rooms in a chain, the coin in the last, 25 commands: a random policy almost never gets
    there; PPO after 32,768 env steps (seed 0) gets the coin in at least 80% more of the episodes."""
    env = make_env("text")
    config = agents.PPOConfig(total_env_steps=32_768, num_envs=64, rollout_length=32, learning_rate=1e-3,
                              hidden_size=64, gamma=0.97)
    params, _ = agents.make_train(config, env)(jax.random.PRNGKey(0))
    agent = agents.make_agent(env, config.hidden_size)
    evaluate = jax.jit(functools.partial(agents.evaluate, agent, num_envs=128, steps=26), static_argnames="how")
    trained, trained_finished = evaluate(params, jax.random.PRNGKey(1), how="sample")
    random, random_finished = evaluate(None, jax.random.PRNGKey(1), how="random")
    assert int(trained_finished) == int(random_finished) == 128
    print(f"coin collector, 25 commands: PPO {float(trained[0]):.3f}, random {float(random[0]):.3f}")
    assert float(trained[0]) >= float(random[0]) + 0.8, (float(trained[0]), float(random[0]))


def test_egocentric_window_pads_a_bounded_grid_and_wraps_a_torus():
    from jaxlab.agents.networks import egocentric

    layer = jnp.arange(24).reshape(1, 4, 6, 1)   # 4 rows, 6 columns: cell (column c, row r) holds 6r + c
    corner = egocentric(layer, jnp.array([[0, 0]]), -1, False, 2)[0, ..., 0]
    np.testing.assert_array_equal(corner[2:, 2:], [[0, 1, 2], [6, 7, 8], [12, 13, 14]])
    assert (corner[:2] == -1).all() and (corner[:, :2] == -1).all()
    wrapped = egocentric(layer, jnp.array([[5, 3]]), -1, True, 2)[0, ..., 0]
    np.testing.assert_array_equal(wrapped[2], [21, 22, 23, 18, 19])   # row 3: columns 3, 4, 5, 0, 1
    np.testing.assert_array_equal(wrapped[:, 2], [11, 17, 23, 5, 11])  # column 5: rows 1, 2, 3, 0, 1
    # a radius past the grid shows every cell from anywhere: 2·3+1 rows, 2·5+1 columns
    assert egocentric(layer, jnp.array([[2, 1]]), -1, False, 9).shape == (1, 7, 11, 1)
