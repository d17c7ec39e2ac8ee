"""``dmlab.system.map_maker``: text levels made with a callback and a maker, as DeepMind Lab's level
scripts make them, compiled into levels whose spawns, pickups and doors stand where the text puts them."""
import jax
import numpy as np
import pytest

import jaxlab
from compile_lua import LuaScriptError, compile_script
from jaxlab.levels.dmlab.map_parser import CELL_FLOOR
from jaxlab.levels.dmlab.units import CELL_SIZE

MAP = """
*******
*P a x*
* *H* *
*  b  *
*******
"""

SCRIPT = """
local map_maker = require 'dmlab.system.map_maker'
local api = {}
function api:nextMap()
  local name = map_maker:mapFromTextLevel{
    entityLayer = [[%s]], mapName = 'made', theme = 'TRON', %s
    callback = function(i, j, c, maker)
      %s
    end}
  return name
end
return api
"""

CALLBACK = """
      if c == 'a' then return maker:makeEntity{i = i, j = j, classname = 'apple_reward'} end
      if c == 'b' then
        return {maker:makeEntity{i = i, j = j, classname = 'goal', attributes = {id = 7}},
                maker:makeSpawnPoint{i = i, j = j - 1, angleRad = math.pi / 2}}
      end
      if c == 'x' then return '' end
"""


def compile_text(tmp_path, callback=CALLBACK, layer=MAP, extra=""):
    path = tmp_path / "level.lua"
    path.write_text(SCRIPT % (layer, extra, callback))
    return compile_script(path).bank.levels


def centre(row, col, rows=5):
    """The (x, y) units of cell (row, col) of a map of ``rows`` rows."""
    return [(col + 0.5) * CELL_SIZE, (rows - row - 0.5) * CELL_SIZE]


def test_entities_stand_at_their_cells(tmp_path):
    lv = compile_text(tmp_path)
    assert np.asarray(lv.spawn_pos)[0].tolist() == [centre(1, 1), centre(3, 2)]   # the default P, then the maker's
    valid = np.asarray(lv.pickup_valid)[0]
    assert np.asarray(lv.pickup_pos)[0][valid].tolist() == [centre(1, 3), centre(3, 3)]
    assert int(np.asarray(lv.door_valid)[0].sum()) == 1      # 'H' left to its default


def test_a_callback_that_handles_p_removes_its_spawn(tmp_path):
    callback = CALLBACK + ("      if c == 'P' then return maker:makeEntity{i = i, j = j, classname = 'lemon_reward'} "
                           "end\n")
    lv = compile_text(tmp_path, callback)
    assert np.asarray(lv.spawn_pos)[0].tolist() == [centre(3, 2)]
    valid = np.asarray(lv.pickup_valid)[0]
    assert centre(1, 1) in np.asarray(lv.pickup_pos)[0][valid].tolist()


def test_cell_size_scales_the_origins(tmp_path):
    """Entities written for 50-unit cells land on the same cells of the level."""
    lv = compile_text(tmp_path, extra="cellSize = 50,")
    valid = np.asarray(lv.pickup_valid)[0]
    assert np.asarray(lv.pickup_pos)[0][valid].tolist() == [centre(1, 3), centre(3, 3)]


PLATFORMS = """
*******
*.a.b.*
*.c...*
*******
"""


def test_platforms_are_heights_under_the_sky_and_other_cells_are_solid(tmp_path):
    """addPlatform adds ground at 0.2 height cells (DeepMind Lab's scale) and returns ''; the cells with no
    platform (glass columns, the sky) are solid; the spawn stands on its platform."""
    callback = """
      if c == '.' then maker:addGlassColumn{i = i, j = j, height = 5} return '' end
      local height = ({a = 4, b = 3, c = 2})[c]
      maker:addPlatform{i = i, j = j, height = height}
      if c == 'a' then return maker:makeSpawnPoint{i = i, j = j, height = height} end
      if c == 'c' then return maker:makeEntity{i = i, j = j, height = height, classname = 'goal'} end
      return ''
"""
    lv = compile_text(tmp_path, callback, layer=PLATFORMS)
    z = np.asarray(lv.floor_z)[0][::2, ::2]   # one height cell per map cell (each is 2 x 2)
    assert z[1, 2] == 4 * 0.2 * CELL_SIZE and z[1, 4] == 3 * 0.2 * CELL_SIZE and z[2, 2] == 2 * 0.2 * CELL_SIZE
    assert (z[1, 1] < -1000) and int(np.asarray(lv.sky)[0]) > 0
    floor = np.asarray(lv.cells)[0] == CELL_FLOOR
    assert floor.sum() == 3 and floor[1, 2] and floor[1, 4] and floor[2, 2]
    assert np.asarray(lv.spawn_pos)[0].tolist() == [centre(1, 2, rows=4)]


