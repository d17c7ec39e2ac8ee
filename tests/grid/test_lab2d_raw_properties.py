"""Properties and level factories of Lab2D raw-API scripts, compiled (``compile_lua.lab2d.raw_properties``),
against dmlab2d (and lupa's Lua 5.4 where dmlab2d's Lua 5.1 writes numbers otherwise).

``properties.lua`` and ``factory.lua`` are played by dmlab2d and by their compiled ``RawEnv`` on the same
actions, with the same property reads and writes at the same steps; ``jaxlab.grid.Lab2d`` over a raw
script is played beside ``dmlab2d.Environment``; constructs a property callback cannot compile are
refused at their ``file:line``.
"""
import functools
from pathlib import Path

import dm_env
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.errors import LuaScriptError
from compile_lua.loading import load_script
from grid.lab2d_reference import action_spec, dmlab2d_trajectory, jaxlab_trajectory, open_level, random_actions
from jaxlab.hosts.lab2d_raw import RawLab2d
from jaxlab.kernels.lab2d_raw import RawEnv
from jaxlab.levels.lab2d.properties import PropertyAttribute

RAW = Path(__file__).parent / "lab2d_raw"
KEYS = ("params.bonus", "state.score", "state.frame", "state.missing", "params", "")


@functools.lru_cache(maxsize=None)
def raw_env(path, argument=""):
    compiled = compile_in_process(path, argument=argument)
    return RawEnv(*compiled.raw.env_parts())


def assert_same_play(mine, theirs):
    assert mine["properties"] == theirs["properties"] and mine["writes"] == theirs["writes"]
    np.testing.assert_array_equal(mine["rewards"], theirs["rewards"])
    np.testing.assert_array_equal(mine["ended"], theirs["ended"])
    assert list(mine["observations"]) == list(theirs["observations"])
    for name, values in theirs["observations"].items():
        assert mine["observations"][name].dtype == values.dtype
        np.testing.assert_array_equal(mine["observations"][name], values, err_msg=name)


def test_properties_read_and_written_between_steps_equal_dmlab2d():
    actions = random_actions(action_spec(RAW, "properties"), 16, seed=3)
    writes = {0: {"params.bonus": "4"}, 3: {"params.bonus": "0x2", "state.score": "9"},
              5: {"params.bonus": "12", "nope": "1", "params": "1"}, 6: {"params.bonus": "2.5"},
              9: {"params.bonus": " 7 ", "state.frame": "0"}, 12: {"params.bonus": "abc"}}
    theirs = dmlab2d_trajectory(RAW, "properties", actions=actions, reads=KEYS, writes=writes)
    mine = jaxlab_trajectory(raw_env(RAW / "properties.lua"), actions, reads=KEYS, writes=writes)
    assert_same_play(mine, theirs)
    assert {w[3] for w in mine["writes"]} == {True, False} and len(set(mine["rewards"])) >= 3


def test_property_listing_equals_dmlab2d():
    env = raw_env(RAW / "properties.lua")
    state, _ = env.reset(jax.random.PRNGKey(0))
    lab = open_level(RAW, "properties")
    for key in ("", "params", "state", "params.bonus", "missing"):
        try:
            theirs = [(name, PropertyAttribute(int(attribute))) for name, attribute in lab.list_property(key)]
        except KeyError:
            with pytest.raises(KeyError):
                env.list_property(state, key)
            continue
        assert env.list_property(state, key) == theirs


def test_a_write_is_pure_and_runs_on_a_batch():
    env = raw_env(RAW / "properties.lua")
    states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(1), 3))
    write = jax.jit(jax.vmap(env.write_property, (0, None, None)), static_argnums=(1, 2))
    written, codes = write(states, "params.bonus", "5")
    assert codes.tolist() == [0, 0, 0]
    states, ts = jax.vmap(env.step)(written, {"collect": jnp.ones(3, jnp.int32)})
    assert ts.reward.tolist() == [5, 5, 5]
    assert write(states, "state.score", "1")[1].tolist() == [2, 2, 2]


