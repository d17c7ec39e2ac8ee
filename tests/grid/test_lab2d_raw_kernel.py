"""Lab2D raw-API scripts compiled into kernels (``jaxlab.kernels.lab2d_raw``) equal dmlab2d step for step.

Each script of ``lab2d_raw`` that compiles is played by the real ``dmlab2d`` (``lab2d_reference``) and by
its compiled ``RawEnv`` under ``jax.jit(jax.vmap(...))`` on the same actions: rewards, observations and
the step that ends the episode must be equal. Random actions are drawn from dmlab2d's own action spec.
"""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.errors import LuaScriptError
from compile_lua.loading import load_script
from grid.lab2d_reference import action_spec, dmlab2d_trajectory, random_actions
from grid.raw_play import RAW, assert_equal_to_dmlab2d, raw_env
from jaxlab.errors import UnknownNameError
from jaxlab.kernels.lab2d_raw import RawEnv
from jaxlab.registry import grid_spec
from jaxlab.types import StepType

STEPS, BATCH = 24, 3


def test_counter_equals_dmlab2d_under_jit_vmap():
    # (countdown: through jaxlab.make below; branching_rewards and a level without actions: their own tests)
    spec = action_spec(RAW, "counter")
    runs = [random_actions(spec, STEPS, seed) for seed in range(BATCH)]
    assert_equal_to_dmlab2d(raw_env("counter"), "counter", {}, runs)


def test_branching_rewards_reach_every_branch():
    # three runs, of which one repeats a choice long enough for the streak bonus and its cap
    runs = [[{"choice": 1}] * 8, [{"choice": c} for c in (3, 3, 0, 2, 2, 2, 3, 0)],
            random_actions(action_spec(RAW, "branching_rewards"), 8, 5)]
    _, rewards, _ = assert_equal_to_dmlab2d(raw_env("branching_rewards"), "branching_rewards", {}, runs)
    assert {-0.5, 1.0, 2.0, 3.0, -2.0} <= set(np.asarray(rewards).ravel().tolist())


READS = """local api = {}
function api:observationSpec()
  return {{name = 'READS', type = 'tensor.Int32Tensor', shape = {}},
          {name = 'HALF', type = 'tensor.DoubleTensor', shape = {}}}
end
function api:start(episode, seed) self.reads = 0 end
function api:advance(frame) return frame < 4, self.reads end
function api:observation(index)
  self.reads = self.reads + 1
  if index == 1 then return self.reads end
  return self.reads * 0.5
end
return api
"""


def test_what_observation_writes_is_kept_and_a_level_may_have_no_actions(tmp_path):
    # dmlab2d's harness reads every observation in spec order after start and after each step
    (tmp_path / "reads.lua").write_text(READS)
    env = raw_env("reads", folder=tmp_path)
    assert env.action_spec() == {}
    obs, rewards, _ = assert_equal_to_dmlab2d(env, "reads", {}, [[{}] * 6], folder=tmp_path)
    assert list(np.asarray(rewards[0, :4])) == [2, 4, 6, 8]


CART = """local api = {}
function api:observationSpec()
  return {{name = 'POSITION', type = 'tensor.DoubleTensor', shape = {}},
          {name = 'GEAR', type = 'tensor.Int32Tensor', shape = {}}}
end
function api:discreteActionSpec() return {{name = 'gear', min = 1, max = 3}} end
function api:discreteActions(actions) self.gear = actions[1] end
function api:continuousActionSpec() return {{name = 'throttle', min = -1.0, max = 1.0}} end
function api:continuousActions(actions)
  self.push = actions[1] * self.gear   -- reads what discreteActions wrote this step
end
function api:start(episode, seed) self.position = 0; self.gear = 1; self.push = 0 end
function api:advance(frame)
  self.position = self.position + self.push
  if self.position > 6 then return false, 10 end
  return true, self.push
end
function api:observation(index)
  if index == 1 then return self.position end
  return self.gear
end
return api
"""


