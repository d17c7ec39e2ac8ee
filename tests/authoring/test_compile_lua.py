"""compile_lua: Lua level scripts -> level banks -> the kernel, and the CLI's errors."""
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from compile_lua import CompileWarning, LuaScriptError, compile_level, compile_script
from compile_lua.cli import main as cli
import jaxlab
from jaxlab.bank_file import load_bank
from jaxlab.levels.dmlab.level import Level, cell_center
from jaxlab.levels.dmlab.pickup_types import PICKUP_INDEX
from jaxlab.types import StepType

EXAMPLES = Path(jaxlab.__file__).parent / "levels" / "dmlab" / "lua"
GRID_EXAMPLE = Path(jaxlab.__file__).parent / "levels" / "lab2d" / "lua" / "apple_walk.lua"
STILL = np.zeros(7, np.int32)
POS = ("DEBUG.POS.TRANS",)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """make("x.lua") caches compiled banks under the test's tmp dir, not ~/.cache."""
    monkeypatch.setenv("JAXLAB_CACHE_DIR", str(tmp_path / "cache"))


def write(tmp_path, text, name="level.lua"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# -- the orchard: every pickup callback, through the CLI and the kernel ---------------------------

@pytest.fixture(scope="module")
def orchard(tmp_path_factory):
    """apple_orchard.lua compiled by the CLI with seconds=3, and its env."""
    out = tmp_path_factory.mktemp("orchard") / "orchard.jaxlab"
    assert cli([str(EXAMPLES / "apple_orchard.lua"), "-o", str(out), "--set", "seconds=3"]) == 0
    env = jaxlab.make(str(out), observations=POS, action_repeat=1)
    return env, jax.jit(env.step)


def first_level(bank):
    """Episode 0 of a bank, as numpy arrays."""
    return jax.tree_util.tree_map(np.asarray, bank.get(0))


def at(state, xy):
    return state.replace(pos=jnp.asarray(xy, jnp.float32), vel=jnp.zeros(2, jnp.float32))


def test_orchard_bank_holds_the_tabulated_callbacks(orchard):
    env, _ = orchard
    lv = first_level(env.bank)
    rows = 7
    valid = lv.pickup_valid
    assert valid.sum() == 6                                  # 5 apples + 1 golden apple
    # reading order: P(1) A(2) A(3) / A(4) O(5) / A(6) A(7)
    golden = np.argmin(np.linalg.norm(lv.pickup_pos - cell_center(3, 7, rows), axis=1))
    assert lv.pickup_reward[golden] == 8.0                   # quantity 5 + addScore(3)
    assert lv.pickup_is_goal[golden] and lv.pickup_respawn_frames[golden] == -1
    apples = [i for i in range(6) if i != golden]
    assert np.all(lv.pickup_reward[apples] == 1.0)
    assert np.all(lv.pickup_respawn_frames[apples] == 120)   # 2 s at 60 fps
    blocked = np.argmin(np.linalg.norm(lv.pickup_pos - cell_center(1, 7, rows), axis=1))
    assert not lv.pickup_takeable[blocked]
    assert lv.pickup_takeable[valid].sum() == 5
    assert lv.episode_seconds == pytest.approx(3.0)          # hasEpisodeFinished with seconds=3
    assert lv.pickup_kind[golden] == PICKUP_INDEX["apple_reward"]   # borrows the apple's look


def test_orchard_rewards_respawn_and_episode_length_in_the_kernel(orchard):
    env, step = orchard
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    apple_xy = cell_center(1, 4, 7)
    state, ts = step(at(state, apple_xy), STILL)
    assert float(ts.reward) == 1.0
    away = cell_center(1, 1, 7)
    state, ts = step(at(state, away), STILL)
    waited = 1
    while float(ts.reward) == 0.0 and waited < 200:          # stand on it until it grows back
        state, ts = step(at(state, apple_xy), STILL)
        waited += 1
    # gone for the 120 frames (2 s) after the one it was taken in, taken again on the next
    assert float(ts.reward) == 1.0 and waited == 121

    state, ts = step(at(state, cell_center(1, 7, 7)), STILL)  # canPickup false: nothing
    assert float(ts.reward) == 0.0
    golden_xy = cell_center(3, 7, 7)
    state, ts = step(at(state, golden_xy), STILL)
    assert float(ts.reward) == 8.0
    np.testing.assert_allclose(np.asarray(ts.observation["DEBUG.POS.TRANS"])[:2], cell_center(1, 1, 7))
    assert int(ts.step_type) == StepType.MID                 # finishMap ends the map, not the episode

    steps = int(state.frames)
    while int(ts.step_type) != StepType.LAST:
        state, ts = step(state, STILL)
        steps += 1
    assert steps == 180 and float(ts.discount) == 1.0        # 3 s at 60 fps, truncation


def test_orchard_runs_under_jit_vmap(orchard):
    env, _ = orchard
    states, _ = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(1), 8))
    step = jax.jit(jax.vmap(env.step))
    forward = jnp.tile(jnp.array([0, 0, 0, 1, 0, 0, 0], jnp.int32), (8, 1))
    for _ in range(3):
        states, ts = step(states, forward)
    assert ts.observation["DEBUG.POS.TRANS"].shape == (8, 3)