@pytest.mark.parametrize("name, argument", [("factory", ""), ("factory:double", "double"), ("factory:", "")])
def test_a_level_factory_takes_the_name_argument(name, argument):
    theirs = dmlab2d_trajectory(RAW, name, actions=[{}] * 8)
    assert_same_play(jaxlab_trajectory(raw_env(RAW / "factory.lua", argument), [{}] * 8), theirs)


def test_make_passes_the_name_argument_to_a_factory():
    env = jaxlab.make("factory:double", level_directory=RAW)   # compiled in the isolated child
    assert isinstance(env, RawEnv)
    assert_same_play(jaxlab_trajectory(env, [{}] * 6), dmlab2d_trajectory(RAW, "factory:double", actions=[{}] * 6))


def test_factory_forms_compile(tmp_path):
    # a named function returned, and a factory over an api table made at the top level
    api = ("local api = {}\nfunction api:observationSpec()\n"
           "  return {{name = 'N', type = 'tensor.Int32Tensor', shape = {}}}\nend\n"
           "function api:start() end\nfunction api:advance() return true, SCALE end\n"
           "function api:observation() return SCALE end\n")
    (tmp_path / "named.lua").write_text(
        "local function make(arg)\n  local SCALE = tonumber(arg) or 1\n" + api + "  return api\nend\nreturn make\n")
    (tmp_path / "outer.lua").write_text("local SCALE = 3\n" + api + "return function() return api end\n")
    for name, argument, reward in (("named", "4", 4.0), ("named", "x", 1.0), ("outer", "9", 3.0)):
        run = jaxlab_trajectory(raw_env(tmp_path / f"{name}.lua", argument), [{}] * 2)
        assert list(run["rewards"]) == [reward] * 2
        assert run["rewards"].tolist() == dmlab2d_trajectory(tmp_path, f"{name}:{argument}", actions=[{}] * 2)[
            "rewards"].tolist()


# ----- the Lab2d host over raw scripts, beside dmlab2d.Environment -----

def dmlab2d_environment(level, seed):
    import dmlab2d

    lab = open_level(RAW, level)
    return dmlab2d.Environment(lab, lab.observation_names(), seed=seed)


def same_time_step(mine, theirs):
    assert mine.step_type == theirs.step_type and mine.reward == theirs.reward and mine.discount == theirs.discount
    assert list(mine.observation) == list(theirs.observation)
    for name, value in theirs.observation.items():
        assert mine.observation[name].dtype == value.dtype and np.array_equal(mine.observation[name], value), name


def outcome(call):
    """What a property call returns, or the kind of exception it raises (KeyError or ValueError)."""
    try:
        return call()
    except KeyError:
        return KeyError
    except ValueError:
        return ValueError


@pytest.mark.parametrize("level", ["counter", "properties", "factory:double"])
def test_lab2d_host_equals_dmlab2d_environment(level):
    mine = jaxlab.grid.Lab2d(level, settings={"levelDirectory": str(RAW)}, seed=5)
    theirs = dmlab2d_environment(level, seed=5)
    assert isinstance(mine, RawLab2d)
    assert mine.observation_spec() == theirs.observation_spec() and mine.action_spec() == theirs.action_spec()
    spec = mine.action_spec()
    rng = np.random.default_rng(0)
    same_time_step(mine.reset(), theirs.reset())   # (before a start, dmlab2d's properties see init's state)
    for step in range(14):
        # a random subset of the actions: the others keep their last value in both
        action = {name: int(rng.integers(s.minimum, s.maximum + 1)) for name, s in spec.items() if rng.random() < .6}
        if step == 4:
            for key, value in (("params.bonus", "3"), ("state.score", "1"), ("nope", "1")):
                assert outcome(lambda: mine.write_property(key, value)) == outcome(
                    lambda: theirs.write_property(key, value))
        for key in ("state.score", "params.bonus", "missing", "params"):
            assert outcome(lambda: mine.read_property(key)) == outcome(lambda: theirs.read_property(key))
        assert outcome(lambda: mine.list_property("")) == outcome(
            lambda: [(k, PropertyAttribute(int(a))) for k, a in theirs.list_property("")])
        same_time_step(mine.step(action), theirs.step(action))