def test_continuous_actions_after_discrete_ones(tmp_path):
    (tmp_path / "cart.lua").write_text(CART)
    env = raw_env("cart", folder=tmp_path)
    spec = env.action_spec()
    assert spec["throttle"].dtype == jnp.float32 and (spec["throttle"].minimum, spec["throttle"].maximum) == (-1, 1)
    assert list(spec) == ["gear", "throttle"] and spec["gear"].dtype == jnp.int32
    # throttles are multiples of 1/16 (random_actions), so float32 sums are exact
    runs = [random_actions(action_spec(tmp_path, "cart"), 12, seed) for seed in range(BATCH)]
    runs.append([{"gear": 3, "throttle": 1.0}] * 12)   # ends the episode
    _, rewards, kinds = assert_equal_to_dmlab2d(env, "cart", {}, runs, folder=tmp_path)
    assert (np.asarray(kinds[-1]) == StepType.LAST).any() and 10.0 in np.asarray(rewards[-1])


def test_countdown_through_make_with_settings_at_batch_one():
    # jaxlab.make compiles in the isolated child; init reads the setting; batch 1 under jit(vmap(step))
    env = jaxlab.make(str(RAW / "countdown.lua"), level_settings={"duration": 5})
    assert isinstance(env, RawEnv)
    actions = [{"hurry": h} for h in (0, 1, 0, 0, 1, 1)]   # ends at the fourth step
    ref = dmlab2d_trajectory(RAW, "countdown", {"duration": 5}, actions=actions)
    state, ts = jax.jit(jax.vmap(env.reset))(jax.random.PRNGKey(3)[None])
    step = jax.jit(jax.vmap(env.step))
    seen = [np.asarray(ts.observation["TIME_LEFT"])[0]]
    rewards, ended = [], []
    for action in actions[:len(ref["rewards"])]:
        state, ts = step(state, {"hurry": jnp.asarray([action["hurry"]], jnp.int32)})
        seen.append(np.asarray(ts.observation["TIME_LEFT"])[0])
        rewards.append(float(ts.reward[0]))
        ended.append(bool(ts.step_type[0] == StepType.LAST))
    np.testing.assert_array_equal(seen, ref["observations"]["TIME_LEFT"].astype(np.float32))
    assert rewards == list(ref["rewards"]) and ended == list(ref["ended"]) and ended[-1]


def test_specs_and_observation_choice():
    env = raw_env("counter")
    assert list(env.observation_spec()) == ["FRAMES", "PRESSES"]
    assert env.observation_spec()["FRAMES"].dtype == np.int32 and env.observation_spec()["FRAMES"].shape == ()
    press = env.action_spec()["press"]
    assert (press.minimum, press.maximum, press.shape) == (0, 1, ())
    only = RawEnv(env.spec, env.callbacks, observations=["PRESSES"])
    _, ts = only.reset(jax.random.PRNGKey(0))
    assert list(ts.observation) == ["PRESSES"] == list(only.observation_spec())
    with pytest.raises(UnknownNameError, match="PRESSES"):
        RawEnv(env.spec, env.callbacks, observations=["PRESES"])


def test_kinds_of_scripts():
    # raw-API scripts are told from world-table grid scripts (which keep their compiler)
    assert load_script(RAW / "counter.lua").kind == "lab2d_raw"
    assert load_script(Path(jaxlab.__file__).parent / "levels/lab2d/lua/apple_walk.lua").kind == "lab2d"


BODY = ("function api:start() end\nfunction api:advance() return false, 0 end\n"
        "function api:observation() return 1 end\n")
INT = "{{name = 'N', type = 'tensor.Int32Tensor', shape = {}}}"


