"""DMLab-30's PsychLab levels (``PsychlabScreenEnv``): DMLab's hover rules, rewards, timing in frames,
staircases, trial caps; a mixed batch under jit(vmap(step)); every first-person observation name."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.kernels.first_person.observations import OBSERVATION_NAMES
from jaxlab.kernels.psychlab import dmlab30_view as view
from jaxlab.kernels.psychlab.dmlab30_env import PsychlabScreenEnv
from jaxlab.levels.dmlab.dmlab30 import psychlab_screen as ps
from jaxlab.levels.dmlab.dmlab30 import psychlab_sequential_comparison as sc
from jaxlab.levels.dmlab.dmlab30 import psychlab_visual_search as vs
from jaxlab.levels.dmlab.dmlab30.psychlab import SCREEN_LEVELS

NAMES = tuple(SCREEN_LEVELS)
ZERO = jnp.zeros((7,), jnp.int32)


@pytest.fixture(scope="module")
def game():
    env = PsychlabScreenEnv(width=32, height=24, observations=OBSERVATION_NAMES)
    return env, jax.jit(env.init_state), jax.jit(env.step)


def look_at(point):
    """float32[2]: look angles (degrees right, up) putting the gaze on screen point ``point``."""
    return jnp.rad2deg(jnp.arctan(jnp.asarray([point[0], point[1] - view.LEVEL_GAZE_Y]) / view.DISTANCE))


def to_response(game, level, seed=0):
    """A state of ``level`` whose first trial's response screen is up, the gaze on the centre."""
    env, init, step = game
    state = init(jax.random.PRNGKey(seed), NAMES.index(level)).replace(look=look_at((0.0, 0.0)))
    state, _ = step(state, ZERO)
    if level == "psychlab_sequential_comparison":
        assert int(state.phase) == ps.STUDY
        end = env.layout(state.level_index)["end_buttons"][state.current.end_button]
        state, _ = step(state.replace(look=look_at(end)), ZERO)
        assert int(state.hovered) == 0 and int(state.phase) == ps.STUDY
        state, _ = step(state.replace(look=look_at((0.0, 0.0))), ZERO)
        delay = int(state.current.delay)
        assert int(state.phase) == ps.DELAY and delay in sc.DELAYS
        for _ in range(delay - 1):
            state, _ = step(state, ZERO)
        assert int(state.phase) == ps.DELAY
        state, _ = step(state, ZERO)
    assert int(state.phase) == ps.RESPOND
    return state


@pytest.mark.parametrize("level", NAMES)
def test_right_button_pays_one_wrong_pays_zero_and_the_next_fixation_follows_one_frame_later(game, level):
    env, init, step = game
    state = to_response(game, level)
    buttons = env.layout(state.level_index)["buttons"]
    answer = int(state.current.answer)
    for button, reward in ((answer, 1.0), ((answer + 1) % len(SCREEN_LEVELS[level].buttons), 0.0)):
        s, ts = step(state.replace(look=look_at(buttons[button])), ZERO)
        assert int(s.hovered) == button and float(ts.reward) == 0.0          # the hover colours, pays nothing
        frame = np.asarray(ts.observation["RGB_INTERLEAVED"]).reshape(-1, 3).tolist()
        assert (ps.BUTTON_RGB[ps.BUTTON_GREEN if reward else ps.BUTTON_RED] in map(tuple, frame))
        s, ts = step(s.replace(look=look_at((0.0, 0.0))), ZERO)              # leaving it answers
        assert float(ts.reward) == reward and int(s.trial) == 1 and int(s.phase) == ps.WAIT
        s, _ = step(s.replace(look=look_at((0.5, 0.5))), ZERO)
        assert int(s.phase) == ps.FIXATE                                      # one frame's wait
        s, _ = step(s.replace(look=look_at((0.0, 0.0))), ZERO)
        assert int(s.phase) in (ps.STUDY, ps.RESPOND)                         # one frame's hover fixates