def test_a_compiled_map_is_not_restarted_when_its_apples_are_all_taken(tmp_path):
    """DMLab's engine restarts a map only on a goal or game:finishMap: a script with two apples and no
    finishMap keeps the player where it stands and the apples gone after both are taken (jaxlab's own
    levels restart a cleared map, ``Level.cleared_restarts``)."""
    path = write(tmp_path, """
        local make_map = require 'common.make_map'
        local pickups = require 'common.pickups'
        local api = {}
        function api:nextMap() return make_map.makeMap{mapName = 'two_apples', mapEntityLayer = '*****\\n*PAA*\\n*****'} end
        function api:createPickup(classname) return pickups.defaults[classname] end
        return api
    """)
    env = jaxlab.make(str(path), observations=POS, action_repeat=1)
    assert not bool(first_level(env.bank).cleared_restarts)
    step = jax.jit(env.step)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    paid = []
    for col in (2, 3, 3):
        state, ts = step(at(state, cell_center(1, col, 3)), STILL)
        paid.append(float(ts.reward))
    assert paid == [1.0, 1.0, 0.0]
    np.testing.assert_allclose(np.asarray(ts.observation["DEBUG.POS.TRANS"])[:2], cell_center(1, 3, 3), atol=1.0)
    assert np.all(np.asarray(state.pickup_wait)[np.asarray(first_level(env.bank).pickup_valid)] == -1)


def test_a_script_error_at_play_shows_in_extras_and_stops_the_lab(tmp_path):
    """A failed assert in a compiled pickup (the second apple): the env's ``extras["script_error"]`` turns on
    there and stays on; ``Lab.step`` raises, as DMLab stops on a Lua error, and reset starts afresh."""
    path = write(tmp_path, """
        local make_map = require 'common.make_map'
        local pickups = require 'common.pickups'
        local api = {}
        local taken = 0
        function api:start() taken = 0 end
        function api:nextMap() return make_map.makeMap{mapName = 'two_apples', mapEntityLayer = '*****\\n*PAA*\\n*****'} end
        function api:createPickup(classname) return pickups.defaults[classname] end
        function api:updateSpawnVars(v)   -- the player faces the apples (east)
          if v.classname == 'info_player_start' then v.angle = '0' v.randomAngleRange = '0' end
          return v
        end
        function api:pickup(id)
          taken = taken + 1
          assert(taken < 2, 'a second apple')
        end
        return api
    """)
    env = jaxlab.make(str(path), observations=POS, action_repeat=1)
    step = jax.jit(env.step)
    state, ts = jax.jit(env.reset)(jax.random.PRNGKey(0))
    flags = [bool(ts.extras["script_error"])]
    for col in (2, 3, 1):
        state, ts = step(at(state, cell_center(1, col, 3)), STILL)
        flags.append(bool(ts.extras["script_error"]))
    assert flags == [False, False, True, True]
    lab = jaxlab.Lab(str(path), [], {"width": "8", "height": "6"})
    lab.reset(seed=1)
    forward = np.zeros(7, np.intc)
    forward[3] = 1
    with pytest.raises(RuntimeError, match="a play-time callback of its script raised an error"):
        for _ in range(40):
            lab.step(forward, num_steps=4)
    assert not lab.is_running()
    lab.reset(seed=2)
    assert lab.is_running()


