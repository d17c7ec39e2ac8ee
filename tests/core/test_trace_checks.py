"""``reset``/``step`` check the form of the key and of the action when traced (``jaxlab.trace_checks``).

For every family (first-person, grid single- and multi-player, memory task, PsychLab, text) and the
wrappers a user steps (AutoReset, DiscreteActions, GymnaxAdapter, VmapAutoReset,
OptimisticAutoReset, CheckedActions), under ``jax.jit`` and under ``jax.vmap``: a wrong shape, a
wrong dtype, a dict for an array (an array for a dict), None, a str and malformed keys end in one
TypeError/ValueError naming the env, the argument, what was given and what was expected; what
correct code passes is accepted; and the checks add nothing to the program (its jaxpr is the same
without them). ``CheckedActions`` checks values (NaN, out of range) with checkify on request.

The refused calls fail while tracing, before anything compiles: the states are abstract
(``jax.eval_shape``), and each env is built once.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, NamedTuple

import jax
import numpy as np
import pytest
from jax.experimental import checkify

import jaxlab
from jaxlab import trace_checks
from jaxlab.bank import Bank
from jaxlab.env import Env
from jaxlab.errors import UnknownNameError
from jaxlab.kernels.grid.env import GridEnv
from jaxlab.kernels.text.env import TextEnv
from jaxlab.levels.dmlab.memory.actions import KEEP
from jaxlab.levels.lab2d import pushbox
from jaxlab.levels.lab2d.layout import GridLayout
from jaxlab.levels.text.generators import make_spec
from jaxlab.text import compile_spec
from jaxlab.types import ArraySpec
from jaxlab.wrappers import (AutoReset, CheckedActions, DiscreteActions, GymnaxAdapter, OptimisticAutoReset,
                             VmapAutoReset)
from jaxlab.wrappers.checked import check_values
import refusals

KEY = jax.random.key(0)
BATCH = 2
FP7 = np.zeros(7, np.int32)
MEM4 = np.zeros(4, np.float32)

#: a refusal's message is one line (no JAX internals)
refused = functools.partial(refusals.refused, one_line=True)


def _pushbox_env():
    """Pushbox (one player, a single ``MOVE`` action) in one hand-made 10×10 room (no generator to trace)."""
    rows = ["**********", "*P       *", "*  B  X  *"] + ["*" * 10] * 7
    room = np.array([[ord(c) for c in row.ljust(10, "*")] for row in rows], np.uint8)
    return GridEnv(pushbox.build(), observations=["1.POSITION"], layouts=Bank.stack([GridLayout(chars=room)]))


def _text_env():
    game = compile_spec(make_spec("tw-coin_collector", 3, level=1))[0]
    return TextEnv(Bank.stack([game]), observations=("score",))


BASES = {  # the bare envs, one per family (small frames, cheap observations)
    "first_person": lambda: jaxlab.make("nav_maze_static_01", width=32, height=24, observations=("DEBUG.POS.TRANS",)),
    "grid": _pushbox_env,
    "grid_players": lambda: jaxlab.make("jaxlab_running_with_scissors", observations=("1.REWARD",)),
    "memory": lambda: jaxlab.make("spot_diff_train", width=32, height=24, observations=("Score",)),
    "psychlab": lambda: jaxlab.make("arbitrary_visuomotor_mapping_train", width=32, height=24,
                                    observations=("Score",)),
    "text": _text_env,
}


class Family(NamedTuple):
    """An env to test: how to build it from the bare envs, the good actions it takes (the first is the
    plain one), and its bad actions: kind -> (action, error, fragments of the message)."""

    build: Callable[[dict], Any]
    good: tuple
    bad: dict


def _bad(dtype, shape, container, spec_text):
    return {"dtype": (dtype, TypeError, (spec_text,)), "shape": (shape, ValueError, (spec_text,)),
            "container": (container, TypeError, ()), "None": (None, TypeError, ("None",)),
            "str": ("forward", TypeError, ("got 'forward' (str)",))}


FIRST_PERSON_BAD = _bad(FP7.astype(np.float32), FP7[:3], {"MOVE_BACK_FORWARD": 1}, "int32[7]")
INDEX_BAD = _bad(1.0, FP7, {"forward": 1}, "int32[]")
MEMORY_BAD = _bad(MEM4.astype(bool), FP7.astype(np.float32), {"STRAFE_LEFT_RIGHT": -1.0}, "float32[4]")
FAMILIES = {
    "first_person": Family(lambda b: b["first_person"], (FP7, FP7.astype(np.uint8), [0, 0, 0, 1, 0, 0, 0]),
                           FIRST_PERSON_BAD),
    "grid": Family(lambda b: b["grid"], ({"MOVE": 1}, {"MOVE": np.uint8(2)}, {}),
                   _bad({"MOVE": 1.5}, {"MOVE": np.ones(2, np.int32)}, np.int32(1), "'MOVE'")),
    "grid_players": Family(lambda b: b["grid_players"], ({"1.move": 1, "2.turn": np.int8(-1)}, {"2.fireZap": 1}),
                           _bad({"1.move": np.float32(1)}, {"1.move": [1, 2]}, np.zeros(6, np.int32),
                                "action_spec()['1.move']: int32[]")),
    "memory": Family(lambda b: b["memory"], (MEM4, np.zeros(4, np.int32), [0.5, 0, 0, 1]), MEMORY_BAD),
    "psychlab": Family(lambda b: b["psychlab"], (MEM4, np.ones(4, np.float16)), MEMORY_BAD),
    "text": Family(lambda b: b["text"], (np.int32(0), 0, np.uint8(1)),
                   _bad(0.0, np.zeros(2, np.int32), {"command": 0}, "int32[]")),
    "auto_reset": Family(lambda b: AutoReset(b["first_person"]), (FP7,), FIRST_PERSON_BAD),
    "discrete": Family(lambda b: DiscreteActions(b["first_person"]), (np.int32(3), 3, np.uint8(8)), INDEX_BAD),
    "gymnax": Family(lambda b: GymnaxAdapter(DiscreteActions(b["first_person"])), (np.int32(3), 3), INDEX_BAD),
    "checked": Family(lambda b: CheckedActions(b["text"]), (np.int32(0), 0),
                      _bad(0.0, np.zeros(2, np.int32), {"command": 0}, "int32[]")),
}
BATCH_FAMILIES = {  # batch envs: jit their step directly (no vmap)
    "vmap_auto_reset": Family(lambda b: VmapAutoReset(b["grid_players"]),
                              ({"1.move": np.ones(BATCH, np.int32)},),
                              {"shape": ({"1.move": 1}, ValueError, ("(2,)",)),
                               "dtype": ({"1.move": np.ones(BATCH, np.float32)}, TypeError, ("(2,)",)),
                               "container": (np.ones(BATCH, np.int32), TypeError, ("'1.move'",))}),
    "optimistic": Family(lambda b: OptimisticAutoReset(b["text"], 1), (np.ones(BATCH, np.int32),),
                         {"shape": (np.int32(1), ValueError, ("shape (2,)",)),
                          "dtype": (np.ones(BATCH, np.float32), TypeError, ("shape (2,)",)),
                          "container": ({"command": np.ones(BATCH, np.int32)}, TypeError, ("int32[]",))}),
}
BAD_KINDS = ("dtype", "shape", "container", "None", "str")


@pytest.fixture(scope="module")
def bases():
    return {name: build() for name, build in BASES.items()}


@pytest.fixture(scope="module")
def envs(bases):
    """name -> (env, abstract state): every family's env, built once, and its first state's shapes."""
    out = {}
    for name, family in {**FAMILIES, **BATCH_FAMILIES}.items():
        env = family.build(bases)
        if isinstance(env, GymnaxAdapter):
            state = jax.eval_shape(env.reset, KEY)[1]
        elif name in BATCH_FAMILIES:
            state = jax.eval_shape(env.reset, jax.random.split(KEY, BATCH))[0]
        else:
            state = jax.eval_shape(env.reset, KEY)[0]
        out[name] = env, state
    return out


def batched(tree):
    """Abstract values of ``tree`` with a leading axis of BATCH."""
    def one(x):
        dtype = x.dtype if isinstance(x, jax.ShapeDtypeStruct) else jax.typeof(x).dtype
        return jax.ShapeDtypeStruct((BATCH,) + tuple(np.shape(x)), dtype)
    return jax.tree_util.tree_map(one, tree)


def step_fn(env):
    """``(state, action) -> ...``: the env's step (gymnax's with a fixed key)."""
    if isinstance(env, GymnaxAdapter):
        return lambda state, action: env.step(KEY, state, action)
    return env.step


def trace_step(env, state, action, how):
    """Trace one step under ``how`` ('jit' or 'vmap' over BATCH); nothing is compiled. A str action
    is closed over (jit and vmap take arrays only)."""
    step = step_fn(env)
    if how == "jit":
        if isinstance(action, str):
            return jax.jit(lambda s: step(s, action)).trace(state)
        return jax.jit(step).trace(state, action)
    if isinstance(action, str):
        return jax.eval_shape(jax.vmap(lambda s: step(s, action)), batched(state))
    return jax.eval_shape(jax.vmap(step), batched(state), batched(action))


# -- actions -------------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["jit", "vmap"])
@pytest.mark.parametrize("kind", BAD_KINDS)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_bad_action_is_refused_when_traced_naming_env_and_spec(envs, name, kind, how):
    env, state = envs[name]
    action, error, fragments = FAMILIES[name].bad[kind]
    refused(lambda: trace_step(env, state, action, how), error, f"{env!r}.step: action", "expected", *fragments)


@pytest.mark.parametrize("name", ["first_person", "grid", "memory", "text", "discrete"])
def test_the_message_says_what_was_given(envs, name):
    env, state = envs[name]
    given = {"first_person": "got float32[7]", "grid": "got float32[]", "memory": "got bool[4]",
             "text": "got float32[] (a Python float)", "discrete": "got float32[] (a Python float)"}[name]
    action, error, _ = FAMILIES[name].bad["dtype"]
    refused(lambda: step_fn(env)(state, action), error, given)


@pytest.mark.parametrize("name", BATCH_FAMILIES)
@pytest.mark.parametrize("kind", ["shape", "dtype", "container"])
def test_a_batch_env_refuses_actions_without_the_batch_axis(envs, name, kind):
    env, states = envs[name]
    action, error, fragments = BATCH_FAMILIES[name].bad[kind]
    refused(lambda: jax.jit(env.step).trace(states, action), error, f"{env!r}.step: action", *fragments)


@pytest.mark.parametrize("how", ["jit", "vmap"])
def test_an_unknown_action_name_is_refused_with_suggestions(envs, how):
    env, state = envs["grid_players"]
    refused(lambda: trace_step(env, state, {"1.mvoe": 1}, how), UnknownNameError, f"{env!r}.step",
            "'1.mvoe'", "'1.move'")


def spec_of(env):
    return env.env.action_spec() if isinstance(env, GymnaxAdapter) else env.action_spec()


@pytest.mark.parametrize("name", FAMILIES)
def test_every_good_action_form_is_accepted(envs, name):
    """Each good form passes the check, given directly and traced (a tracer) under jit and vmap."""
    env, _ = envs[name]
    spec = spec_of(env)

    def check(action):
        trace_checks.check_action("step", action, spec)
        return 0

    for action in FAMILIES[name].good:
        check(action)
        jax.jit(check).trace(action)
        jax.eval_shape(jax.vmap(check, axis_size=BATCH), batched(action))


@pytest.mark.parametrize("name", FAMILIES)
def test_the_plain_action_is_accepted_by_the_step_under_vmap(envs, name):
    """(Under jit: ``test_the_checks_add_nothing_to_the_program`` and every family's own tests.)"""
    env, state = envs[name]
    trace_step(env, state, FAMILIES[name].good[0], "vmap")


@pytest.mark.parametrize("name", BATCH_FAMILIES)
def test_a_batch_env_accepts_batched_actions(envs, name):
    env, states = envs[name]
    jax.jit(env.step).trace(states, BATCH_FAMILIES[name].good[0])


# -- keys ----------------------------------------------------------------------------------------

BAD_KEYS = {  # name -> (key, error, fragments); under vmap each is given per example
    "int": (0, TypeError, ("got int32[]",)),
    "int32 data": (np.zeros(2, np.int32), TypeError, ("got int32[2]",)),
    "float data": (np.zeros(2, np.float32), TypeError, ("got float32[2]",)),
    "raw shape": (np.zeros(3, np.uint32), ValueError, ("got uint32[3]",)),
    "batch of typed keys": (jax.random.split(KEY, 4), ValueError, ("got key<fry>[4]", "jax.vmap")),
    "batch of raw keys": (np.zeros((4, 2), np.uint32), ValueError, ("got uint32[4,2]", "jax.vmap")),
    "None": (None, TypeError, ("got None",)),
    "str": ("seed", TypeError, ("got 'seed' (str)",)),
    "huge int": (2 ** 40, TypeError, ("got 1099511627776 (int)",)),
}


def trace_reset(env, key, how):
    """Trace a reset from ``key`` under ``how``; under vmap BATCH copies of ``key``. A key that jit and
    vmap cannot take as an argument (a str, an int past int32) is closed over (under vmap, beside a
    batch of something else), as is None under vmap."""
    closed = isinstance(key, str) or (isinstance(key, int) and abs(key) >= 2 ** 31)
    if how == "jit":
        if closed:
            return jax.jit(lambda: env.reset(key)).trace()
        return jax.jit(env.reset).trace(key)
    if closed or key is None:
        return jax.eval_shape(jax.vmap(lambda _: env.reset(key)), np.zeros(BATCH))
    return jax.eval_shape(jax.vmap(env.reset), batched(key))


@pytest.mark.parametrize("how", ["jit", "vmap"])
@pytest.mark.parametrize("bad", BAD_KEYS)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_malformed_key_is_refused_when_traced(envs, name, bad, how):
    env, _ = envs[name]
    key, error, fragments = BAD_KEYS[bad]
    refused(lambda: trace_reset(env, key, how), error, f"{env!r}.reset: key: expected one PRNG key",
            "jax.random.key(seed)", "uint32[2]", *fragments)


def test_gymnax_step_checks_its_key(envs):
    env, state = envs["gymnax"]
    refused(lambda: jax.jit(env.step).trace(jax.random.split(KEY, 3), state, 0), ValueError,
            f"{env!r}.step: key", "got key<fry>[3]")


@pytest.mark.parametrize("name", BATCH_FAMILIES)
@pytest.mark.parametrize("key, error, given", [(KEY, ValueError, "got key<fry>[]"),
                                               (np.zeros(2, np.uint32), ValueError, "got uint32[2]"),
                                               (np.zeros((2, 2), np.int32), TypeError, "got int32[2,2]")])
def test_a_batch_env_reset_wants_a_batch_of_keys(envs, name, key, error, given):
    env, _ = envs[name]
    refused(lambda: jax.jit(env.reset).trace(key), error, f"{env!r}.reset: key: expected a batch of PRNG keys",
            given)


@pytest.mark.parametrize("name", FAMILIES)
def test_typed_and_raw_keys_are_accepted(envs, name):
    env, _ = envs[name]
    jax.jit(env.reset).trace(jax.random.PRNGKey(0))
    jax.eval_shape(jax.vmap(env.reset), jax.random.split(KEY, BATCH))


def test_a_python_int_key_called_directly_says_so(envs):
    env, _ = envs["text"]
    refused(lambda: env.reset(7), TypeError, "got int32[] (a Python int)")


# -- nothing in the program ------------------------------------------------------------------------

def _jaxprs(env, state, action):
    step, key = step_fn(env), (jax.random.split(KEY, BATCH) if isinstance(env, VmapAutoReset) else KEY)
    return str(jax.make_jaxpr(step)(state, action)), str(jax.make_jaxpr(env.reset)(key))


@pytest.mark.parametrize("name", ["first_person", "grid_players", "discrete", "gymnax", "optimistic"])
def test_the_checks_add_nothing_to_the_program(envs, name, monkeypatch):
    env, state = envs[name]
    action = {**FAMILIES, **BATCH_FAMILIES}[name].good[0]
    checked = _jaxprs(env, state, action)
    monkeypatch.setattr(trace_checks, "check_action", lambda *args, **kwargs: None)
    monkeypatch.setattr(trace_checks, "check_key", lambda *args, **kwargs: None)
    assert _jaxprs(env, state, action) == checked


# -- values under jit: CheckedActions ------------------------------------------------------------------

def failed_check(fn, *args):
    """The message of the first failing check of ``fn(*args)`` (jitted and checkified), or None."""
    err, _ = jax.jit(checkify.checkify(fn))(*args)
    return err.get()


def test_values_are_checked_against_the_bounds_naming_the_element(bases):
    spec = bases["first_person"].action_spec()

    def check(action):
        check_values("W.step", action, spec)

    message = failed_check(check, np.array([0, 0, 0, 3, 0, 0, 0], np.int32))
    assert message.startswith("W.step: action 'MOVE_BACK_FORWARD': expected a value in [-1, 1], got 3"), message
    assert "'LOOK_LEFT_RIGHT_PIXELS_PER_FRAME': expected a value in [-512, 512], got -600" in failed_check(
        check, np.array([-600, 0, 0, 0, 0, 0, 0], np.int32))
    assert failed_check(check, np.array([512, -512, 1, -1, 1, 1, 1], np.int32)) is None


def test_nan_is_refused_unless_the_spec_allows_it(bases):
    memory = bases["memory"].action_spec()
    assert memory.nan_allowed
    assert failed_check(lambda a: check_values("W", a, memory), KEEP) is None
    message = failed_check(lambda a: check_values("W", a, memory), np.array([np.nan, 0, np.inf, 0], np.float32))
    assert "action 'LOOK_LEFT_RIGHT': expected a value in [-1.0, 1.0], got inf" in message, message
    strict = memory.replace(nan_allowed=False)
    message = failed_check(lambda a: check_values("W", a, strict), KEEP)
    assert "action 'STRAFE_LEFT_RIGHT': expected a value in [-1.0, 1.0], got nan" in message, message


def test_dict_actions_are_checked_per_entry(bases):
    spec = bases["grid_players"].action_spec()
    message = failed_check(lambda a: check_values("W", a, spec), {"1.move": 1, "2.turn": np.int32(5)})
    assert "W: action '2.turn': expected a value in [-1, 1], got 5" in message, message
    assert failed_check(lambda a: check_values("W", a, spec), {"2.move": 4}) is None


@pytest.fixture(scope="module")
def checked_text(bases):
    """CheckedActions over the text env, its ``checkify``-ed step jitted plain and vmapped, and BATCH states."""
    env = CheckedActions(bases["text"])
    states, _ = jax.jit(jax.vmap(env.reset))(jax.random.split(KEY, BATCH))
    return env, states


@pytest.mark.parametrize("how", ["jit", "vmap"])
def test_checked_actions_raises_naming_the_env_and_the_value(checked_text, how):
    env, states = checked_text
    k = env.num_commands
    if how == "jit":
        step, state = jax.jit(checkify.checkify(env.step)), jax.tree_util.tree_map(lambda x: x[0], states)
        bad, good, shown = np.int32(k + 2), np.int32(k - 1), k + 2
    else:
        step, state = jax.jit(checkify.checkify(jax.vmap(env.step))), states
        bad, good, shown = np.array([0, -1], np.int32), np.array([0, k - 1], np.int32), -1
    err, _ = step(state, bad)
    expected = f"CheckedActions(TextEnv('')).step: action: expected a value in [0, {k - 1}], got {shown}"
    with pytest.raises(checkify.JaxRuntimeError, match=re.escape(expected)):
        err.throw()
    step(state, good)[0].throw()


def test_checked_actions_checks_in_advance_too(checked_text):
    """``advance``, which the auto-resets and the gymnax adapter call, checks the values as well."""
    env, states = checked_text
    err, _ = jax.jit(checkify.checkify(jax.vmap(env.advance)))(states, np.array([-3, 0], np.int32))
    assert "CheckedActions(TextEnv('')).advance: action: expected a value in [0, " in err.get()


def test_checked_actions_needs_checkify_under_jit(checked_text):
    env, states = checked_text
    with pytest.raises(ValueError, match="checkify.checkify"):
        jax.jit(env.step).lower(jax.tree_util.tree_map(lambda x: x[0], states), 0)


def test_checked_actions_needs_bounded_specs():
    class Unbounded(Env):
        name = "unbounded"

        def action_spec(self):
            return ArraySpec((2,), np.float32, "action")

    with pytest.raises(TypeError, match=r"CheckedActions needs bounded action specs .*Unbounded\('unbounded'\)"):
        CheckedActions(Unbounded())
