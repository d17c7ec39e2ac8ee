"""Lab2D raw-API levels whose play-time Lua uses ``system.tensor``, ``system.random`` and ``start``,
compiled onto the device and played under ``jax.jit(jax.vmap(...))`` beside dmlab2d.

- tensor_room (a ByteTensor room and an Int32Tensor position written through views), goal_reached
  (a tensor built from a table each frame, two episode ends and a step limit), throttle (Double
  state, continuous actions, a DoubleTensor observation), random_fixed (every random method, drawn
  where its outcome is fixed) and records (tables of named fields as state and constants, written
  field by field) equal dmlab2d step for step: rewards, observations and the step that ends the
  episode, on random actions from dmlab2d's own spec.
- random_target and random_wind draw from ``system.random``. jaxlab's draws are JAX's, not dmlab2d's
  Mersenne twister, so their runs are checked by the rules the scripts' comments state, the same
  rules ``test_lab2d_raw_reference`` checks dmlab2d's runs by, and the same seed replays the same draws.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from compile_lua.compiled import compile_in_process
from compile_lua.errors import LuaScriptError
from grid.lab2d_reference import action_spec, random_actions
from grid.raw_play import RAW, as_columns, assert_equal_to_dmlab2d, raw_env, rollout

STEPS, BATCH = 24, 3


@pytest.mark.parametrize("level", ["tensor_room", "goal_reached", "throttle", "random_fixed", "records"])
def test_tensor_levels_equal_dmlab2d(level):
    runs = [random_actions(action_spec(RAW, level), STEPS, seed) for seed in range(BATCH)]
    obs, rewards, _ = assert_equal_to_dmlab2d(raw_env(level), level, {}, runs)
    if level == "tensor_room":   # the walk pays first visits and moves the player in the byte room
        assert np.asarray(rewards).sum() > 0 and obs["ROOM"].dtype == jnp.uint8


def test_a_tensor_level_at_batch_1024_equals_its_rows_alone():
    env = raw_env("tensor_room")
    spec = action_spec(RAW, "tensor_room")
    runs = [random_actions(spec, 8, seed) for seed in range(1024)]
    obs, rewards, kinds = rollout(env, as_columns(runs, env.action_spec()), 1024, 8)
    assert obs["ROOM"].shape == (1024, 9, 4, 5) and len({r.tobytes() for r in np.asarray(rewards)}) > 10
    for row in (0, 511, 1023):
        alone = rollout(env, as_columns(runs[row:row + 1], env.action_spec()), 1, 8)
        np.testing.assert_array_equal(np.asarray(alone[0]["ROOM"][0]), np.asarray(obs["ROOM"][row]))
        np.testing.assert_array_equal(np.asarray(alone[1][0]), np.asarray(rewards[row]))


def test_a_tensor_level_through_make_compiles_in_the_child():
    # jaxlab.make compiles in the isolated child, whose reply carries plain data only (tensors' start values)
    made = jaxlab.make("tensor_room", level_directory=str(RAW))
    here = raw_env("tensor_room")
    key, action, seen = jax.random.PRNGKey(4), {"move": jnp.int32(2)}, []
    for env in (made, here):
        state, first = env.reset(key)
        _, ts = env.step(state, action)
        seen.append((first.observation["ROOM"], ts.observation["ROOM"], ts.reward))
    for a, b in zip(*seen):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert float(seen[0][2]) == 1.0   # moved east onto a new floor cell


def _play(env, level, seeds, steps, action_seed=0):
    """Episodes started with ``start(0, seed)`` for each seed, on random actions: (actions {name: [B, T]},
    observations {name: [B, T + 1, ...]}, rewards [B, T], ended [B, T] where the episode ends)."""
    actions = as_columns([random_actions(action_spec(RAW, level), steps, action_seed + s) for s in seeds],
                         env.action_spec())

    def one(seed, acts):
        state = env.start_state(jax.random.PRNGKey(0), 0, seed)
        first = env.observe(state)

        def body(state, act):
            state, ts = env.step(state, act)
            return state, (ts.observation, ts.reward, ts.last(), state.done)
        _, (obs, rewards, last, done) = jax.lax.scan(body, state, acts)
        return {k: jnp.concatenate([first[k][None], v]) for k, v in obs.items()}, rewards, last & ~jnp.roll(done, 1)
    obs, rewards, ended = jax.jit(jax.vmap(one))(jnp.asarray(seeds, jnp.int32), actions)
    return {k: np.asarray(v) for k, v in actions.items()}, {k: np.asarray(v) for k, v in obs.items()}, \
        np.asarray(rewards), np.asarray(ended)


def test_random_wind_follows_its_rules_and_its_seed():
    env = raw_env("random_wind")
    seeds = list(range(64)) + [5]
    actions, obs, rewards, ended = _play(env, "random_wind", seeds, 40)
    offset, wind = obs["KITE"][..., 0], obs["KITE"][:, 1:, 1]
    for b in range(len(seeds)):
        played = int(np.argmax(ended[b])) + 1 if ended[b].any() else 40
        np.testing.assert_array_equal(np.diff(offset[b, :played + 1]), wind[b, :played] + actions["pull"][b, :played])
        away = np.abs(offset[b, 1:played + 1])
        np.testing.assert_allclose(rewards[b, :played], np.where(away > 5, -10, -0.25 * away))
        assert (away[:-1] <= 5).all() and (away[-1] > 5) == bool(ended[b].any())
    draws = wind[:64][~np.cumsum(ended[:64], axis=1).astype(bool) | ended[:64]]
    counts = np.bincount(draws.astype(int) + 2, minlength=5)
    assert set(draws.tolist()) == {-2, -1, 0, 1, 2} and counts.min() > 0.6 * counts.mean(), counts
    np.testing.assert_array_equal(obs["KITE"][5], obs["KITE"][-1])   # the same seed, the same draws
    assert len({obs["KITE"][b].tobytes() for b in range(64)}) > 32


def test_random_target_is_drawn_at_start_from_the_seed():
    env = raw_env("random_target")
    seeds = list(range(96))
    guesses = {"guess": np.tile(np.arange(1, 7, dtype=np.int32), (len(seeds), 1))}

    def one(seed, acts):
        state = env.start_state(jax.random.PRNGKey(1), 0, seed)

        def body(state, act):
            state, ts = env.step(state, act)
            return state, (ts.observation["TARGET"], ts.reward, ts.last())
        return jax.lax.scan(body, state, acts)[1]
    targets, rewards, last = map(np.asarray, jax.jit(jax.vmap(one))(jnp.asarray(seeds), guesses))
    for b in range(len(seeds)):
        played = int(np.argmax(last[b])) + 1
        target = int(targets[b, played - 1])
        assert 1 <= target <= 6 and (targets[b, :played - 1] == 0).all()
        assert played == min(target, 4) and rewards[b].sum() == (target <= 4)
    drawn = [int(targets[b, int(np.argmax(last[b]))]) for b in range(len(seeds))]
    assert set(drawn) == {1, 2, 3, 4, 5, 6}
    again = jax.jit(jax.vmap(one))(jnp.asarray(seeds), guesses)[0]
    np.testing.assert_array_equal(np.asarray(again), targets)


RANGES = """local tensor = require 'system.tensor'
local random = require 'system.random'
local api = {}
function api:observationSpec()
  return {{name = 'ODD', type = 'tensor.DoubleTensor', shape = {4}},
          {name = 'WRAP', type = 'tensor.Int32Tensor', shape = {3}},
          {name = 'TWOS', type = 'tensor.Int32Tensor', shape = {3}}}