# -- episodes ------------------------------------------------------------------------------------

def test_random_maze_episodes_are_distinct_and_reproducible(tmp_path):
    out = tmp_path / "maze.jaxlab"
    assert cli([str(EXAMPLES / "random_maze.lua"), "-o", str(out), "--episodes", "100", "--seed", "3"]) == 0
    bank, meta = load_bank(out, Level)
    cells = np.asarray(bank.levels.cells)
    assert cells.shape[0] == 100 and meta["episodes"] == 100
    assert len({c.tobytes() + p.tobytes() for c, p in zip(cells, np.asarray(bank.levels.pickup_pos))}) == 100
    bank = compile_level(EXAMPLES / "random_maze.lua", episodes=12, seed=3)
    cells = np.asarray(bank.levels.cells)
    again = compile_level(EXAMPLES / "random_maze.lua", episodes=12, seed=3)
    np.testing.assert_array_equal(np.asarray(again.levels.cells), cells)
    other = compile_level(EXAMPLES / "random_maze.lua", episodes=12, seed=4)
    assert not np.array_equal(np.asarray(other.levels.cells), cells)


def test_lab_selects_compiled_episodes(tmp_path):
    out = tmp_path / "maze.jaxlab"
    assert cli([str(EXAMPLES / "random_maze.lua"), "-o", str(out), "--episodes", "3"]) == 0
    lab = jaxlab.Lab(str(out), ["DEBUG.POS.TRANS"], {"width": "32", "height": "24"})
    bank = load_bank(out, Level)[0]
    for k in (2, 0, 1):
        lab.reset(episode=k, seed=1)
        start = lab.observations()["DEBUG.POS.TRANS"][:2]
        np.testing.assert_allclose(start, np.asarray(bank.levels.spawn_pos)[k, 0])


def test_lab_passes_other_config_keys_to_init():
    lab = jaxlab.Lab(str(EXAMPLES / "apple_orchard.lua"), [], {"width": "32", "height": "24", "seconds": "2"})
    assert float(np.asarray(lab._bank.levels.episode_seconds)[0]) == 2.0
    with pytest.raises(jaxlab.UnknownNameError, match="width"):
        jaxlab.Lab("seekavoid_arena_01", [], {"widht": "32"})


# -- factories and the remaining callbacks --------------------------------------------------------

def test_two_line_factory_level_matches_the_builtin_map():
    bank = compile_level(EXAMPLES / "seek_avoid.lua")
    builtin = jaxlab.make("seekavoid_arena_01").bank
    np.testing.assert_array_equal(np.asarray(bank.levels.cells)[0], np.asarray(builtin.levels.cells)[0])
    assert float(bank.levels.episode_seconds[0]) == 20.0
    assert int(np.asarray(bank.levels.pickup_valid).sum()) == int(np.asarray(builtin.levels.pickup_valid).sum())


def test_random_goal_factory_moves_goal_and_spawn():
    bank = compile_level(EXAMPLES / "random_goal_maze.lua", episodes=6, seed=0)
    levels = jax.tree_util.tree_map(np.asarray, bank.levels)
    goals = {tuple(levels.pickup_pos[e][levels.pickup_is_goal[e]][0]) for e in range(6)}
    spawns = {tuple(np.asarray(bank.levels.spawn_pos)[e, 0]) for e in range(6)}
    assert len(goals) > 1 and len(spawns) > 1
    assert np.asarray(bank.levels.pickup_is_goal).sum(axis=1).tolist() == [1] * 6


