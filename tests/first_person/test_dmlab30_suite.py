"""DMLab-30 in jaxlab: names and paths, one suite batch mixing a level of every kind, determinism, scores."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.levels.dmlab import dmlab30
from jaxlab.levels.dmlab.actions import DISCRETE_ACTION_TABLE

STEPS = 6
OBS = ("RGBD_INTERLEAVED", "DEBUG.POS.TRANS")
BUILT = tuple(dmlab30.generators())


def _kind(generator):
    return type(generator), getattr(generator, "config_level", None)


#: the level standing for its kind where it is not the first: the language levels share a kind but each draws
#: its own task table, and the described object's is the smallest program
CHEAPEST = {_kind(dmlab30.generators()["language_select_described_object"]): "language_select_described_object"}
#: a level of each generator kind (the first, or the cheapest of CHEAPEST): the levels of a kind run one program
#: with other constants and sizes (each level's own rules are tested with its family), so the mixed batch compiles
#: each kind once
KINDS = tuple({**{_kind(g): name for name, g in reversed(list(dmlab30.generators().items()))}, **CHEAPEST}.values())[::-1]


@pytest.fixture(scope="module")
def suite():
    return jaxlab.suite(list(KINDS), width=16, height=12, observations=OBS, action_repeat=4)


def _rollout(env, key, level_index):
    """(rewards [T], positions [T, 3], frames [T, H, W, 4], level_index, players in the game bool[P] (empty
    without laser tag's arena)) of STEPS random steps."""
    state = env.init_state(key, level_index)
    actions = jnp.asarray(DISCRETE_ACTION_TABLE)[jax.random.randint(jax.random.fold_in(key, 1), (STEPS,), 0, 9)]

    def body(state, action):
        state, ts = env.step(state, action)
        return state, (ts.reward, ts.observation["DEBUG.POS.TRANS"], ts.observation["RGBD_INTERLEAVED"])

    playing = state.arena.playing if state.arena is not None else jnp.zeros((0,), bool)
    return jax.lax.scan(body, state, actions)[1] + (state.level_index, playing)


def test_every_built_level_by_name_and_dmlab_path():
    assert len(BUILT) >= 1 and set(BUILT) <= set(dmlab30.TRAIN_LEVELS) | set(dmlab30.TEST_LEVELS)
    names = jaxlab.levels.names("dmlab")
    for name in BUILT:
        assert name in names
        env = jaxlab.make(dmlab30.PATH_PREFIX + name, width=8, height=6)
        assert env.name == name and env.generator is dmlab30.generators()[name]
    with pytest.raises(jaxlab.UnknownNameError, match="explore_goal_locations_small"):
        jaxlab.make("explore_goal_location_small")


def test_suite_batch_mixes_a_level_of_every_kind_and_is_deterministic(suite):
    n = len(KINDS)
    assert suite.levels == KINDS and suite.num_levels == n
    assert {_kind(g) for g in dmlab30.generators().values()} == {_kind(dmlab30.generators()[k]) for k in KINDS}
    keys = jax.random.split(jax.random.PRNGKey(3), 2 * n)
    index = jnp.arange(2 * n, dtype=jnp.int32) % n
    batched = jax.jit(jax.vmap(lambda k, i: _rollout(suite, k, i)))
    rewards, pos, frames, levels, playing = batched(keys, index)
    np.testing.assert_array_equal(np.asarray(levels), np.asarray(index))
    bots = np.asarray([getattr(getattr(dmlab30.generators()[KINDS[i]], "spec", None), "bots", 0) > 0 for i in index])
    assert bots.any() and np.asarray(playing)[:, 0].all()   # the agent always plays; others only in laser tag
    assert (np.asarray(playing)[:, 1:].any(1) == bots).all()
    assert frames.shape == (2 * n, STEPS, 12, 16, 4) and frames.dtype == jnp.uint8
    assert np.isfinite(np.asarray(pos)).all() and np.isfinite(np.asarray(rewards)).all()
    # each env's trajectory depends on its own key and level only: the batch in another order
    order = np.random.default_rng(0).permutation(2 * n)
    shuffled = batched(keys[order], index[order])
    for a, b in zip(shuffled[:3], (rewards, pos, frames)):
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64)[order], atol=1e-3)
    # levels differ: a frame of every level, first step, is not the frame of the level before
    firsts = np.asarray(frames[:n, 0, ..., :3])
    assert all((firsts[i] != firsts[i - 1]).any() for i in range(1, n))


