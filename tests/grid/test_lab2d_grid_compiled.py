"""dmlab2d's own levels, compiled from the installed ``dmlab2d`` package's scripts (their api factories,
images and Lab2D's ``common`` library, none of it in this repository) and played against dmlab2d.

``pushbox``: its rooms come from Lab2D's C++ generator, whose draws are not reproduced; compiled, the level
makes its rooms with jaxlab's generator (checked for what a room must be). To compare the rules exactly,
both engines play dmlab2d's own rooms: a level of ours, written by the test beside a copy of the package's
scripts made at test time, runs the package's pushbox with ``pushbox.generate`` answering, for episode k,
the room dmlab2d made for its episode k (and, past those episodes, the generator's own room).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab.registry.dmlab2d_package import game_scripts
from grid.lab2d_reference import action_spec, batched_play, dmlab2d_trajectory, random_actions

PUSHBOX_EPISODES = 100
PUSHBOX_STEPS = 30
E, S, W = 2, 3, 4   # MOVE values


def _assert_same(runs, played):
    """Every episode's observations (text decoded), rewards and end equal to dmlab2d's, up to its end; no
    grid ran out of room."""
    obs, rewards, ended, errors = jax.tree_util.tree_map(np.asarray, played)
    assert not errors.any()
    for e, run in enumerate(runs):
        steps = len(run["rewards"])
        for name, frames in run["observations"].items():
            if isinstance(frames[0], str):
                texts = [bytes(frame.reshape(-1)).decode() for frame in obs[name][e, :steps + 1]]
                assert texts == list(frames[:steps + 1]), (e, name)
            else:   # the whole episode at once
                np.testing.assert_array_equal(obs[name][e, :steps + 1], frames[:steps + 1], err_msg=f"{e} {name}")
        np.testing.assert_allclose(rewards[e, :steps], run["rewards"], atol=1e-5, err_msg=str(e))
        np.testing.assert_array_equal(ended[e, :steps], run["ended"], err_msg=str(e))


ROOMS_LEVEL = """-- the package's pushbox, episode k in the room dmlab2d made for its episode k
local pushbox = require 'system.generators.pushbox'
local api_factory = require 'api_factory'

local ROOMS = {{
{rooms}
}}

local api = api_factory.apiFactory{{}}
local start = api.start
local generate = pushbox.generate
pushbox.generate = function(kwargs)
  if api._room then
    return api._room
  end
  return generate(kwargs)
end

function api:start(episode, seed)
  self._room = ROOMS[episode + 1]
  return start(self, episode, seed)
end