def test_lab2d_host_refuses_bad_actions_and_keys():
    env = jaxlab.grid.Lab2d("properties", settings={"levelDirectory": str(RAW)})
    assert env.step({"collect": 1}).step_type == dm_env.StepType.FIRST
    with pytest.raises(ValueError, match=r"Lab2d.step: action 'collect': expected an integer in \[0, 1\], got 2"):
        env.step({"collect": 2})
    with pytest.raises(TypeError, match="read_property: key"):
        env.read_property(3)
    with pytest.raises(KeyError, match="unknown property 'x'"):
        env.read_property("x")


# ----- tostring and tonumber at play time, against Lua 5.4 (lupa) -----

TEXTS = """local api = {n = 0, f = 0.0, s = '7'}
function api:observationSpec() return {{name = 'N', type = 'tensor.Int32Tensor', shape = {}}} end
function api:discreteActionSpec() return {{name = 'pick', min = 0, max = 3}} end
function api:discreteActions(actions) self.pick = actions[1] end
function api:start(episode, seed) self.n = 0; self.f = 0.0; self.s = '7'; self.pick = 0 end
function api:advance(frame)
  self.n = self.n + self.pick * 5 - 4
  self.f = self.f / 2 + self.pick
  if self.pick == 1 then self.s = '12' elseif self.pick == 2 then self.s = '0x1F' elseif self.pick == 3 then
    self.s = ' -3 ' end
  return true, 0
end
function api:observation(index) return self.n end
function api:readProperty(key)
  if key == 'n' then return tostring(self.n)
  elseif key == 'f' then return tostring(self.f)
  elseif key == 'small' then return tostring(self.n % 7)
  elseif key == 'flag' then return tostring(self.n > 0)
  elseif key == 'number' then return tostring(tonumber(self.s) * 2)
  elseif key == 'again' then return tostring(tonumber(tostring(self.n)) + 1)
  elseif key == 'is3' then return (tostring(self.n) == '3') and 'yes' or 'no'
  elseif key == 'half' then return (tostring(self.f) == '0.5') and 'yes' or 'no'
  elseif key == 'either' then
    local text = 'x'
    if self.pick == 2 then text = '1' end
    return (tostring(self.n) == text) and 'yes' or 'no'
  end
  return 1
end
return api
"""