def test_the_suite_states_the_shapes_of_the_levels_its_episodes_draw(suite):
    drawn = jax.eval_shape(suite.generator.episode, jax.random.PRNGKey(0), jnp.int32(0))
    stated = suite.generator.level_shapes()
    assert jax.tree_util.tree_structure(drawn) == jax.tree_util.tree_structure(stated)
    for a, b in zip(jax.tree_util.tree_leaves(drawn), jax.tree_util.tree_leaves(stated)):
        assert (1, *a.shape) == b.shape and a.dtype == b.dtype


def test_a_level_is_the_same_jitted_or_not_and_at_any_batch_size():
    env = jaxlab.make("explore_object_rewards_few", width=16, height=12, observations=OBS, action_repeat=4)
    key = jax.random.PRNGKey(5)
    jitted = jax.jit(lambda k: _rollout(env, k, 0))(key)
    eager = _rollout(env, key, 0)
    np.testing.assert_array_equal(np.asarray(jitted[0]), np.asarray(eager[0]))
    np.testing.assert_allclose(np.asarray(jitted[1]), np.asarray(eager[1]), atol=1e-3)
    assert (np.asarray(jitted[2]) != np.asarray(eager[2])).any(-1).mean() < 0.002
    keys = jnp.stack([jax.random.PRNGKey(9), key, jax.random.PRNGKey(7)])
    batched = jax.jit(jax.vmap(lambda k: _rollout(env, k, 0)))(keys)
    for a, b in zip(batched[:3], jitted[:3]):
        np.testing.assert_allclose(np.asarray(a[1], np.float64), np.asarray(b, np.float64), atol=1e-3)


def test_named_suite_says_what_is_missing():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = jaxlab.suite("dmlab30", width=8, height=6)
    assert set(env.levels) | set(env.missing_levels) == set(dmlab30.TRAIN_LEVELS)
    assert not set(env.levels) & set(env.missing_levels)
    if env.missing_levels:
        assert any(env.missing_levels[0] in str(w.message) for w in caught)
    test_env = jaxlab.suite("dmlab30_test", width=8, height=6)
    assert set(test_env.levels) <= set(dmlab30.TEST_LEVELS)
    with pytest.raises(jaxlab.UnknownNameError, match="dmlab30"):
        jaxlab.suite("dmlab31")


def test_human_normalised_scores():
    # the human return scores 100 and the random return 0 on every level
    human = {name: h for name, (h, _) in dmlab30.DMLAB30_SCORES.items()}
    random = {name: r for name, (_, r) in dmlab30.DMLAB30_SCORES.items()}
    assert dmlab30.dmlab30_score(human)["mean"] == pytest.approx(100.0)
    assert dmlab30.dmlab30_score(random)["median"] == pytest.approx(0.0, abs=1e-9)
    assert len(dmlab30.DMLAB30_SCORES) == 30 and not dmlab30.dmlab30_score(human)["missing"]
    # twice the human margin scores 200 uncapped and 100 capped; train levels score as their test level
    double = {name: 2 * h - r for name, (h, r) in dmlab30.DMLAB30_SCORES.items()}
    result = dmlab30.dmlab30_score(double)
    assert result["mean"] == pytest.approx(200.0) and result["mean_capped"] == pytest.approx(100.0)
    assert dmlab30.human_normalized("contributed/dmlab30/rooms_collect_good_objects_train", 10.0) == \
        pytest.approx(100.0)
    with pytest.raises(ValueError, match="scored as"):
        dmlab30.dmlab30_score({"rooms_collect_good_objects_train": 1.0, "rooms_collect_good_objects_test": 2.0})
    with pytest.raises(jaxlab.UnknownNameError):
        dmlab30.human_normalized("explore_goal_locations_medium", 1.0)


