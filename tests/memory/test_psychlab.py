"""The PsychLab kernel itself: the gaze pans the view, fixating starts a trial, the right target pays
1 and a wrong one 0, and the procedural images are all distinct."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.kernels.psychlab.env import DWELL_FRAMES, GAZE_SPEED
from jaxlab.levels.dmlab.memory import actions
from jaxlab.levels.dmlab.psychlab.stimuli import NUM_IMAGES
from jaxlab.levels.dmlab.psychlab.task import FIXATE, RESPOND
from jaxlab.render.psychlab.images import image_features

ZERO = jnp.zeros((4,), jnp.float32)


@pytest.fixture(scope="module")
def avm():
    env = jaxlab.make("memory/arbitrary_visuomotor_mapping_train", action_repeat=DWELL_FRAMES)
    return env, jax.jit(env.reset), jax.jit(env.step)


def test_the_gaze_pans_the_view_under_a_fixed_red_reticle(avm):
    env, reset, step = avm
    state, ts = reset(jax.random.PRNGKey(0))
    right = ZERO.at[actions.LOOK_LEFT_RIGHT].set(1.0).at[actions.MOVE_BACK_FORWARD].set(1.0)
    moved, ts2 = step(state, right)
    np.testing.assert_allclose(np.asarray(moved.gaze), [DWELL_FRAMES * GAZE_SPEED, 0.0], atol=1e-6)
    before, after = np.asarray(ts.observation["RGB_INTERLEAVED"]), np.asarray(ts2.observation["RGB_INTERLEAVED"])
    room_before = before[36].sum(-1) < 120                 # the middle row's pixels showing the room
    room_after = after[36].sum(-1) < 120
    assert room_after[48:].sum() > room_before[48:].sum() and room_after[:48].sum() < room_before[:48].sum()
    for frame in (before, after):
        np.testing.assert_array_equal(frame[36, 48], [255, 0, 0])


def test_fixating_the_centre_starts_the_trial_and_looking_away_does_not(avm):
    env, reset, step = avm
    state, ts = reset(jax.random.PRNGKey(1))
    assert int(env.phase(state)) == FIXATE
    assert _colours(ts) == {(118, 118, 118), (28, 28, 34), (255, 255, 255), (255, 0, 0)}   # the mark only
    away = state.replace(gaze=jnp.asarray([0.5, 0.0]))
    assert int(env.phase(step(away, ZERO)[0])) == FIXATE
    state, ts = step(state, ZERO)                           # the gaze starts on the mark: dwell
    assert int(env.phase(state)) == RESPOND                 # (no study phase: image and buttons at once)
    assert len(_colours(ts)) >= 6 and (235, 235, 235) in _colours(ts)                   # an image, buttons


def _colours(ts):
    """The set of RGB colours in a TimeStep's frame."""
    return {tuple(c) for c in np.asarray(ts.observation["RGB_INTERLEAVED"]).reshape(-1, 3).tolist()}


def _at_response(env, step, state):
    """Play the oracle until the response targets are up (the gaze back at the centre)."""
    for _ in range(20):
        if int(env.phase(state)) == RESPOND:
            return state.replace(gaze=jnp.zeros((2,)), dwell=jnp.int32(0), dwell_on=jnp.int32(-1))
        state, _ = step(state, env.oracle_action(state))
    raise AssertionError("no response phase")


def test_the_right_target_pays_one_and_a_wrong_one_nothing(avm):
    env, reset, step = avm
    state, _ = reset(jax.random.PRNGKey(2))
    state = _at_response(env, step, state)
    answer = int(state.current.answer[0])
    for target, paid in ((answer, 1.0), ((answer + 1) % 4, 0.0)):
        there = state.replace(gaze=jnp.asarray(env.task.targets[0][target]))
        after, ts = step(there, ZERO)
        assert float(ts.reward) == paid and float(after.episode_return) == paid
        assert int(after.trial) == 1 and int(env.phase(after)) == FIXATE


def test_continuous_recognition_remembers_what_it_showed():
    env = jaxlab.make("memory/continuous_recognition_train", action_repeat=DWELL_FRAMES, observations=("Score",))
    step = jax.jit(env.step)
    state, _ = env.reset(jax.random.PRNGKey(3))
    seen = set()
    for _ in range(150):
        image, trial = int(state.current.study[0]), int(state.trial)
        assert int(state.current.answer[0]) == (image in seen)
        state, _ = step(state, env.oracle_action(state))
        if int(state.trial) > trial:
            seen.add(image)
    assert len(seen) > 5 and float(state.episode_return) == int(state.trial)


def test_every_image_id_is_a_distinct_picture():
    features = np.stack([np.asarray(f) for f in image_features(jnp.arange(NUM_IMAGES))], axis=1)
    assert len({tuple(f) for f in features}) == NUM_IMAGES
    assert (features[:, 1] != features[:, 2]).all()       # foreground ≠ background
    for parity in (0, 1):                                  # train and holdout both see every shape
        assert set(features[parity::2, 0]) == set(range(8))