def test_tostring_and_tonumber_equal_lua_5_4(tmp_path):
    path = tmp_path / "texts.lua"
    path.write_text(TEXTS)
    env = raw_env(path)
    lua = load_script(path)   # the same callbacks in lupa's Lua 5.4
    api, sandbox = lua.returned, lua.sandbox
    sandbox.call_method(api, "start", 0, 0)
    state, _ = env.reset(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    keys = ("n", "f", "small", "flag", "number", "again", "is3", "half", "either")
    seen = set()
    for frame, pick in enumerate([0, 1, 0, 1, 1, 2, 1, 1, 3, 0, 2, 2, 1, 3, 1, 0], start=1):
        for key in keys:
            theirs = sandbox.call_method(api, "readProperty", key)
            assert env.read_property(state, key) == theirs, (frame, key)
            seen.add((key, theirs))
        sandbox.call_method(api, "discreteActions", [pick])
        sandbox.call_method(api, "advance", frame)
        state, _ = step(state, {"pick": jnp.int32(pick)})
    assert {("is3", "yes"), ("half", "yes"), ("either", "yes"), ("f", "0.5"), ("number", "62")} <= seen


# ----- what a property callback cannot compile, named at its line -----

REFUSED = """local properties = require 'system.properties'
local api = {count = 0, name = 'a', items = {1, 2}}
function api:observationSpec() return {{name = 'N', type = 'tensor.Int32Tensor', shape = {}}} end
function api:start(episode, seed) self.count = 0 end
function api:advance(frame) self.count = self.count + 1; return true, 0 end
function api:observation(index) return self.count end
function api:readProperty(key)
  if key == 'counted' then
    self.count = self.count + 1
    return tostring(self.count)
  elseif key == 'mixed' then
    if self.count > 2 then return 'many' end
    return tostring(self.count)
  elseif key == 'table' then
    return tostring(self.items)
  elseif key == 'base' then
    return tostring(tonumber('ff', 16))
  elseif key == 'joined' then
    return 'n=' .. tostring(self.count)
  end
  return properties.NOT_FOUND
end
function api:writeProperty(key, value)
  if key == 'count' then self.count = tonumber(value)
  elseif key == 'name' then self.name = value
  elseif key == 'text' then self.name = tostring(self.count)
  end
  return properties.SUCCESS
end
function api:listProperty(key, callback)
  if key == 'late' and self.count > 1 then callback('late', 'r') end
  if key == 'named' then callback(self.name, 'r') end
  return properties.SUCCESS
end
return api
"""


@pytest.fixture(scope="module")
def refused_env(tmp_path_factory):
    path = tmp_path_factory.mktemp("refused") / "level.lua"
    path.write_text(REFUSED)
    env = raw_env(path)
    return env, env.reset(jax.random.PRNGKey(0))[0]


@pytest.mark.parametrize("call, message", [
    (("read", "counted"), r"7: api:readProperty\('counted'\) changing api.count cannot run on the device: jaxlab "
                          "reads and lists properties without changing play-time state"),
    (("read", "mixed"), "13: return cannot run on the device: tostring of a number on one path and another string"),
    (("read", "table"), "15: tostring of a table cannot run on the device: its text is an address"),
    (("read", "base"), "17: tonumber with a base cannot run on the device"),
    (("read", "joined"), "19: '..' over a value with no finite set cannot run on the device"),
    (("write", "count", "0.5"), r"23: api:writeProperty\('count', '0.5'\) storing a new kind of value in api.count"),
    (("write", "name", "b"), r"23: api:writeProperty\('name', 'b'\) storing a new kind of value in api.name"),
    (("write", "text", "x"), "26: assigning tostring of a number to api.name cannot run on the device"),
    (("list", "late"), "31: listProperty's callback under a condition known only at play time cannot run"),
    (("list", "named"), "32: listProperty's callback with a key or mode known only at play time cannot run"),
])
def test_property_constructs_that_cannot_compile_name_their_line(refused_env, call, message):
    env, state = refused_env
    kind, *args = call
    with pytest.raises(LuaScriptError, match="level.lua:" + message):
        getattr(env, f"{kind}_property")(state, *args)


def test_a_refused_write_leaves_the_level_as_it_was(refused_env):
    env, state = refused_env
    with pytest.raises(LuaScriptError):
        env.write_property(state, "count", "0.5")
    state, code = env.write_property(state, "count", "4")   # an integer keeps the state's kinds
    assert int(code) == 0 and env.step(state, {})[1].observation["N"] == 5
    assert env.write_property(state, "name", "a")[1] == 0   # a string it already held


def test_a_number_text_is_only_a_property_value(tmp_path):
    # an observation (or any callback but readProperty) returning tostring of a traced number is refused
    (tmp_path / "level.lua").write_text(
        "local api = {}\nfunction api:observationSpec() return {{name = 'N', type = 'tensor.Int32Tensor'}} end\n"
        "function api:start() self.n = 0 end\nfunction api:advance() self.n = self.n + 1; return true end\n"
        "function api:observation() return tostring(self.n) end\nreturn api\n")
    with pytest.raises(LuaScriptError, match="level.lua:5: api:observation returning tostring of a number that "
                                             "play changes cannot run on the device"):
        compile_in_process(tmp_path / "level.lua")