def test_signs_and_senses(recwarn):
    compiled = compile_script(EXAMPLES / "signs_and_senses.lua", settings={"order": "Go left"})
    bank, meta = compiled.bank, compiled.meta
    lv = first_level(bank)
    kinds = sorted(lv.pickup_kind[lv.pickup_valid].tolist())
    # one apple removed, the lemon became a strawberry, the goal stays
    assert kinds == sorted([PICKUP_INDEX["apple_reward"], PICKUP_INDEX["strawberry_reward"], PICKUP_INDEX["goal"]])
    goal = lv.pickup_pos[lv.pickup_is_goal & lv.pickup_valid][0]
    np.testing.assert_allclose(goal, cell_center(3, 5, 5) + [50, 0])
    assert bytes(lv.custom_obs["ORDER"]).rstrip(b"\0") == b"Go left"
    np.testing.assert_allclose(lv.custom_obs["GOAL_XY"], goal)
    assert "".join(map(chr, lv.text_chars[0][lv.text_chars[0] > 0])) == "Go left"
    assert lv.text_align[0] == 2 and tuple(lv.text_pos[0]) == (320.0, 230.0)
    assert lv.bot_skill.tolist() == [2.0, 4.0] and [b["name"] for b in meta["bots"]] == ["Ada", "Grace"]
    assert any("r_fullscreen" in w for w in meta["warnings"])

    env = jaxlab.make(str(EXAMPLES / "signs_and_senses.lua"), width=64, height=48,
                      observations=("RGB_INTERLEAVED", "ORDER", "GOAL_XY"),
                      level_settings={"order": "Go left"})
    _, ts = jax.jit(env.reset)(jax.random.PRNGKey(0))
    assert ts.observation["ORDER"].dtype == np.uint8
    np.testing.assert_allclose(np.asarray(ts.observation["GOAL_XY"]), goal)


# -- what cannot be tabulated --------------------------------------------------------------------

MAP = "make_map.makeMap('*****\\n*P A*\\n*****', 'room')"


def test_pickup_that_counts_is_compiled_onto_the_device(tmp_path):
    path = write(tmp_path, f"""
        local make_map = require 'common.make_map'
        local api = {{taken = 0}}
        function api:nextMap() return {MAP} end
        function api:pickup(id)
          self.taken = self.taken + 1
          return self.taken
        end
        return api
    """)
    device = compile_script(path).meta["device"]   # tests/authoring/test_dmlab_playtime.py runs such levels
    assert device["callbacks"] == ["pickup"] and device["starts"] == [{"api.taken": 0}]


def test_hidden_counter_is_caught_by_the_second_pass(tmp_path):
    path = write(tmp_path, f"""
        local make_map = require 'common.make_map'
        local api = {{}}; calls = 0   -- a global: not play-time state the device could carry
        function api:nextMap() return {MAP} end
        function api:canPickup(id)
          calls = calls + 1
          return calls < 2
        end
        return api
    """)
    with pytest.raises(LuaScriptError, match=r"level.lua:5: api:canPickup cannot be compiled.*game state"):
        compile_level(path)


def test_can_pickup_that_changes_play_state_is_refused(tmp_path):
    path = write(tmp_path, f"""
        local make_map = require 'common.make_map'
        local api, calls = {{}}, 0
        function api:nextMap() return {MAP} end
        function api:canPickup(id)
          calls = calls + 1
          return calls < 2
        end
        return api
    """)
    with pytest.raises(LuaScriptError, match=r"level.lua:5: api:canPickup changing local.calls cannot run on the "
                                             r"device"):
        compile_level(path)


def test_unknown_class_is_left_out_with_one_warning_per_compile(tmp_path):
    path = write(tmp_path, """
        local make_map = require 'common.make_map'
        local api = {}
        function api:nextMap()
          return make_map.makeMap{mapName = 'm', mapEntityLayer = '*****\\n*PAX*\\n*****',
                                  pickups = {X = 'mystery_box'}}
        end
        return api
    """)
    with pytest.warns(CompileWarning) as caught:
        compiled = compile_script(path, episodes=3)
    about_box = [w for w in compiled.meta["warnings"] if "mystery_box" in w]
    assert len(about_box) == 1 and len([w for w in caught if "mystery_box" in str(w.message)]) == 1
    assert np.asarray(compiled.bank.levels.pickup_valid).sum(axis=1).tolist() == [1, 1, 1]


