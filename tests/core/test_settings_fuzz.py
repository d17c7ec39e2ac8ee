"""Fuzzing settings through every entry point of every level family: hostile values (NaN, ±inf,
huge, negative, zero, wrong types, Lua strings) and valid ones (defaults and range ends).

For each drawn setting, ``jaxlab.make`` and the family's host (``jaxlab.grid.Lab2d`` and its
``write_property``; ``jaxlab.Lab``; ``jaxlab.memorytasks.load``; ``jaxlab.text.make_env``, ``make``
and ``start``) each either raise one ValueError or TypeError whose one-line message names the
setting, with no chained error, or build an env; the entry points agree where they take the same
value, and build the same configuration. Every configuration accepted then runs STEPS random
steps in one jitted scan, with finite rewards and float observations (once per configuration:
the accepted ones are few, each a compile).
"""
import numbers

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaxlab
import jaxlab.memorytasks as dm_memorytasks
from jaxlab.grid import Lab2d
from jaxlab.levels import lab2d
from jaxlab.levels.lab2d.checks import RANGES

STEPS = 50
NAN, INF = float("nan"), float("inf")
NUMBERS = (NAN, INF, -INF, 1e300, -1e300, 10 ** 30, 2 ** 31, 2 ** 63, 10 ** 400, -1, 0, -0.5, 0.5, 1e-300,
           np.float32("nan"), np.int64(-7), np.float64(2.5))
WRONG_TYPES = ("3", "abc", "", None, [1], {"a": 1}, True, False, 1j, b"1")
LUA_STRINGS = ("nan", "inf", "1e999", "-1", "0x10", "3" * 5000, " 2 ", "true")


def fuzz(examples: int):
    """Hypothesis settings: ``examples`` per family (an accepted new configuration costs a compile), the
    same examples on every run."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def values(valid):
    """A strategy: a hostile number, a value of the wrong type, a string, or (rarely: accepted values
    cost a compile) one of ``valid``."""
    return st.sampled_from(NUMBERS + WRONG_TYPES + LUA_STRINGS + tuple(valid))


def outcome(call, *names):
    """``call()``'s result, or None when it raised one clear ValueError or TypeError naming one of
    ``names`` (any other exception fails the test)."""
    try:
        return call()
    except (ValueError, TypeError) as error:
        message = str(error)
        assert any(name in message for name in names) and "\n" not in message, (names, message)
        assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__), message
        return None


def agree(label, *results):
    """Entry points given the same value all accept it or all refuse it."""
    assert len({r is None for r in results}) == 1, (label, results)


def lua_text(value):
    """``value`` as a host string (as DMLab's config and Lab2D's properties take numbers); others as given."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return "9" * 5000 if abs(int(value)).bit_length() > 4096 else str(int(value))
    return repr(float(value)) if isinstance(value, numbers.Real) else value


def random_action(spec, key):
    """A uniform random action within ``spec`` (a bounded spec or a dict of them)."""
    if isinstance(spec, dict):
        return {n: random_action(s, k) for (n, s), k in zip(sorted(spec.items()), jax.random.split(key, len(spec)))}
    if np.dtype(spec.dtype).kind == "f":
        return jax.random.uniform(key, spec.shape, spec.dtype, spec.minimum, spec.maximum)
    return jax.random.randint(key, spec.shape, spec.minimum, np.asarray(spec.maximum) + 1).astype(spec.dtype)


@pytest.fixture(scope="module")
def runs():
    """The configurations already run (key -> True), so that each compiles once."""
    return {}


def assert_runs_finite(runs, key, env):
    """``env`` (once per ``key``) reset and played for STEPS random actions in one jitted scan:
    every reward and float observation finite."""
    if key in runs:
        return
    spec = env.action_spec()

    def play(key):
        state, first = env.reset(key)

        def one(state, k):
            state, ts = env.step(state, random_action(spec, k))
            return state, (ts.reward, ts.observation)
        return first.observation, jax.lax.scan(one, state, jax.random.split(key, STEPS))[1]

    for leaf in jax.tree_util.tree_leaves(jax.device_get(jax.jit(play)(jax.random.PRNGKey(0)))):
        leaf = np.asarray(leaf)
        assert leaf.dtype.kind != "f" or np.isfinite(leaf).all(), key
    runs[key] = True


