"""A DeepMind Lab checkout given as ``dmlab_root`` (``jaxlab.make``) or ``--dmlab-root`` (``compile_lua``): a
script's ``require`` finds the checkout's modules, and a classic level name is made from its script."""
import numpy as np
import pytest

import jaxlab
from compile_lua.cli import main as compile_lua_main
from jaxlab.levels.dmlab.checkout import game_scripts

FACTORY = """
local make_map = require 'common.make_map'
local factory = {}
function factory.createLevelApi(kwargs)
  local api = {}
  function api:nextMap()
    return make_map.makeMap{mapName = 'm', mapEntityLayer = kwargs.layer}
  end
  return api
end
return factory
"""


@pytest.fixture
def checkout(tmp_path):
    """A checkout of our own: game_scripts/common (a make_map of its own that adds a lemon), a factory, and
    a level script ``levels/nav_maze_static_01.lua`` over them."""
    root = tmp_path / "lab"
    scripts = root / "game_scripts"
    (scripts / "common").mkdir(parents=True)
    (scripts / "factories").mkdir()
    (scripts / "levels").mkdir()
    (scripts / "common" / "make_map.lua").write_text(
        "local map_maker = require 'dmlab.system.map_maker'\nlocal make_map = {}\n"
        "function make_map.makeMap(kwargs)\n  map_maker:mapFromTextLevel{entityLayer = kwargs.mapEntityLayer, "
        "mapName = kwargs.mapName,\n    callback = function(i, j, c, maker)\n      if c == 'L' then return "
        "maker:makeEntity{i = i, j = j, classname = 'lemon_reward'} end\n    end}\n  return kwargs.mapName\nend\n"
        "return make_map\n")
    (scripts / "factories" / "row_factory.lua").write_text(FACTORY)
    (scripts / "levels" / "nav_maze_static_01.lua").write_text(
        "local factory = require 'factories.row_factory'\nreturn factory.createLevelApi{layer = '*****\\n*P L*\\n*****'}\n")
    return root


def test_game_scripts_is_found_from_the_root_or_itself(checkout):
    assert game_scripts(checkout) == checkout / "game_scripts" == game_scripts(checkout / "game_scripts")
    with pytest.raises(FileNotFoundError, match="neither a DeepMind Lab checkout"):
        game_scripts(checkout / "game_scripts" / "levels")
    with pytest.raises(TypeError, match="expected a folder"):
        game_scripts(3)


def test_a_classic_name_is_made_from_the_checkouts_script(checkout):
    env = jaxlab.make("nav_maze_static_01", dmlab_root=str(checkout), observations=(), width=8, height=6)
    assert np.asarray(env.bank.levels.cells).shape[1:] == (3, 5)      # the checkout's map, not jaxlab's own
    assert int(np.asarray(env.bank.levels.pickup_valid).sum()) == 1   # the lemon its own make_map adds
    native = jaxlab.make("nav_maze_static_01", observations=(), width=8, height=6)
    assert np.asarray(native.bank.levels.cells).shape[1:] != (3, 5)
    # a name without a script in the checkout, and contributed/... names, stay jaxlab's
    assert jaxlab.make("seekavoid_arena_01", dmlab_root=str(checkout), observations=(), width=8, height=6)


def test_a_script_path_resolves_the_checkouts_modules(checkout, tmp_path):
    script = tmp_path / "mine.lua"
    script.write_text("local factory = require 'factories.row_factory'\n"
                      "return factory.createLevelApi{layer = '****\\n*PL*\\n****'}\n")
    env = jaxlab.make(str(script), dmlab_root=str(checkout / "game_scripts"), observations=(), width=8, height=6)
    assert int(np.asarray(env.bank.levels.pickup_valid).sum()) == 1
    with pytest.raises(FileNotFoundError, match="neither a DeepMind Lab checkout"):
        jaxlab.make(str(script), dmlab_root=str(tmp_path))


def test_compile_lua_takes_dmlab_root(checkout, tmp_path, capsys):
    out = tmp_path / "out.jaxlab"
    level = checkout / "game_scripts" / "levels" / "nav_maze_static_01.lua"
    assert compile_lua_main([str(level), "--dmlab-root", str(checkout), "-o", str(out)]) == 0 and out.is_file()
    with pytest.raises(SystemExit):
        compile_lua_main([str(level), "--dmlab-root", str(tmp_path), "-o", str(out)])
    assert "neither a DeepMind Lab checkout" in capsys.readouterr().err