def test_play_time_callback_is_rejected_with_the_supported_list(tmp_path):
    path = write(tmp_path, f"""
        local make_map = require 'common.make_map'
        local api = {{}}
        function api:nextMap() return {MAP} end
        function api:gameEvent(name, data) return 5 end
        return api
    """)
    with pytest.raises(LuaScriptError, match=r"level.lua:5: api:gameEvent .* supported callbacks: .*pickup"):
        compile_level(path)


def test_unknown_map_name_suggests(tmp_path):
    path = write(tmp_path, """
        local api = {}
        function api:nextMap() return 'seekavoid_arena_1' end
        return api
    """)
    with pytest.raises(LuaScriptError, match=r"level.lua:3: .*'seekavoid_arena_01'"):
        compile_level(path)


# -- callback answers DMLab's API does not allow: one LuaScriptError at the callback's line -------

ROOM_SCRIPT = """local make_map = require 'common.make_map'
local api = {{}}
function api:nextMap() return make_map.makeMap('*****\\n*P A*\\n*****', 'room') end
{callback}
return api
"""
WRONG_ANSWERS = {
    "finished_string": ("function api:hasEpisodeFinished(t) return 'yes' end",
                        "api:hasEpisodeFinished must return a boolean (true or false), got 'yes' (a string)"),
    "finished_nil": ("function api:hasEpisodeFinished(t) if t > 5 then return true end end",
                     "api:hasEpisodeFinished must return a boolean (true or false), got nil"),
    "pickup_nan": ("function api:pickup(id) return 0/0 end",
                   "api:pickup must return a respawn time in seconds (a finite number) or nil, got nan (a number)"),
    "pickup_inf": ("function api:pickup(id) return math.huge end", "got inf (a number)"),
    "pickup_boolean": ("function api:pickup(id) return true end", "or nil, got true (a boolean)"),
    "pickup_nan_score": ("local game = require 'dmlab.system.game'\n"
                         "function api:pickup(id) game:addScore(0/0) end",
                         "in api:pickup: game:addScore expects a finite number, got "),
    "can_pickup_string": ("function api:canPickup(id) return 'no' end",
                          "api:canPickup must return a boolean (true or false) or nil, got 'no' (a string)"),
    "create_pickup_string": ("function api:createPickup(name) return 'a string' end",
                             "api:createPickup must return a table (name, classname, model, quantity, "
                             "type) or nil, got 'a string' (a string)"),
    "create_pickup_list": ("function api:createPickup(name) return {1, 2} end",
                           "got a list (a table with keys 1..n)"),
    "create_pickup_nan": ("function api:createPickup(name)\n"
                          "  return {name = name, class_name = name, model_name = '', quantity = 0/0, type = 9}\nend",
                          "type and quantity must be finite numbers"),
    "spawn_vars_number": ("function api:updateSpawnVars(vars) return 42 end",
                          "api:updateSpawnVars must return a table of spawn vars or nil (to remove the entity), "
                          "got 42 (a number)"),
    "observation_twice": ("function api:customObservationSpec()\n"
                          "  return {{name = 'SCORE', type = 'doubles', shape = {1}},\n"
                          "          {name = 'SCORE', type = 'doubles', shape = {1}}}\nend\n"
                          "function api:customObservation(name) return nil end",
                          "customObservationSpec lists observation 'SCORE' twice"),
}


@pytest.mark.parametrize("case", sorted(WRONG_ANSWERS))
def test_a_callback_answer_of_the_wrong_type_is_refused_at_its_line(case, tmp_path):
    callback, words = WRONG_ANSWERS[case]
    path = tmp_path / "level.lua"
    path.write_text(ROOM_SCRIPT.format(callback=callback))
    line = 4 + callback.split("function api:")[0].count("\n")
    with pytest.raises(LuaScriptError) as caught:
        compile_script(path)
    assert str(caught.value).startswith(f"{path}:{line}: ") and words in str(caught.value), str(caught.value)