# -- grid levels: jaxlab.make, Lab2d(settings=...) and Lab2d.write_property --------------------------

def named(defaults, prefix=""):
    """(dotted name, default) of every setting in ``defaults``: nested ones dotted, after their table."""
    for name, value in defaults.items():
        yield prefix + name, value
        if isinstance(value, dict):
            yield from named(value, f"{prefix}{name}.")


def grid_valid(name, default):
    """The default and the ends of the setting's range (integer ends past 64 cut to 64: a grid of
    that side, or a beam that long, is valid but costs a larger compile)."""
    rule = RANGES.get(name)
    if rule is None:
        return [default, "TORUS"] if name == "topology" else [default]
    ends = [e if isinstance(e, float) else min(e, 64) for e in (rule.low, rule.high)][rule.low_open:]
    return [default] + [tuple(e for _ in default) if isinstance(default, tuple) else e for e in ends]


GRID_SETTINGS = st.sampled_from(sorted(lab2d.MODULES)).flatmap(
    lambda level: st.sampled_from(list(named(lab2d.MODULES[level].DEFAULT_SETTINGS))).flatmap(
        lambda named: st.tuples(st.just(level), st.just(named), values(grid_valid(*named)))))
GRID_OBSERVATIONS = ("1.REWARD", "1.POSITION")


@pytest.fixture(scope="module")
def grid_hosts():
    """One Lab2d per level, built on first use, whose properties the test writes."""
    return {}


@fuzz(8)
@given(drawn=GRID_SETTINGS)
def test_grid_settings_are_refused_or_run(runs, grid_hosts, drawn):
    level, (name, default), value = drawn
    head = name.split(".")[0]   # a nested setting's message may name the table (pushbox's room fit)
    made = outcome(lambda: jaxlab.make(level, layouts=0, observations=GRID_OBSERVATIONS, **{name: value}), head)
    host = outcome(lambda: Lab2d(level, ["WORLD.TEXT"], settings={name: value}), head)
    agree(drawn, made, host)
    if made is not None:
        assert host.env.spec.settings == made.spec.settings
        assert_runs_finite(runs, (level, repr(made.spec.settings)), made)

    if level not in grid_hosts:
        grid_hosts[level] = Lab2d(level, ["WORLD.TEXT"])
    env, key, text = grid_hosts[level], f"settings.{name}", lua_text(value)
    probe = key   # a sequence or a dict is a table of properties: read its first entry
    if isinstance(default, (tuple, dict)):
        probe += "." + (next(iter(default)) if isinstance(default, dict) else "1")
    before = env.read_property(probe)
    written = outcome(lambda: env.write_property(key, text) or True, name)
    if written is None:
        assert env.read_property(probe) == before, (drawn, "a refused write changed the setting")
    else:
        env.write_property(key, before)   # the next example starts from the defaults
    if isinstance(text, str):
        from_text = outcome(lambda: jaxlab.make(level, layouts=0, observations=GRID_OBSERVATIONS, **{name: text}),
                            head)
        agree((drawn, text), written, from_text)


# -- first-person levels: jaxlab.make and jaxlab.Lab's DMLab config -------------------------------------