def test_the_fixation_cross_needs_the_gaze_on_its_centre(game):
    env, init, step = game
    state = init(jax.random.PRNGKey(3), 0)
    s, _ = step(state.replace(look=look_at((0.08, 0.0))), ZERO)
    assert int(s.phase) == ps.FIXATE
    s, _ = step(state.replace(look=look_at((0.04, -0.04))), ZERO)
    assert int(s.phase) == ps.RESPOND


def test_trial_cap_terminates_and_time_limit_truncates(game):
    env, init, step = game
    state = to_response(game, "psychlab_visual_search")
    cap = SCREEN_LEVELS["psychlab_visual_search"].trials_cap
    assert cap == 80 and SCREEN_LEVELS["psychlab_visual_search"].episode_seconds == 150
    hovered, _ = step(state.replace(look=look_at(env.layout(state.level_index)["buttons"][0]), trial=cap - 1), ZERO)
    s, ts = step(hovered.replace(look=look_at((0.0, 0.0))), ZERO)
    assert bool(ts.extras["terminated"]) and float(ts.discount) == 0.0
    s, ts = step(state.replace(frames=jnp.int32(150 * 60 - 1)), ZERO)
    assert bool(ts.extras["truncated"]) and not bool(ts.extras["terminated"]) and float(ts.discount) == 1.0
    assert float(ts.observation["FRAMES_REMAINING_AT_60"][0]) == 0.0


def test_staircase_promotes_after_a_perfect_block_and_demotes_below_half():
    s = ps.new_staircase(1)
    s, ended = ps.staircase_step(s, jnp.bool_(True), 10, demotes=True)
    assert bool(ended) and int(s.level) == 2 and int(s.rung) == 2
    for correct in (True, False):                     # 1 of 2 right: at most half, demoted
        s, _ = ps.staircase_step(s, jnp.bool_(correct), 10, demotes=True)
    assert int(s.level) == 1 and int(s.rung) == 1
    s = s.replace(level=jnp.int32(3), rung=jnp.int32(3))
    for correct in (True, False, True):               # 2 of 3: stays
        s, _ = ps.staircase_step(s, jnp.bool_(correct), 10, demotes=True)
    assert int(s.level) == 3 and int(s.rung) == 3
    top = s.replace(level=jnp.int32(1), rung=jnp.int32(10))
    assert int(ps.staircase_step(top, jnp.bool_(True), 10, demotes=True)[0].rung) == 10
    s, _ = ps.staircase_step(ps.new_staircase(1).replace(level=jnp.int32(2), rung=jnp.int32(2)), jnp.bool_(False), 9,
                             demotes=False)
    s, _ = ps.staircase_step(s, jnp.bool_(False), 9, demotes=False)
    assert int(s.level) == 2                          # arbitrary visuomotor mapping never demotes


def test_visual_search_set_size_follows_the_rung_and_the_answer_the_target():
    task = SCREEN_LEVELS["psychlab_visual_search"]
    draw = jax.jit(task.new_trial)
    memory = task.init_memory(jax.random.PRNGKey(0))
    for rung in (1, 6, 7, 10):
        for seed in range(3):
            trial, _ = draw(jax.random.PRNGKey(seed), memory.replace(stair=memory.stair.replace(rung=jnp.int32(rung))))
            cells = np.asarray(trial.study)
            assert (cells >= 0).sum() == vs.SET_SIZES[rung - 1]
            assert int(trial.answer) == int((cells == 0).any())


def test_sequential_comparison_test_array_differs_by_one_object_iff_the_answer_is_different():
    task = SCREEN_LEVELS["psychlab_sequential_comparison"]
    draw = jax.jit(task.new_trial)
    memory = task.init_memory(jax.random.PRNGKey(0))
    memory = memory.replace(stair=memory.stair.replace(rung=jnp.int32(5)))
    for seed in range(8):
        trial, _ = draw(jax.random.PRNGKey(seed), memory)
        study, test = np.asarray(trial.study), np.asarray(trial.test)
        assert (study >= 0).sum() == 5 and not (study[~sc.ALLOWED] >= 0).any()
        assert (study != test).sum() == (1 - int(trial.answer))