def test_can_pickup_nil_keeps_dmlab_default_of_takeable(tmp_path):
    path = tmp_path / "level.lua"
    path.write_text(ROOM_SCRIPT.format(callback="function api:canPickup(id) end"))
    assert np.asarray(compile_level(path).levels.pickup_takeable)[0, 0]


@pytest.mark.parametrize("value", ["0/0", "math.huge", "-1", "'soon'"])
def test_a_factory_refuses_an_episode_length_that_is_not_finite_and_positive(value, tmp_path):
    """Located at the script's line, the tail call `return factory.createLevelApi{...}` notwithstanding."""
    path = tmp_path / "level.lua"
    path.write_text("local factory = require 'factories.seek_avoid_factory'\n\n"
                    "return factory.createLevelApi{mapName = 'seekavoid_arena_01',\n"
                    f"                              episodeLengthSeconds = {value}}}\n")
    with pytest.raises(LuaScriptError, match=rf"^{path}:3: in main chunk: createLevelApi: episodeLengthSeconds "
                                             r"must be a finite number of seconds > 0, got "):
        compile_script(path)


@pytest.mark.parametrize("value", ["inf", "1e999", "0", "abc"])
def test_a_factory_refuses_an_episode_length_setting_that_is_not_finite_and_positive(value):
    with pytest.raises(LuaScriptError, match=rf"in api:init: setting episodeLengthSeconds must be a finite number "
                                             rf"of seconds > 0, got {value} \(a string\)"):
        compile_script(EXAMPLES / "seek_avoid.lua", settings={"episodeLengthSeconds": value})


# -- bad scripts through the CLI: message with file:line, exit 1, no output -----------------------

BAD_SCRIPTS = {
    "syntax": ("local api = {}\nfunction api:nextMap(\n  return 'x'\nend\nreturn api\n", 3, "expected"),
    "runtime": ("local api = {}\nfunction api:nextMap()\n  return missing_function()\nend\nreturn api\n",
                3, "in api:nextMap"),
    "no_next_map": ("local api = {}\nfunction api:start() end\nreturn api\n", 3, "no nextMap"),
    "os_execute": ("os.execute('touch pwned')\nreturn {}\n", 1, "os.execute is not available"),
    "io_open": ("local api = {}\nlocal f = io.open('/etc/passwd')\nreturn api\n", 2, "io.open is not available"),
    "infinite_loop": ("local api = {}\nfunction api:nextMap()\n  while true do end\nend\nreturn api\n",
                      3, "longer than"),
}