end
function api:discreteActionSpec() return {{name = 'scale', min = 0, max = 3}} end
function api:discreteActions(actions) self.scale = actions[1] end
function api:start(episode, seed)
  self.scale = 0
  self.twos = {2, 2, 2}
end
function api:advance(frame)
  random:shuffleInPlace(self.twos)
  self.twos[1] = self.twos[1] + self.scale - self.scale
  return frame < 6, self.scale
end
function api:observation(index)
  if index == 1 then return tensor.DoubleTensor{range = {1, 7, 2}}:mul(self.scale) end
  if index == 2 then return tensor.Int32Tensor{3000000000, 2.9, -2.9} end
  return tensor.Int32Tensor(self.twos)
end
return api
"""


def test_range_tables_static_tables_and_shuffle_in_place_equal_dmlab2d(tmp_path):
    (tmp_path / "ranges.lua").write_text(RANGES)
    runs = [random_actions(action_spec(tmp_path, "ranges"), 8, seed) for seed in range(2)]
    obs, _, _ = assert_equal_to_dmlab2d(raw_env("ranges", folder=tmp_path), "ranges", {}, runs, folder=tmp_path)
    assert np.asarray(obs["WRAP"])[0, 0].tolist() == [-1294967296, 2, -2]   # dmlab2d keeps a constant's low bits


SHARED = """local tensor = require 'system.tensor'
local api = {}
local function bump(t)
  t(1):val(t(1):val() + 1)
end
function api:observationSpec() return {{name = 'A', type = 'tensor.Int32Tensor', shape = {2}}} end
function api:discreteActionSpec() return {{name = 'noop', min = 0, max = 1}} end
function api:discreteActions(actions) end
function api:start(episode, seed)
  self.a = tensor.Int32Tensor{0, 0}
  self.b = tensor.Int32Tensor{1, 0}
end
function api:advance(frame)
  local a = self.a
  bump(a)
  return frame < 3, (a == self.b) and 1 or 0
end
function api:observation(index) return self.a end
return api
"""


def test_a_write_in_a_called_function_reaches_the_caller_s_names(tmp_path):
    # bump writes through its parameter; the caller's local and the api field see it, and == compares it
    (tmp_path / "shared.lua").write_text(SHARED)
    runs = [[{"noop": 0}] * 4]
    _, rewards, _ = assert_equal_to_dmlab2d(raw_env("shared", folder=tmp_path), "shared", {}, runs, folder=tmp_path)
    assert np.asarray(rewards)[0, :3].tolist() == [1.0, 0.0, 0.0]


BODY = """local tensor = require 'system.tensor'
local random = require 'system.random'
local api = {{}}
function api:observationSpec() return {{{{name = 'T', type = 'tensor.Int32Tensor', shape = {{2}}}}}} end
function api:start(episode, seed)
  self.t = tensor.Int32Tensor{{1, 2}}