def test_continuous_recognition_says_old_exactly_for_images_shown_before():
    task = SCREEN_LEVELS["psychlab_continuous_recognition"]
    draw = jax.jit(task.new_trial)
    memory, shown, answers = task.init_memory(jax.random.PRNGKey(5)), set(), []
    for n in range(40):
        trial, memory = draw(jax.random.PRNGKey(n), memory)
        image = int(trial.image)
        answers.append(int(trial.answer))
        assert int(trial.answer) == (1 if image in shown else 0)
        shown.add(image)
    assert answers[0] == 0 and 10 < sum(answers) < 30
    other = task.init_memory(jax.random.PRNGKey(6))
    assert int(ps.new_image(other, 0, 4096)) != int(ps.new_image(task.init_memory(jax.random.PRNGKey(5)), 0, 4096))


def test_visuomotor_mapping_hints_first_showings_and_grows_after_perfect_blocks():
    task = SCREEN_LEVELS["psychlab_arbitrary_visuomotor_mapping"]
    draw, finish = jax.jit(task.new_trial), jax.jit(task.finish)
    memory = task.init_memory(jax.random.PRNGKey(0))
    trial, memory = draw(jax.random.PRNGKey(1), memory)
    assert bool(trial.hint) and int(memory.count) == 1
    memory = finish(jax.random.PRNGKey(2), memory, trial, jnp.bool_(True))
    assert int(memory.count) == 2
    seen = []
    for n in range(2):
        trial, memory = draw(jax.random.PRNGKey(3 + n), memory)
        seen.append((int(trial.image), bool(trial.hint)))
        memory = finish(jax.random.PRNGKey(9 + n), memory, trial, jnp.bool_(n == 0))
    assert len({i for i, _ in seen}) == 2 and sorted(h for _, h in seen) == [False, True]
    assert int(memory.count) == 2                    # a wrong answer in the block: no new pair


def test_mixed_batch_is_deterministic_in_any_order_and_gives_every_observation_spec(game):
    env, _, _ = game
    keys = jax.random.split(jax.random.PRNGKey(7), 8)
    levels = jnp.arange(8) % 4

    def run(keys, levels):
        states = jax.vmap(env.init_state)(keys, levels)

        def body(states, _):
            states, ts = jax.vmap(env.step)(states, jax.vmap(env.oracle_action)(states))
            return states, ts.reward
        states, rewards = jax.lax.scan(body, states, None, length=40)
        return states, rewards, jax.vmap(env.observe)(states)

    run = jax.jit(run)
    states, rewards, obs = run(keys, levels)
    order = jnp.asarray([5, 2, 7, 0, 1, 6, 3, 4])
    states2, rewards2, obs2 = run(keys[order], levels[order])
    np.testing.assert_array_equal(np.asarray(rewards)[:, order], np.asarray(rewards2))
    np.testing.assert_array_equal(np.asarray(obs["RGB_INTERLEAVED"])[order], np.asarray(obs2["RGB_INTERLEAVED"]))
    assert np.asarray(rewards).sum() >= 8 and set(np.asarray(states.level_index).tolist()) == {0, 1, 2, 3}
    for name, spec in env.observation_spec().items():
        assert obs[name].shape[1:] == spec.shape and obs[name].dtype == spec.dtype, name


def test_registered_names_make_one_level_envs():
    env = jaxlab.make("contributed/dmlab30/psychlab_visual_search")
    assert isinstance(env, PsychlabScreenEnv) and env.levels == ("psychlab_visual_search",)
    assert all(name in jaxlab.levels.names() for name in NAMES)
    assert jaxlab.make("psychlab_continuous_recognition").action_spec().shape == (7,)