@pytest.mark.parametrize("case", sorted(BAD_SCRIPTS))
def test_bad_scripts_fail_cleanly(case, tmp_path, capsys, monkeypatch):
    text, line, words = BAD_SCRIPTS[case]
    script = tmp_path / f"{case}.lua"
    script.write_text(text)
    out = tmp_path / f"{case}.jaxlab"
    monkeypatch.chdir(tmp_path)
    if case == "infinite_loop":
        monkeypatch.setattr("compile_lua.loading.TIME_LIMIT_S", 1.0)
    assert cli([str(script), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{script}:{line}:" in err and words in err
    assert not out.exists() and not (tmp_path / "pwned").exists()
    assert not list(tmp_path.glob("*.jaxlab*"))


# -- make() compiles once and caches by content ---------------------------------------------------

def test_make_caches_by_content(tmp_path, monkeypatch):
    path = write(tmp_path, """
        local make_map = require 'common.make_map'
        local api = {}
        function api:nextMap() return make_map.makeMap('*****\\n*P A*\\n*****', 'room') end
        return api
    """)
    env = jaxlab.make(str(path), observations=POS)
    assert len(list((tmp_path / "cache").glob("*.jaxlab"))) == 1

    def fail(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr("compile_lua.authoring.compile_in_child", fail)   # a hit starts no compile at all
    again = jaxlab.make(str(path), observations=POS)
    np.testing.assert_array_equal(np.asarray(again.bank.levels.cells), np.asarray(env.bank.levels.cells))
    path.write_text(path.read_text().replace("*P A*", "*PAA*"))
    with pytest.raises(AssertionError, match="compiled again"):
        jaxlab.make(str(path), observations=POS)


def test_make_runs_the_script_once(tmp_path, capsys):
    """A .lua given to make runs its main chunk exactly once: that run decides the kind and compiles."""
    dmlab = write(tmp_path, """
        print('top level ran')
        local make_map = require 'common.make_map'
        local api = {}
        function api:nextMap() return make_map.makeMap('*****\\n*P A*\\n*****', 'room') end
        return api
    """, name="dmlab_level.lua")
    capsys.readouterr()
    jaxlab.make(str(dmlab), observations=POS)
    assert capsys.readouterr().err.count("top level ran") == 1
    jaxlab.make(str(dmlab), observations=POS)   # cached: no Lua runs
    assert capsys.readouterr().err.count("top level ran") == 0
    grid = tmp_path / "grid_level.lua"
    grid.write_text("print('top level ran')\n" + (GRID_EXAMPLE).read_text())
    env = jaxlab.make(str(grid))
    assert type(env).__name__ == "GridEnv" and capsys.readouterr().err.count("top level ran") == 1


def test_compiler_digest_covers_every_module_and_the_lua_library(tmp_path, monkeypatch):
    """A changed sub-package module or Lua library file changes the cache key (cached banks miss)."""
    import shutil

    from compile_lua import cache

    package, library = tmp_path / "compile_lua", tmp_path / "lua"
    shutil.copytree(cache.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(cache.LIBRARY_DIR, library)
    monkeypatch.setattr(cache, "PACKAGE_DIR", package)
    monkeypatch.setattr(cache, "LIBRARY_DIR", library)
    digests = [cache._compiler_digest()]
    for changed in (package / "dmlab" / "episode.py", library / "common" / "pickups.lua"):
        changed.write_text(changed.read_text() + "\n-- changed\n")
        digests.append(cache._compiler_digest())
    assert len(set(digests)) == 3


def test_a_spawn_point_removed_by_update_spawn_vars_leaves_consistent_columns(tmp_path):
    """Two P, one removed in updateSpawnVars: per-spawn and per-pickup columns keep one length each, so
    the compiled bank passes load_bank's checks through jaxlab.make."""
    path = write(tmp_path, """
        local make_map = require 'common.make_map'
        local api = {}
        function api:nextMap() return make_map.makeMap('******\\n*P AP*\\n******', 'room') end
        function api:updateSpawnVars(vars)
          if vars.classname == 'info_player_start' and vars.id == '1' then return nil end
          return vars
        end
        return api
    """)
    bank = compile_level(path)
    levels = bank.levels
    assert levels.spawn_pos.shape[1] == levels.spawn_yaw.shape[1] == 1
    assert levels.pickup_key.shape == levels.pickup_teleport.shape == levels.pickup_valid.shape
    env = jaxlab.make(str(path), observations=POS)
    assert env.bank.levels.spawn_yaw.shape == (1, 1)


EXTRA_ENTITIES = """
    local make_map = require 'common.make_map'
    local api = {}
    function api:nextMap() return make_map.makeMap('*******\\n*P    *\\n*     *\\n*******', 'extra') end
    function api:updateSpawnVars(vars)
      if vars.classname ~= 'info_player_start' then error('an extra entity went through updateSpawnVars') end
      return vars
    end
    function api:extraEntities()
      return ANSWER
    end
    return api
"""


def test_extra_entities_join_the_map_after_update_spawn_vars_and_skip_it(tmp_path):
    """api:extraEntities (DMLab: called once the map's entities are spawned; its entities skip updateSpawnVars)
    adds pickups at their origins; nil adds none; a wrong answer is refused naming the callback."""
    answer = ("{{classname = 'apple_reward', origin = '350 150 30'},"
              " {classname = 'lemon_reward', origin = 450 .. ' 50 30'}}")
    levels = compile_level(write(tmp_path, EXTRA_ENTITIES.replace("ANSWER", answer))).levels
    valid = np.asarray(levels.pickup_valid[0])
    found = sorted(zip(np.asarray(levels.pickup_kind[0])[valid].tolist(),
                       map(tuple, np.asarray(levels.pickup_pos[0])[valid].tolist())))
    assert found == sorted([(PICKUP_INDEX["apple_reward"], (350.0, 150.0)),
                            (PICKUP_INDEX["lemon_reward"], (450.0, 50.0))])
    none = compile_level(write(tmp_path, EXTRA_ENTITIES.replace("ANSWER", "nil")))
    assert not np.asarray(none.levels.pickup_valid).any()
    for wrong, words in (("42", "extraEntities: it must return a list of spawn-var tables"),
                         ("{{origin = '1 1 1'}}", "extraEntities: entity 1 has no classname"),
                         ("{{classname = 'apple_reward', origin = {1}}}",
                          "extraEntities: entity 1: spawn var 'origin'")):
        with pytest.raises(LuaScriptError, match=words):
            compile_level(write(tmp_path, EXTRA_ENTITIES.replace("ANSWER", wrong)))


SPAWNING = """
    local make_map = require 'common.make_map'
    local pickups_spawn = require 'dmlab.system.pickups_spawn'
    local api = {}
    function api:nextMap() return make_map.makeMap('*******\\n*PA   *\\n*     *\\n*******', 'spawning') end
    function api:pickup(id, playerId)
      assert(playerId == 1, 'DMLab passes the agent as player 1')
      SPAWN
    end
    return api
"""


def test_a_pickup_spawns_entities_that_appear_once_it_is_taken(tmp_path):
    """pickups_spawn:spawn in api:pickup (DMLab's engine module): the compiler asks api:pickup(id, 1) ahead of
    time; the strawberry the apple spawns is a pickup of the level, absent until the apple is taken, then
    there to take (its count pays). Spawns elsewhere, without a classname, or without end are refused."""
    spawn = ("if id == 2 then pickups_spawn:spawn{classname = 'strawberry_reward', origin = '450 150 30',"
             " count = '5'} end")
    path = write(tmp_path, SPAWNING.replace("SPAWN", spawn))
    levels = compile_level(path).levels
    valid = np.asarray(levels.pickup_valid[0])
    assert np.asarray(levels.pickup_kind[0])[valid].tolist() == [PICKUP_INDEX["apple_reward"],
                                                                 PICKUP_INDEX["strawberry_reward"]]
    assert np.asarray(levels.pickup_spawned_by[0])[valid].tolist() == [-1, 0]
    env = jaxlab.make(str(path), observations=POS, width=8, height=6, action_repeat=1)
    step = jax.jit(env.step)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    rewards = []
    for xy in ((450.0, 150.0), (250.0, 250.0), (350.0, 150.0), (450.0, 150.0)):   # strawberry, apple, -, strawberry
        state, ts = step(state.replace(pos=jnp.asarray(xy, jnp.float32)), STILL)
        rewards.append(float(ts.reward))
    assert rewards == [0.0, 1.0, 0.0, 5.0]
    for wrong, words in (("pickups_spawn:spawn{origin = '1 1 1'}", "the spawn vars need a classname"),
                         ("pickups_spawn:spawn{classname = 'apple_reward', origin = '250 250 30'}",
                          "pickups_spawn:spawn in api:pickup: the map's pickups and those they spawn pass 256")):
        with pytest.raises(LuaScriptError, match=words):
            compile_level(write(tmp_path, SPAWNING.replace("SPAWN", wrong)))
    early = SPAWNING.replace("function api:nextMap() return",
                             "function api:nextMap() pickups_spawn:spawn{classname = 'apple_reward'} return")
    with pytest.raises(LuaScriptError, match="jaxlab spawns pickups only from api:pickup"):
        compile_level(write(tmp_path, early.replace("SPAWN", "")))