@pytest.fixture(scope="module")
def corridor(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "corridor.txt"
    path.write_text("*******\n*P A G*\n*******\n")
    return str(path)


#: make's name -> (Lab's config key or None, valid values)
FIRST_PERSON = {"width": ("width", (8, 4096)), "height": ("height", (6, 4096)), "fps": ("fps", (1, 60, 1000)),
                "action_repeat": (None, (1, 4)),
                "episode_length_seconds": ("episodeLengthSeconds", (0.001, 1.5, 86400))}
FIRST_PERSON_SETTINGS = st.sampled_from(sorted(FIRST_PERSON)).flatmap(
    lambda name: st.tuples(st.just(name), values(FIRST_PERSON[name][1])))


@fuzz(15)
@given(drawn=FIRST_PERSON_SETTINGS)
def test_first_person_settings_are_refused_or_run(runs, corridor, drawn):
    name, value = drawn
    made = outcome(lambda: jaxlab.make(corridor, observations=("DEBUG.POS.TRANS", "VEL.TRANS"), **{name: value}),
                   name)
    config_key = FIRST_PERSON[name][0]
    if config_key is not None:
        lab = outcome(lambda: jaxlab.Lab(corridor, ["DEBUG.POS.TRANS"], {config_key: lua_text(value)}), config_key)
        typed = isinstance(value, numbers.Integral) if name != "episode_length_seconds" else \
            isinstance(value, numbers.Real)
        if typed and not isinstance(value, (bool, np.bool_)):   # the same number: the same answer
            agree(drawn, made, lab)
        if made is not None and lab is not None:
            assert (lab._width, lab._height, lab._fps) == (made.width, made.height, made.fps)
    if made is not None:   # no frame is observed: the frame size does not change the program
        assert_runs_finite(runs, ("first-person", made.fps, made.action_repeat,
                                  int(made.episode_frames(made.bank.get(0)))), made)


# -- memory tasks: jaxlab.make and dm_memorytasks' load ------------------------------------------------

MEMORY_LEVEL = "continuous_recognition_train"   # a PsychLab task: the cheapest to compile
#: make's name -> (the host's name, valid values); "frame" is width and height together
MEMORY = {"width": ("width", (96,)), "height": ("height", (72,)), "action_repeat": ("num_action_repeats", (1, 3)),
          "episode_length_seconds": ("episode_length_seconds", (0.001, 1.5, 86400))}
#: a frame size: a valid one, one that is not 4:3, or width and height drawn apart
FRAMES = st.one_of(st.sampled_from([(8, 6), (4, 3), (4096, 3072), (8, 8), (128, 72)]),
                   st.tuples(values((8,)), values((6,))))
MEMORY_SETTINGS = st.one_of(
    FRAMES.map(lambda frame: {"width": frame[0], "height": frame[1]}),
    st.sampled_from(sorted(MEMORY)).flatmap(lambda name: values(MEMORY[name][1]).map(lambda v: {name: v})))


@fuzz(25)
@given(ours=MEMORY_SETTINGS)
def test_memory_task_settings_are_refused_or_run(runs, ours):
    names = tuple(f"'{name}'" for name in ours)   # a frame that is not 4:3 names both
    made = outcome(lambda: jaxlab.make("memory/" + MEMORY_LEVEL, observations=("AvatarPosition", "Score"), **ours),
                   *names)
    theirs = {MEMORY[name][0]: value for name, value in ours.items()}
    host = outcome(lambda: dm_memorytasks.load({"seed": 0, "level_name": MEMORY_LEVEL, **theirs}),
                   *(f"'{name}'" for name in theirs))
    agree(ours, made, host)
    if made is not None:
        kernel = host.env
        assert (kernel.width, kernel.height, kernel.action_repeat, kernel.episode_seconds) == \
            (made.width, made.height, made.action_repeat, made.episode_seconds)
        # no frame is observed: the frame size does not change the program
        assert_runs_finite(runs, ("memory", made.action_repeat, made.episode_frames), made)


# -- text families: jaxlab.make, jaxlab.text.make_env, make and start ----------------------------------

TEXT_FAMILY = "tw-coin_collector"
TEXT = {"level": (1, 2), "seed": (0, 2 ** 63 - 1), "num_games": (1, 2), "max_steps": (1, 2 ** 31 - 1),
        "text_length": (1, 8)}
TEXT_SETTINGS = st.sampled_from(sorted(TEXT)).flatmap(lambda name: st.tuples(st.just(name), values(TEXT[name])))


@pytest.fixture(scope="module")
def text_game():
    return jaxlab.text.make(TEXT_FAMILY, 0, level=1)


@fuzz(15)
@given(drawn=TEXT_SETTINGS)
def test_text_settings_are_refused_or_run(runs, text_game, drawn):
    name, value = drawn
    made = outcome(lambda: jaxlab.make(TEXT_FAMILY, **{name: value}), name)
    agree(drawn, made, outcome(lambda: jaxlab.text.make_env(TEXT_FAMILY, **{name: value}), name))
    if name in ("level", "seed"):
        agree(drawn, made, outcome(lambda: jaxlab.text.make(TEXT_FAMILY, **{name: value}), name))
    if name == "max_steps":
        agree(drawn, made, outcome(lambda: jaxlab.text.start(text_game, max_steps=value), name))
    if made is not None:
        game = (name, int(value)) if name in ("level", "seed") else ()
        assert_runs_finite(runs, ("text", made.num_games, made.max_steps, made.text_length) + game, made)