@pytest.mark.parametrize("callback, words", [
    ("if c == 'a' then return 3 end", "the callback returned a number for cell (1, 3) \"a\""),
    ("if c == 'a' then return {1} end", "entity 1 for cell (1, 3) is a number"),
    ("if c == 'a' then return maker:makeEntity{i = i, classname = 'apple_reward'} end", "j must be a finite number"),
    ("if c == 'a' then return maker:makeEntity{i = i, j = j} end", "classname must be a string"),
    ("if c == 'a' then return maker:makeEntity{i = i, j = 40, classname = 'goal'} end", "lies outside the 5 x 7 map"),
    ("if c == 'a' then return maker:makeEntity{i = 2, j = 2, classname = 'goal'} end", "stands in a wall"),
    ("if c == 'a' then return '{\\n\"classname\" \"goal\"\\n' end", "ends inside an entity"),
])
def test_bad_callbacks_are_reported_at_the_script(tmp_path, callback, words):
    with pytest.raises(LuaScriptError) as err:
        compile_text(tmp_path, callback)
    assert words in str(err.value) and err.value.path == str(tmp_path / "level.lua")


def test_random_gen_is_a_seeded_generator(tmp_path):
    path = tmp_path / "level.lua"
    path.write_text("""
local map_maker = require 'dmlab.system.map_maker'
local rng = map_maker:randomGen()
rng:seed(5)
local a = {rng:uniformInt(1, 1000), rng:uniformInt(1, 1000)}
rng:seed(5)
assert(rng:uniformInt(1, 1000) == a[1] and rng:uniformInt(1, 1000) == a[2])
local api = {}
function api:nextMap()
  return map_maker:mapFromTextLevel{entityLayer = '*****\\n*P G*\\n*****', mapName = 'm' .. a[1]}
end
return api
""")
    lv = compile_script(path).bank.levels
    assert np.asarray(lv.spawn_pos)[0].tolist() == [centre(1, 1, rows=3)]
    assert not np.asarray(lv.pickup_valid)[0].any()      # 'G' has no default in a text level


def test_a_map_open_at_its_edge_is_walled_one_cell_out(tmp_path):
    """DMLab walls a text level's edge: a map whose border holds floor gets a border of walls, which moves
    its world positions one cell (+100 units in x and y)."""
    lv = compile_text(tmp_path, callback="if c == 'a' then return maker:makeEntity{i = i, j = j, "
                                         "classname = 'apple_reward'} end", layer="P a")
    cells = np.asarray(lv.cells)[0]
    assert cells.shape == (3, 5) and cells[0].all() and cells[-1].all() and cells[:, 0].all()
    assert not cells[1, 1:4].any()
    assert np.asarray(lv.spawn_pos)[0].tolist() == [centre(1, 1, rows=3)]
    valid = np.asarray(lv.pickup_valid)[0]
    assert np.asarray(lv.pickup_pos)[0][valid].tolist() == [centre(1, 3, rows=3)]


def _spawn_script(path, spawn_vars):
    path.write_text("local make_map = require 'common.make_map'\nlocal api = {}\nfunction api:nextMap()\n"
                    "  return make_map.makeMap{mapName = 'm', mapEntityLayer = '*****\\n*P  *\\n*****'}\nend\n"
                    "function api:updateSpawnVars(spawnVars)\n  if spawnVars.classname == 'info_player_start' then\n"
                    f"    {spawn_vars}\n  end\n  return spawnVars\nend\nreturn api\n")
    return path


@pytest.mark.parametrize("spawn_vars, yaw, spread", [
    ("spawnVars.angle = '-90'; spawnVars.randomAngleRange = '0'", -90.0, 0.0),
    ("spawnVars.angle = '45'", None, 0.0),
    ("spawnVars.angle = '45'; spawnVars.randomAngleRange = '90'", 45.0, 90.0)])
def test_spawn_angles_as_dmlab_reads_them(tmp_path, spawn_vars, yaw, spread):
    """A spawn point faces its ``angle`` turned by up to half its ``randomAngleRange`` either way; DMLab's
    default range (360) spawns facing anywhere (NaN: drawn at reset)."""
    levels = compile_script(_spawn_script(tmp_path / "level.lua", spawn_vars)).bank.levels
    got = float(np.asarray(levels.spawn_yaw)[0, 0])
    assert got == yaw if yaw is not None else np.isnan(got)
    assert float(np.asarray(levels.spawn_yaw_range)[0, 0]) == spread


def test_a_spawn_angle_range_turns_the_player_within_it_at_reset(tmp_path, monkeypatch):
    """DMLab: yaw = angle + (u - 0.5) * randomAngleRange, u uniform in [0, 1): 256 resets of a spawn point
    at 45 degrees with a range of 90 face 0..90 degrees and cover it."""
    monkeypatch.setenv("JAXLAB_CACHE_DIR", str(tmp_path / "cache"))   # the compiled bank, not in ~/.cache
    path = _spawn_script(tmp_path / "level.lua", "spawnVars.angle = '45'; spawnVars.randomAngleRange = '90'")
    env = jaxlab.make(str(path), width=8, height=6, observations=("DEBUG.POS.ROT",))
    _, ts = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), 256))
    yaw = np.asarray(ts.observation["DEBUG.POS.ROT"])[:, 1]
    assert (yaw >= 0.0).all() and (yaw <= 90.0).all() and yaw.min() < 5.0 and yaw.max() > 85.0
