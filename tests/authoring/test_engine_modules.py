"""The smaller engine modules a DeepMind Lab script requires: dmlab.system.events (events recorded in
order, with strings and tensors), dmlab.system.game_entities (a call says it reads the frame being played),
dmlab.system.model (descriptions checked, none drawn) and the level generator under both names."""
import numpy as np
import pytest

from compile_lua import LuaScriptError
from compile_lua.engine import FUNCTIONS
from compile_lua.sandbox import Sandbox


def run(tmp_path, text):
    """The sandbox and what the script ``text`` returned (its main chunk run)."""
    path = tmp_path / "level.lua"
    path.write_text(text)
    sb = Sandbox(path, host_functions=FUNCTIONS)
    return sb, sb.load_script()


def test_events_are_taken_in_order_with_their_observations(tmp_path):
    sb, taken = run(tmp_path, """
local events = require 'dmlab.system.events'
local tensor = require 'dmlab.system.tensor'
events:add('first')
events:add('second', 'text', tensor.ByteTensor{1, 2}, tensor.DoubleTensor{{0.5}})
local taken = events._take()
assert(#events._take() == 0)
return taken
""")
    got = sb.to_python(taken)
    assert [e["name"] for e in got] == ["first", "second"]
    assert got[0].get("observations", []) in ([], {})
    text, byte, double = got[1]["observations"]
    assert text == "text" and byte.dtype == np.uint8 and byte.tolist() == [1, 2] and double.tolist() == [[0.5]]


@pytest.mark.parametrize("call, words", [
    ("events:add(3)", "expects an event name (a string) first, got number"),
    ("events:add('e', {})", "observation 1 is a table; each must be a string, a ByteTensor or a DoubleTensor"),
    ("require('dmlab.system.game_entities'):entities{'apple_reward'}", "reads the entities of the frame being played"),
    ("require('dmlab.system.game_entities'):entities(3)", "expects a list of class names or nothing"),
    ("require('dmlab.system.model'):cube(3)", "model:cube expects a table of arguments"),
    ("require('dmlab.system.model'):loadMD3(3)", "model:loadMD3 expects a file name"),
    ("require('dmlab.system.model'):saveMD3()", "writes a file"),
])
def test_refusals_are_located_at_the_script(tmp_path, call, words):
    with pytest.raises(LuaScriptError) as err:
        run(tmp_path, f"local events = require 'dmlab.system.events'\n{call}\n")
    assert words in str(err.value) and err.value.line == 2


def test_models_are_described_not_drawn(tmp_path):
    sb, made = run(tmp_path, """
local model = require 'dmlab.system.model'
return model:hierarchy{nodes = {a = model:cube{minPoint = {0, 0, 0}, maxPoint = {1, 1, 1}}}, md3 = model:loadMD3('x')}
""")
    got = sb.to_python(made)
    assert got["kind"] == "hierarchy" and got["nodes"]["a"]["kind"] == "cube"
    assert got["md3"] == {"kind": "md3", "path": "x"}


def test_the_level_generator_is_one_under_both_names_and_seeded_by_the_compiler(tmp_path):
    sb, api = run(tmp_path, """
local engine = require 'dmlab.system.random'
local common = require 'common.random'
assert(engine == common and common:generator() == engine)
return {draw = function() return engine:uniformInt(1, 1000000) end}
""")

    def draws():
        return [sb.call("draw", api["draw"]) for _ in range(3)]
    sb.seed(7)
    first = draws()
    sb.seed(8)
    other = draws()
    sb.seed(7)
    assert draws() == first != other and len(set(first)) == 3


def test_lab_gives_each_episodes_events_after_reset(tmp_path):
    """Events a script raises while an episode is made reach ``Lab.events()`` after that episode's reset,
    with their strings and tensors; a step clears them."""
    from jaxlab.hosts.dmlab import Lab

    path = tmp_path / "events.lua"
    path.write_text("""
local events = require 'dmlab.system.events'
local tensor = require 'dmlab.system.tensor'
local make_map = require 'common.make_map'
local api = {}
function api:start(episode, seed)
  events:add('EPISODE', tostring(episode), tensor.DoubleTensor{episode, 0.5})
end
function api:nextMap()
  events:add('MAP')
  return make_map.makeMap{mapName = 'm', mapEntityLayer = '*****\\n*P A*\\n*****'}
end
return api
""")
    lab = Lab(str(path), ["RGB_INTERLEAVED"], {"width": "8", "height": "6"}, episodes=2)
    for episode in (0, 1, 0):
        lab.reset(episode=episode, seed=1)
        (name, (text, values)), (map_name, nothing) = lab.events()
        assert (name, text, values.dtype, values.tolist()) == ("EPISODE", str(episode), np.float64, [episode, 0.5])
        assert (map_name, nothing) == ("MAP", [])
    lab.step(np.zeros(7, np.intc))
    assert lab.events() == []


INVENTORY_LEVEL = """local make_map = require 'common.make_map'
local api = {}
function api:nextMap()
  return make_map.makeMap{mapName = 'm', mapEntityLayer = '*****\\n*P A*\\n*****'}
end
function api:spawnInventory(loadOut)
  %s
end
return api
"""


@pytest.mark.parametrize("body, changed", [("return nil", None), ("return loadOut", None),
                                           ("loadOut.stats[4] = 50\n  return loadOut", ["stats"])])
def test_inventory_callbacks_meet_dmlabs_default_load_out(tmp_path, body, changed):
    """spawnInventory is called once on DMLab's default load-out: nil or the load-out unchanged compiles
    quietly; a change is kept in the meta and named in a warning; another answer is refused at its line."""
    import warnings

    from compile_lua import CompileWarning, compile_script

    path = tmp_path / "level.lua"
    path.write_text(INVENTORY_LEVEL % body)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompileWarning)
        meta = compile_script(path).meta
    found = meta["inventory"].get("spawnInventory")
    assert (sorted(found) if found else None) == changed
    if changed:
        assert found["stats"][3] == 50
        assert any("changes the player's stats" in str(w.message) for w in caught)


def test_an_inventory_callback_answering_otherwise_is_refused(tmp_path):
    from compile_lua import compile_script

    path = tmp_path / "level.lua"
    path.write_text(INVENTORY_LEVEL % "return 3")
    with pytest.raises(LuaScriptError) as err:
        compile_script(path)
    assert err.value.line == 6 and "api:spawnInventory returned a int" in str(err.value)