end
function api:advance(frame)
  {advance}
  return true, 0
end
function api:observation(index) return self.t end
return api
"""


@pytest.mark.parametrize("advance, message", [
    ("self.t(3):val(1)", r"9: t\(\.\.\.\) cannot run on the device: select: index 3 out of range 1\.\.2"),
    ("self.t = tensor.Int32Tensor(3)", r"9: assigning a Int32 tensor of shape \[3\] to api.t cannot run on the device"),
    ("self.t = tensor.Int32Tensor(frame)", r"9: tensor.Int32Tensor of number cannot run on the device: a compiled "
                                           "tensor has a shape known ahead of time"),
    ("self.t:narrow(1, 1, frame)", r"9: t:narrow with a traced number cannot run on the device"),
    ("self.t:apply(function(x) return x end)", r"9: t:apply cannot run on the device"),
    ("self.t:tostring()", r"9: t:tostring cannot run on the device: it is not one of the tensor methods"),
    ("local u = tensor.Int32Tensor{range = {1, frame}}",
     r"9: tensor.Int32Tensor\{range = \.\.\.\} with bounds known only at play time cannot run"),
    ("local x = random:bernoulli(0.5)", r"9: random:bernoulli cannot run on the device"),
    ("local s = tostring(self.t)", r"9: tostring of a userdata cannot run on the device"),
    ("random:shuffleInPlace({1, 2})", r"9: random:shuffleInPlace of a table with no name cannot run"),
    ("local x = random:uniformInt(1)", r"9: a random draw \(a, b\) without 2 numbers cannot run on the device"),
    ("if frame > 2 then self.u = tensor.Int32Tensor{1} end", r"9: assigning api.u cannot run on the device"),
])
def test_tensor_and_random_constructs_that_cannot_compile(tmp_path, advance, message):
    (tmp_path / "level.lua").write_text(BODY.format(advance=advance))
    with pytest.raises(LuaScriptError, match=f"level.lua:{message}"):
        compile_in_process(tmp_path / "level.lua")


def test_a_tensor_made_on_the_host_is_the_start_of_play_time_state(tmp_path):
    # made in the main chunk (as Lab2D's libraries make sprites), then observed: its values at the start
    (tmp_path / "level.lua").write_text(BODY.format(advance="").replace(
        "function api:start", "local SEEN = tensor.Int32Tensor{7, 9}\nfunction api:start").replace(
        "function api:observation(index) return self.t end", "function api:observation(index) return SEEN end"))
    env = jaxlab.make(str(tmp_path / "level.lua"))
    _, ts = env.reset(jax.random.PRNGKey(0))
    assert np.asarray(ts.observation["T"]).tolist() == [7, 9]


HELD = """local tensor = require 'system.tensor'
local Keeper = {}
Keeper.__index = Keeper
function Keeper.new() return setmetatable({_state = {}}, Keeper) end
function Keeper:start()
  self._state = {score = 0, actions = {move = 0, hold = 0}, items = tensor.DoubleTensor(2):fill(1)}
end
function Keeper:act(actions)
  local acts = self._state.actions
  acts.move = actions[1]
end
function Keeper:advance()
  local state = self._state
  local acts = state.actions
  acts.hold = acts.hold + 1
  state.items(state.actions.move + 1):add(1)
  local row = state.items:reshape{1, 2}:clone()
  state.score = row:mmul(tensor.DoubleTensor{{1}, {2}}):reshape{}:val() + state.actions.hold
  return self._state.score
end
local function levelApi()   -- made by a function, as dmlab2d's shipped levels' api factory makes theirs
  local keeper = Keeper.new()
  local level = {}
  function level:observationSpec()
    return {{name = 'ITEMS', type = 'tensor.DoubleTensor', shape = {2}}}
  end
  function level:discreteActionSpec() return {{name = 'move', min = 0, max = 1}} end
  function level:discreteActions(actions) keeper:act(actions) end
  function level:start(episode, seed) keeper:start() end
  function level:advance(frame) return frame < 6, keeper:advance() end
  function level:observation(index) return keeper._state.items end
  return level
end
return levelApi()
"""


def test_a_record_holding_a_tensor_and_a_record_written_through_a_local_equals_dmlab2d(tmp_path):
    # an object's field starts {} and start replaces it with a record of a number, a record and a tensor:
    # the inner record is written through locals that hold it (the state and the other local see the write),
    # the tensor through a view, reshaped to {1, 2} and {}
    (tmp_path / "held.lua").write_text(HELD)
    runs = [random_actions(action_spec(tmp_path, "held"), 8, seed) for seed in range(3)]
    obs, rewards, _ = assert_equal_to_dmlab2d(raw_env("held", folder=tmp_path), "held", {}, runs, folder=tmp_path)
    assert np.asarray(obs["ITEMS"]).sum(-1).max() > 2 and np.asarray(rewards).max() > 3