return api
"""


@pytest.fixture(scope="module")
def pushbox_play(pushbox_scripts):
    """The rooms level compiled (the package's pushbox inside), and its jitted batched play."""
    root = pushbox_scripts[0]
    env = jaxlab.make(str(root / "levels" / "pushbox" / "rooms.lua"), levels_dir=str(root))
    return batched_play(env, ["MOVE"])


@pytest.fixture(scope="module")
def pushbox_scripts(tmp_path_factory):
    """A copy of the package's game_scripts with our rooms level beside its pushbox, and dmlab2d's runs of
    its own pushbox (episode k played with seed k): (the copy, the runs, the actions)."""
    root = tmp_path_factory.mktemp("lab2d") / "game_scripts"
    shutil.copytree(game_scripts(), root)
    spec = action_spec(root / "levels", "pushbox")
    actions = [random_actions(spec, PUSHBOX_STEPS, k) for k in range(PUSHBOX_EPISODES)]
    for k in range(4):   # some episodes walk a box along and back instead
        actions[k] = [{"MOVE": m} for m in [E, E, S, S, W, W] * 5][:PUSHBOX_STEPS]
    runs = [dmlab2d_trajectory(root / "levels", "pushbox", seed=k, episode=k, actions=actions[k])
            for k in range(PUSHBOX_EPISODES)]
    rooms = ",\n".join("[[\n" + run["observations"]["WORLD.TEXT"][0] + "]]" for run in runs)
    (root / "levels" / "pushbox" / "rooms.lua").write_text(ROOMS_LEVEL.format(rooms=rooms))
    return root, runs, actions


def test_pushbox_compiled_from_the_package_plays_dmlab2d_s_rooms_as_dmlab2d(pushbox_scripts, pushbox_play):
    root, runs, actions = pushbox_scripts
    again = [dmlab2d_trajectory(root / "levels", "pushbox/rooms", seed=k, episode=k, actions=actions[k])
             for k in range(len(runs))]
    for mine, theirs in zip(again, runs):   # in dmlab2d, our rooms level is its pushbox, episode for episode
        assert mine["observations"]["WORLD.TEXT"] == theirs["observations"]["WORLD.TEXT"]
        np.testing.assert_array_equal(mine["rewards"], theirs["rewards"])
    table = jnp.asarray([[[a["MOVE"]] for a in acts] for acts in actions], jnp.int32)
    _assert_same(again, pushbox_play(jnp.arange(len(runs), dtype=jnp.int32), table))
    rewards = np.concatenate([run["rewards"] for run in runs])
    assert (rewards > 0).any() and (rewards < -1).any()   # boxes were pushed onto goals and off them


def test_pushbox_compiled_from_the_package_makes_its_own_rooms(pushbox_play):
    # episodes past dmlab2d's rooms: the package's pushbox with jaxlab's generator (one batch of the same shape,
    # so one compiled program serves both tests)
    batch = PUSHBOX_EPISODES
    obs, rewards, _, errors = jax.tree_util.tree_map(np.asarray, pushbox_play(
        jnp.arange(batch, 2 * batch, dtype=jnp.int32), jnp.zeros((batch, PUSHBOX_STEPS, 1), jnp.int32)))
    assert not errors.any()
    rooms = [bytes(obs["WORLD.TEXT"][e, 0].reshape(-1)).decode() for e in range(batch)]
    assert len(set(rooms)) >= batch - 2   # each episode its own room (a few may repeat)
    for room in rooms:
        rows = room.rstrip("\n").split("\n")
        assert len(rows) == 10 and all(len(r) == 10 for r in rows)
        assert set(rows[0] + rows[-1] + "".join(r[0] + r[-1] for r in rows)) == {"*"}   # walled in
        assert room.count("P") == 1   # the player, drawn over its spawn point
        assert room.count("B") + room.count("&") == 4 and room.count("X") + room.count("&") == 4
        assert room.count("B") >= 1   # at least one box off its goal
    np.testing.assert_allclose(rewards, -0.1, atol=1e-6)   # standing still costs the step cost
    np.testing.assert_array_equal(obs["WORLD.STEPS"][:, 1:], np.broadcast_to(np.arange(1, PUSHBOX_STEPS + 1),
                                                                             (batch, PUSHBOX_STEPS)))


BAD_LEVEL = """local grid_world = require 'system.grid_world'
local api = {{}}
function api:init(kwargs)
  self._world = grid_world.World{{states = {{wall = {{layer = 'pieces', sprite = 'Wall'}}}}}}
  {init}
end
function api:observationSpec() return {{{{name = 'N', type = 'Doubles', shape = {{}}}}}} end
function api:start(episode, seed)
  self._grid = self._world:createGrid{{size = {{width = 3, height = 2}}}}
end
function api:advance(steps)
  {advance}
  return true, 0
end
function api:observation(index) return self._grid:groupCount('walls') end
return api
"""


@pytest.mark.parametrize("init, advance, message", [
    ("grid_world.World{states = 5}", "", r"level.lua:5: .*grid_world.World: 'states' and 'hits' must be tables"),
    ("self._world:createGrid{}", "", r"level.lua:5: .*createGrid runs at play time: make grids in api:start"),
    ("self._world:createView{left = -1, right = 0, forward = 0, backward = 0}", "",
     r"level.lua:5: .*'left' must be an integer >= 0"),
    ("", "self._grid:spin()", r"level.lua:12: grid:spin cannot run on the device"),
    ("", "self._grid:setState(1, 'walll')",
     r"level.lua:12: the state 'walll' cannot run on the device: unknown state 'walll'. Did you mean 'wall'\?"),
    ("", "self._grid:setUserState(1, {f = function() end})",
     r"level.lua:12: a function in a piece's user state cannot run on the device"),
    ("", "self._grid:userState(1).n = 1",
     r"level.lua:12: writing a piece's user state before any grid:setUserState cannot run on the device"),
    ("", "self._grid:setUserState(1, {n = 0})\n  self._grid:userState(1)[steps] = 1",
     r"level.lua:13: a piece's user state at a key known only at play time cannot run on the device"),
    ("", "self._grid:setUserState(1, {n = {1, 2}})\n  self._grid:setUserState(2, {m = 0})",
     r"level.lua:13: pieces' tables with and without the table userState\(piece\).n cannot run on the device"),
])
def test_grid_levels_refuse_what_cannot_compile_at_its_line(tmp_path, init, advance, message):
    from compile_lua.compiled import compile_in_process
    from compile_lua.errors import LuaScriptError
    (tmp_path / "level.lua").write_text(BAD_LEVEL.format(init=init, advance=advance))
    with pytest.raises(LuaScriptError, match=message):
        compile_in_process(tmp_path / "level.lua")


def test_objects_init_made_are_written_at_play_time_as_in_dmlab2d():
    # tally.lua: a class instance init made (its fields written at play time by start and by its method)
    # and a record a helper is passed and writes; a field of it that starts {} and that start replaces with a
    # record of fields; a table of it that play writes at keys: every step equal to dmlab2d's
    levels = Path(__file__).parent / "lab2d_grid_levels"
    spec = action_spec(levels, "tally")
    actions = [random_actions(spec, 12, k) for k in range(20)]
    runs = [dmlab2d_trajectory(levels, "tally", seed=k, episode=k, actions=actions[k]) for k in range(20)]
    play = batched_play(jaxlab.make(str(levels / "tally.lua")), ["ADD"])
    table = jnp.asarray([[[a["ADD"]] for a in acts] for acts in actions], jnp.int32)
    _assert_same(runs, play(jnp.arange(20, dtype=jnp.int32), table))
    assert len({run["observations"]["TALLY"][0] for run in runs}) == 3   # start wrote the object's field
    assert any(run["observations"]["BONUS"][4] < run["observations"]["BONUS"][3] for run in runs)   # halved
    assert max(max(run["observations"]["STREAK"]) for run in runs) >= 2   # the record that replaced {} written
    assert len({tuple(run["observations"]["SEEN"]) for run in runs}) > 3   # the table init made, written at keys


@pytest.mark.parametrize("advance", [
    "assert(steps < 3, 'too long')",
    # a table keyed by pieces: createPiece gives nil at step 4 (its cell is taken), where Lua stops
    "self._made[self._grid:createPiece('wall', {pos = {steps % 3, 0}})] = steps",
])
def test_a_play_time_lua_error_sets_the_grids_error_bit(tmp_path, advance):
    from jaxlab.kernels.lab2d_grid.state import ASSERT_FAILED
    level = BAD_LEVEL.format(init="", advance=advance).replace(
        "sprite = 'Wall'}", "sprite = 'Wall', groups = {'walls'}}").replace("  self._grid =", "  self._made = {}\n"
                                                                              "  self._grid =")
    (tmp_path / "level.lua").write_text(level)
    play = batched_play(jaxlab.make(str(tmp_path / "level.lua")), [])
    for steps, failed in ((2, False), (4, True)):
        *_, errors = play(jnp.arange(2, dtype=jnp.int32), jnp.zeros((2, steps, 0), jnp.int32))
        assert [bool(e & ASSERT_FAILED) for e in np.asarray(errors)] == [failed, failed], steps


KEEPERS_EPISODES, KEEPERS_STEPS = 8, 14


def _keepers_actions(spec):
    """Each episode's actions: the first two walk player 1 over three coins (its table replaced at the third)
    and have player 2 zap it twice; the others are random."""
    walk = [{"1.move": m} for m in (2, 3, 3, 4)] + [{"2.move": 1, "2.zap": 1}, {"2.zap": 1}]
    walk += [{}] * (KEEPERS_STEPS - len(walk))
    return [walk, walk] + [random_actions(spec, KEEPERS_STEPS, k) for k in range(2, KEEPERS_EPISODES)]


def test_pieces_user_state_is_kept_per_piece_as_in_dmlab2d():
    # keepers.lua: each player's piece holds a table (setUserState) that its callbacks read and write through
    # userState (a table inside it, a view of a matrix made on the host), replaced at play time; rewards read it
    levels = Path(__file__).parent / "lab2d_grid_levels"
    spec = action_spec(levels, "keepers")
    actions = _keepers_actions(spec)
    runs = [dmlab2d_trajectory(levels, "keepers", seed=k, episode=k, actions=actions[k])
            for k in range(KEEPERS_EPISODES)]
    names = list(spec)
    play = batched_play(jaxlab.make(str(levels / "keepers.lua")), names)
    table = jnp.asarray([[[a.get(n, 0) for n in names] for a in acts] for acts in actions], jnp.int32)
    _assert_same(runs, play(jnp.arange(KEEPERS_EPISODES, dtype=jnp.int32), table))
    first, second = runs[0], runs[1]
    assert first["observations"]["COINS"][3:5, 0].tolist() == [2, 0]   # the third coin: player 1's table replaced
    assert first["rewards"][3] == 6 and second["rewards"][3] == 6.5   # (+5 at once, and a float bonus)
    assert first["observations"]["ZAPS"][-1].tolist() == [[0, 2], [0, 0]]   # player 1 zapped twice by player 2
    np.testing.assert_array_equal(second["observations"]["1.REWARD"][5:7], [-1.5, -1.5])
    assert any(run["observations"]["ZAPS"][-1].any() for run in runs[2:])
