"""Hypothesis draws host calls: every host's ``step`` with actions (and ``Lab.step``'s ``num_steps``) made
of good and hostile values — NaN, inf, huge, negative, wrong types and shapes, unknown or misspelled
names, control characters in text commands. Each call either raises one clear TypeError/ValueError
(a one-line message naming the call, no chained error) and changes nothing, or steps with a finite
reward. The parametrized cases of each host: tests/hosts/test_host_input_checks.py; settings:
tests/core/test_settings_fuzz.py."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import jaxlab
import jaxlab.memorytasks as dm_memorytasks
from jaxlab.grid import Lab2d
from jaxlab.text import EnvInfos, make, start
from refusals import leaves

FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
CORRIDOR = "*******\n*P   G*\n*******\n"

#: scalars a careless or hostile caller passes: good numbers, edges, NaN/inf, huge, and other types
NUMBERS = st.one_of(st.integers(-3, 3), st.integers(-2 ** 70, 2 ** 70), st.floats(),
                    st.sampled_from([np.int64(1), np.float32("nan"), np.uint8(255), np.bool_(True), np.int32(-1)]))
JUNK = st.one_of(st.none(), st.booleans(), st.text(max_size=4), st.binary(max_size=4), st.just(1j),
                 st.lists(st.integers(-2, 2), max_size=3),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
VALUES = st.one_of(NUMBERS, JUNK)


def mixed(good, bad):
    """``good`` or ``bad``, each drawn half the time (``st.one_of`` favours neither reliably)."""
    return st.booleans().flatmap(lambda g: good if g else bad)


def refused_or_stepped(call, name: str, state_of):
    """Run ``call()``: a refusal is one TypeError/ValueError naming ``name`` on one line, with no
    chained error, and ``state_of()`` unchanged; a step returns a finite reward. Returns whether it stepped."""
    before = leaves(state_of())
    try:
        reward = call()
    except (TypeError, ValueError) as error:
        message = str(error)
        assert name in message and "\n" not in message, message
        assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__), repr(error)
        after = leaves(state_of())
        assert len(before) == len(after) and all(np.array_equal(a, b, equal_nan=True) for a, b in zip(before, after))
        event(f"refused: {type(error).__name__}")
        return False
    assert math.isfinite(reward), reward
    event("stepped")
    return True


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "corridor.txt"
    path.write_text(CORRIDOR)
    env = jaxlab.Lab(str(path), ["DEBUG.POS.TRANS"], {"width": "32", "height": "24"})
    env.reset(seed=0)
    return env


LAB_ACTIONS = mixed(
    st.builds(lambda look, move, press: np.array(look + move + press, np.intc),   # DMLab's ranges
              st.lists(st.integers(-512, 512), min_size=2, max_size=2),
              st.lists(st.integers(-1, 1), min_size=2, max_size=2),
              st.lists(st.integers(0, 1), min_size=3, max_size=3)),
    st.one_of(st.builds(lambda dtype, shape, values: np.resize(np.array(values), shape).astype(dtype),
                        st.sampled_from([np.intc, np.int64, np.float64, np.bool_, np.uint8]),
                        st.sampled_from([(7,), (6,), (8,), (7, 1), ()]),
                        st.lists(st.integers(-600, 600), min_size=1, max_size=7)),
              st.lists(st.integers(-2, 2), min_size=7, max_size=7), JUNK))
NUM_STEPS = mixed(st.integers(1, 3), st.one_of(st.integers(-2, 0), st.just(10 ** 9), VALUES))


@FUZZ
@given(action=LAB_ACTIONS, num_steps=NUM_STEPS)
def test_lab_steps_or_refuses(lab, action, num_steps):
    if not lab.is_running():
        lab.reset(seed=0)
    refused_or_stepped(lambda: lab.step(action, num_steps), "Lab.step: ", lambda: lab._state)


@pytest.fixture(scope="module")
def grid():
    env = Lab2d("jaxlab_predator_prey", ["WORLD.TEXT"], seed=1)
    env.reset()
    return env


GRID_NAMES = st.sampled_from(["1.move", "1.turn", "2.move", "5.turn", "move", "1.mvoe"])
GRID_ACTIONS = mixed(st.dictionaries(st.sampled_from(["1.move", "1.turn", "2.move"]), st.integers(-1, 1), max_size=3),
                     st.one_of(st.dictionaries(GRID_NAMES, VALUES, max_size=3), JUNK))


@FUZZ
@given(action=GRID_ACTIONS)
def test_lab2d_steps_or_refuses(grid, action):
    def call():
        ts = grid.step(action)
        if ts.last():
            grid.reset()
        return float(np.sum(ts.reward)) if ts.reward is not None else 0.0
    refused_or_stepped(call, "Lab2d.step: ", lambda: grid._state)


@pytest.fixture(scope="module")
def memory():
    env = dm_memorytasks.load(dm_memorytasks.EnvironmentSettings(seed=0, level_name="invisible_goal_empty_arena_train",
                                                                 width=32, height=24))
    env.reset()
    return env


MEMORY_NAMES = ["MOVE_BACK_FORWARD", "STRAFE_LEFT_RIGHT", "LOOK_LEFT_RIGHT", "LOOK_DOWN_UP"]
MEMORY_ACTIONS = mixed(st.dictionaries(st.sampled_from(MEMORY_NAMES), st.floats(-1, 1), max_size=3),
                       st.one_of(st.dictionaries(st.sampled_from(MEMORY_NAMES + ["FIRE", "JUMP", "MOVE"]), VALUES,
                                                 max_size=3), JUNK))


@FUZZ
@given(action=MEMORY_ACTIONS)
def test_memory_host_steps_or_refuses(memory, action):
    def call():
        ts = memory.step(action)
        if ts.last():
            memory.reset()
        return float(ts.reward or 0.0)
    refused_or_stepped(call, "step", lambda: memory.state)


@pytest.fixture(scope="module")
def text_env():
    env = start(make("tw-coin_collector", seed=0, level=5), EnvInfos(admissible_commands=True))
    env.reset()
    return env


COMMANDS = st.one_of(st.text(max_size=30), st.sampled_from(["go east", "take coin", "look", " GO  EAST ", "\x1b[2J",
                                                           "go east\x07", "x" * 10_000]), JUNK)


@FUZZ
@given(command=COMMANDS)
def test_text_host_steps_or_refuses(text_env, command):
    def call():
        state, reward, done = text_env.step(command)
        assert all(ord(c) >= 32 or c in "\n\t" for c in state["feedback"]), repr(state["feedback"])
        if done:
            text_env.reset()
        return float(reward)
    stepped = refused_or_stepped(call, "step", lambda: text_env._state)
    assert stepped or not isinstance(command, str)