@pytest.mark.parametrize("extra, message", [
    (f"function api:observationSpec() return {INT} end\n"
     "function api:continuousActionSpec() return {{name = 'gas', min = 0, max = 'full'}} end\n",
     " the continuous action .* cannot run on the device: each needs a name and number min and max"),
    (f"function api:observationSpec() return {INT} end\n"
     "function api:continuousActionSpec() return {{name = 'gas', min = 0, max = 1}} end\n",
     " a level without api:continuousActions cannot run on the device"),
    ("function api:observationSpec() return {{name = 'WHO', type = 'String'}} end\n",
     " the observation 'WHO' of type 'String' cannot run on the device"),
    ("function api:observationSpec() return {{name = 'B', type = 'tensor.ByteTensor', shape = {}}} end\n",
     r"5: api:observation\(1\) returning \(number\) cannot run on the device: observation 'B' is declared a Byte "
     r"tensor of shape \[\]$"),
    ("function api:observationSpec() return {{name = 'V', type = 'tensor.Int32Tensor', shape = {2}}} end\n",
     r"5: api:observation\(1\) returning \(number\) cannot run on the device: observation 'V' is declared a Int32 "
     r"tensor of shape \[2\]$"),
    ("local api = {}\nfunction api:observationSpec() return {{name = 'N', type = 'tensor.DoubleTensor'}} end\n"
     "function api:start() end\nfunction api:advance() return 1, 0 end\n"
     "function api:observation() return true end\nreturn api\n",
     r"4: api:advance returning \(number, number\) cannot run on the device"),
    (f"function api:observationSpec() return {INT} end\nfunction api:start() end\n"
     "function api:advance() return false end\nfunction api:observation(i) return i == 1 end\nreturn api\n",
     r"5: api:observation\(1\) returning \(boolean\) cannot run on the device: observation 'N' is declared a "
     r"Int32 tensor of shape \[\] \(or a number\)"),
    ("function api:observationSpec() return {{name = 'N', type = 'tensor.Int32Tensor'}} end\n"
     "function api:discreteActionSpec() return {{name = 'a', min = 0}} end\n",
     " the discrete action .* cannot run on the device: each needs a name and integer min and max"),
    (f"function api:observationSpec() return {INT} end\n"
     "function api:discreteActionSpec() return {{name = 'a', min = 0, max = 1}} end\n",
     " a level without api:discreteActions cannot run on the device"),
    (f"function api:observationSpec() return {INT} end\n"
     "function api:textActionSpec() return {{name = 'say'}} end\n",
     "3: api:textActionSpec cannot run on the device: text actions do not compile yet"),
    (f"function api:observationSpec() return {INT} end\n"
     "local function read(self, key) return 'x' end\napi.readProperty = read\n",
     r" api:readProperty cannot run on the device: define it with `function api:name\(...\)`"),
])
def test_refused_scripts_name_what_cannot_compile(tmp_path, extra, message):
    script = tmp_path / "level.lua"
    whole = extra.startswith("local api") or extra.endswith("return api\n")
    script.write_text(extra if extra.startswith("local api") else
                      f"local api = {{}}\n{extra}" + ("" if whole else f"{BODY}return api\n"))
    with pytest.raises(LuaScriptError, match=f"level.lua:{message}"):
        compile_in_process(script)


def test_a_raw_script_has_no_grid_spec(monkeypatch):
    import compile_lua.authoring

    monkeypatch.setattr(compile_lua.authoring, "compile_authored", lambda path, settings, **_: compile_in_process(path))
    with pytest.raises(ValueError, match="counter.lua is a Lab2D raw-API script .* has no GridSpec"):
        grid_spec(str(RAW / "counter.lua"))   # what the Lab2d host asks of a script


def test_the_compile_command_checks_a_raw_script_and_writes_nothing(monkeypatch, capsys, tmp_path):
    from compile_lua import cli

    monkeypatch.setattr(cli, "compile_in_child", lambda script, settings, episodes, seed, levels_dir, limits:
                        compile_in_process(script, settings, episodes, seed, levels_dir))
    (tmp_path / "cart.lua").write_text(CART)
    assert cli.main([str(tmp_path / "cart.lua")]) == 0
    assert "a Lab2D raw-API level (2 observations, 1 discrete and 1 continuous actions)" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["cart.lua"]


def test_make_looks_a_level_name_up_in_level_directory(monkeypatch):
    import compile_lua.authoring

    made = []
    monkeypatch.setattr(compile_lua.authoring, "compile_authored",
                        lambda path, settings, episodes, seed, levels_dir, limits, argument: made.append(path)
                        or compile_in_process(path, settings, episodes, seed, levels_dir, argument=argument))
    env = jaxlab.make("branching_rewards", level_directory=RAW)
    assert isinstance(env, RawEnv) and made == [str(RAW / "branching_rewards.lua")]
    # a script that returns its api ignores the name's argument, as dmlab2d does
    assert isinstance(jaxlab.make("counter:double", level_directory=str(RAW)), RawEnv)
    with pytest.raises(FileNotFoundError, match="no level script 'nothing'"):
        jaxlab.make("nothing", level_directory=str(RAW))
    with pytest.raises(TypeError, match="level_directory"):
        jaxlab.make("counter", level_directory=3)