def test_lab_host_runs_a_procedural_level():
    name = BUILT[0]
    lab = jaxlab.Lab(dmlab30.PATH_PREFIX + name, ["RGBD_INTERLEAVED", "DEBUG.POS.TRANS"],
                     {"width": "16", "height": "12", "episodeLengthSeconds": "1"})
    lab.reset(seed=4)
    first = lab.observations()["DEBUG.POS.TRANS"]
    lab.reset(seed=4)
    np.testing.assert_array_equal(lab.observations()["DEBUG.POS.TRANS"], first)
    assert lab.observations()["RGBD_INTERLEAVED"].shape == (12, 16, 4)
    steps = 0
    while lab.is_running():
        lab.step(np.array([0, 0, 0, 1, 0, 0, 0], np.intc), num_steps=4)
        steps += 1
    assert steps == 15            # 1 s at 60 fps, 4 frames a step


@pytest.mark.parametrize("name, instructed", [("language_select_described_object", True),
                                              ("psychlab_visual_search", False)])
def test_lab_host_runs_language_and_psychlab_levels_by_their_dmlab_paths(name, instructed):
    lab = jaxlab.Lab(dmlab30.PATH_PREFIX + name, ["RGB_INTERLEAVED", "INSTR"],
                     {"width": "16", "height": "12", "episodeLengthSeconds": "1"})
    spec = {s["name"]: s for s in lab.observation_spec()}
    assert spec["INSTR"] == {"name": "INSTR", "shape": (), "dtype": str}
    lab.reset(seed=2)
    text = lab.observations()["INSTR"]
    assert isinstance(text, str) and bool(text) == instructed
    assert lab.observations()["RGB_INTERLEAVED"].shape == (12, 16, 3)
    steps = 0
    while lab.is_running():
        lab.step(np.array([20, 0, 0, 1, 0, 0, 0], np.intc), num_steps=4)
        steps += 1
    assert steps == 15


def test_a_suite_mixes_first_person_and_psychlab_screen_levels():
    names = ["explore_goal_locations_small", "psychlab_visual_search", "language_select_described_object"]
    env = jaxlab.suite(names, width=16, height=12, observations=("RGB_INTERLEAVED", "INSTR"), action_repeat=4)
    assert env.levels == tuple(names) and env.num_levels == 3
    keys = jax.random.split(jax.random.PRNGKey(8), 6)
    index = jnp.arange(6, dtype=jnp.int32) % 3
    actions = jnp.asarray(DISCRETE_ACTION_TABLE)[jnp.arange(6) % 9]

    def run(key, level):
        state = env.init_state(key, level)
        state, ts = env.step(state, actions[0])
        return state.level_index, ts.observation["RGB_INTERLEAVED"], ts.observation["INSTR"], ts.reward

    batched = jax.jit(jax.vmap(run))
    levels, frames, instr, rewards = batched(keys, index)
    np.testing.assert_array_equal(np.asarray(levels), np.asarray(index))
    frames, instr = np.asarray(frames), np.asarray(instr)
    # the screen level shows the PsychLab screen (white), the others their worlds (never pure white)
    white = (frames == 255).all(-1).mean(axis=(1, 2))
    assert white[1] > 0.2 and white[4] > 0.2 and not white[[0, 2, 3, 5]].any()
    # only the language level has an instruction
    assert instr[2].any() and not instr[0].any() and not instr[1].any()
    assert env.decode(instr[2])
    order = np.asarray([5, 3, 1, 0, 2, 4])
    again = batched(keys[order], index[order])
    np.testing.assert_array_equal(np.asarray(again[1]), frames[order])
    np.testing.assert_array_equal(np.asarray(again[3]), np.asarray(rewards)[order])
