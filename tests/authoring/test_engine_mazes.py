"""dmlab.system.maze_generation: text mazes, fills and paths, and random mazes that are labmaze's."""
import labmaze
import pytest

import compile_lua.engine
from compile_lua.errors import LuaScriptError
from compile_lua.sandbox import Sandbox

HEADER = "local maze_generation = require 'dmlab.system.maze_generation'\n"

# rows 1..5, columns 1..7; the wall in row 3 leaves one gap, at column 6
SMALL = ("*******\n"
         "*P    *\n"
         "***** *\n"
         "*G    *\n"
         "*******\n")


def run(tmp_path, body, name="level.lua"):
    """The main chunk's result, as Python data, of a script that starts with HEADER."""
    script = tmp_path / name
    script.write_text(HEADER + body)
    sb = Sandbox(script, host_functions=compile_lua.engine.FUNCTIONS, time_limit_s=5.0)
    return sb.to_python(sb.load_script())


def error_of(tmp_path, body):
    with pytest.raises(LuaScriptError) as info:
        run(tmp_path, body)
    return info.value


def lua_string(text):
    return "'" + text.replace("\n", "\\n") + "'"


# -- text mazes ------------------------------------------------------------------------------------

def test_text_maze_round_trips_both_layers(tmp_path):
    variations = "AAAAAAA\nBBBBBBB\nCCCCCCC\nDDDDDDD\nEEEEEEE\n"
    out = run(tmp_path, f"local m = maze_generation.mazeGeneration{{entity = {lua_string(SMALL)}, "
                        f"variations = {lua_string(variations)}}}\n"
                        "local h, w = m:size()\n"
                        "return {m:entityLayer(), m:variationsLayer(), h, w}\n")
    assert out == [SMALL, variations, 5, 7]


def test_text_rows_are_padded_and_blank_lines_skipped(tmp_path):
    out = run(tmp_path, "local m = maze_generation:mazeGeneration{entity = '\\n***\\n* P *\\n\\n*\\n', "
                        "variations = 'AB\\n'}\n"
                        "local h, w = m:size()\n"
                        "return {m:entityLayer(), m:variationsLayer(), h, w}\n")
    assert out == ["***" + "**\n" + "* P *\n" + "*****\n", "AB...\n.....\n.....\n", 3, 5]


def test_blank_maze_and_cell_get_set(tmp_path):
    out = run(tmp_path, "local m = maze_generation.mazeGeneration{height = 3, width = 4}\n"
                        "local before = m:entityLayer() .. m:variationsLayer()\n"
                        "m:setEntityCell(2, 3, 'G')\n"
                        "m:setEntityCell(3.0, 1, ' ')\n"
                        "m:setVariationsCell(1, 4, 'B')\n"
                        "return {before, m:entityLayer(), m:variationsLayer(), m:getEntityCell(2, 3), "
                        "m:getVariationsCell(1, 4), m:getVariationsCell(3, 3)}\n")
    assert out == ["****\n****\n****\n....\n....\n....\n", "****\n**G*\n ***\n", "...B\n....\n....\n",
                   "G", "B", "."]


def test_world_positions_use_100_units_per_cell_with_y_up(tmp_path):
    out = run(tmp_path, f"local m = maze_generation.mazeGeneration{{entity = {lua_string(SMALL)}}}\n"
                        "local x1, y1 = m:toWorldPos(1, 1)\n"
                        "local x2, y2 = m:toWorldPos(5, 7)\n"
                        "local i1, j1 = m:fromWorldPos(x2, y2)\n"
                        "local i2, j2 = m:fromWorldPos(199.9, 0.5)\n"
                        "local i3, j3 = m:fromWorldPos(200, 100)\n"
                        "return {x1, y1, x2, y2, i1, j1, i2, j2, i3, j3}\n")
    assert out == [50, 450, 650, 50, 5, 7, 5, 2, 4, 3]


# -- fills and paths -------------------------------------------------------------------------------

def test_visit_fill_gives_distances_nearest_first(tmp_path):
    out = run(tmp_path, f"local m = maze_generation.mazeGeneration{{entity = {lua_string(SMALL)}}}\n"
                        "local seen = {}\n"
                        "m:visitFill{cell = {2, 2}, func = function(i, j, d)\n"
                        "  seen[#seen + 1] = {i, j, d}\n"
                        "  m:setEntityCell(i, j, '*')  -- the fill is found before the first call\n"
                        "end}\n"
                        "return seen\n")
    assert out == [[2, 2, 0], [2, 3, 1], [2, 4, 2], [2, 5, 3], [2, 6, 4], [3, 6, 5], [4, 6, 6],
                   [4, 5, 7], [4, 4, 8], [4, 3, 9], [4, 2, 10]]


def test_visit_fill_walls_and_a_wall_start(tmp_path):
    out = run(tmp_path, f"local m = maze_generation.mazeGeneration{{entity = {lua_string(SMALL)}}}\n"
                        "local count, from_wall = 0, 0\n"
                        "m:visitFill{cell = {2, 2}, wall = '* ', func = function() count = count + 1 end}\n"
                        "m:visitFill{cell = {1, 1}, func = function() from_wall = from_wall + 1 end}\n"
                        "local all = 0\n"
                        "m:visitFill{cell = {1, 1}, wall = '', func = function() all = all + 1 end}\n"
                        "return {count, from_wall, all}\n")
    assert out == [1, 0, 35]


def test_visit_random_path_walks_open_cells_to_the_goal(tmp_path):
    body = (f"local m = maze_generation.mazeGeneration{{entity = {lua_string(SMALL)}}}\n"
            "local function walk(args)\n"
            "  local path = {}\n"
            "  args.func = function(i, j) path[#path + 1] = {i, j} end\n"
            "  return {m:visitRandomPath(args), path}\n"
            "end\n"
            "local gen = require 'dmlab.system.random'\n"
            "gen:seed(4)\n"
            "return {walk{seed = 7, from = {2, 2}, to = {4, 2}}, walk{seed = 7, from = {2, 2}, to = {4, 2}},\n"
            "        walk{random = gen, from = {4, 6}, to = {2, 2}}, walk{seed = 1, from = {2, 2}, to = {2, 2}},\n"
            "        walk{seed = 1, from = {2, 2}, to = {4, 2}, wall = '* P'}}\n")
    first, again, other, same_cell, blocked = run(tmp_path, body)
    assert first == again
    grid = SMALL.split("\n")
    for found, path in (first, other):
        assert found is True
        assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(path, path[1:]))
        assert all(grid[i - 1][j - 1] != "*" for i, j in path)
    assert first[1][0] == [2, 2] and first[1][-1] == [4, 2] and len(first[1]) == 11
    assert other[1][0] == [4, 6] and other[1][-1] == [2, 2]
    assert same_cell == [True, [[2, 2]]]
    assert blocked == [False, {}]   # 'P' and ' ' are walls: the walk has nowhere to go


def test_visit_random_path_depends_on_its_seed_only(tmp_path):
    body = ("local m = maze_generation.mazeGeneration{height = 9, width = 9}\n"
            "m:visitFill{cell = {2, 2}, wall = '', func = function(i, j)\n"
            "  if 1 < i and i < 9 and 1 < j and j < 9 then m:setEntityCell(i, j, ' ') end\n"
            "end}\n"
            "local paths = {}\n"
            "for seed = 1, 6 do\n"
            "  local path = {}\n"
            "  m:visitRandomPath{seed = seed % 3, from = {2, 2}, to = {8, 8},\n"
            "                    func = function(i, j) path[#path + 1] = i * 10 + j end}\n"
            "  paths[seed] = table.concat(path, ' ')\n"
            "end\n"
            "return paths\n")
    paths = run(tmp_path, body)
    assert paths[:3] == paths[3:] and len(set(paths[:3])) == 3
    assert all(p.startswith("22 ") and p.endswith(" 88") for p in paths)


def test_visit_random_path_reports_an_unreachable_goal(tmp_path):
    out = run(tmp_path, "local m = maze_generation.mazeGeneration{entity = '*****\\n* * *\\n*****\\n'}\n"
                        "local calls = 0\n"
                        "local found = m:visitRandomPath{seed = 3, from = {2, 2}, to = {2, 4},\n"
                        "                                func = function() calls = calls + 1 end}\n"
                        "return {found, calls}\n")
    assert out == [False, 0]


# -- random mazes ----------------------------------------------------------------------------------

DMLAB_DEFAULTS = dict(max_rooms=0, room_min_size=3, room_max_size=7, retry_count=1000,
                      extra_connection_probability=0.05, max_variations=26, has_doors=False, simplify=True,
                      spawns_per_room=0, spawn_token="P", objects_per_room=0, object_token="G")


def labmaze_layers(seed, height, width, **changes):
    maze = labmaze.RandomMaze(height=height, width=width, random_seed=seed, **{**DMLAB_DEFAULTS, **changes})
    return [str(maze.entity_layer), str(maze.variations_layer)]


@pytest.mark.parametrize("args, seed, changes", [
    ("seed = 1, height = 11, width = 11", 1, {}),
    ("seed = 1234, height = 17, width = 17, maxRooms = 4, roomMaxSize = 5, roomMinSize = 3, "
     "extraConnectionProbability = 0.0", 1234, dict(max_rooms=4, room_max_size=5, extra_connection_probability=0.0)),
    ("seed = -7, height = 21, width = 15, maxRooms = 3, roomSpawnCount = 2, spawn = 'S', roomObjectCount = 1, "
     "object = 'O', hasDoors = true, maxVariations = 2", -7,
     dict(max_rooms=3, spawns_per_room=2, spawn_token="S", objects_per_room=1, object_token="O", has_doors=True,
          max_variations=2)),
    ("seed = 1 << 31, height = 13, width = 19, maxRooms = 2, simplify = false, retryCount = 50", -2**31,
     dict(max_rooms=2, simplify=False, retry_count=50)),
    ("seed = 99, height = 27, width = 27, maxRooms = 6, roomMinSize = 5, roomMaxSize = 9", 99,
     dict(max_rooms=6, room_min_size=5, room_max_size=9)),
])
def test_random_maze_is_labmazes_for_the_same_arguments(tmp_path, args, seed, changes):
    out = run(tmp_path, f"local m = maze_generation.randomMazeGeneration{{{args}}}\n"
                        "return {m:entityLayer(), m:variationsLayer()}\n")
    height, width = len(out[0].split("\n")) - 1, out[0].index("\n")
    assert out == labmaze_layers(seed, height, width, **changes)


def test_random_maze_from_a_generator_is_the_maze_of_the_seed_it_draws(tmp_path):
    out = run(tmp_path, "local gen = require 'dmlab.system.random'\n"
                        "gen:seed(11)\n"
                        "local m1 = maze_generation:randomMazeGeneration{random = gen, height = 15, width = 15}\n"
                        "local m2 = maze_generation.randomMazeGeneration{random = gen, height = 15, width = 15}\n"
                        "gen:seed(11)\n"
                        "local s1, s2 = gen:uniformInt(0, 2^31 - 1), gen:uniformInt(0, 2^31 - 1)\n"
                        "return {m1:entityLayer(), m2:entityLayer(), s1, s2}\n")
    assert out[0] == labmaze_layers(out[2], 15, 15)[0] and out[1] == labmaze_layers(out[3], 15, 15)[0]
    assert out[0] != out[1]


def test_random_mazes_are_deterministic(tmp_path):
    body = ("local t = {}\n"
            "for seed = 1, 3 do\n"
            "  t[seed] = maze_generation.randomMazeGeneration{seed = seed, height = 21, width = 21,\n"
            "                                                  maxRooms = 4}:entityLayer()\n"
            "end\n"
            "return t\n")
    first = run(tmp_path, body, "a.lua")
    assert first == run(tmp_path, body, "b.lua") and len(set(first)) == 3


# -- errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, message", [
    ("maze_generation.mazeGeneration{entity = 3}", "'entity' must be a non-empty string, got 3 (a number)"),
    ("maze_generation.mazeGeneration{height = 502, width = 3}", "integers in 1..501), got height 502"),
    ("maze_generation.mazeGeneration{entity = string.rep('*', 502)}", "more than 501 rows or columns"),
    ("maze_generation.mazeGeneration{entty = '*'}", "unknown argument \"entty\""),
    ("maze_generation.mazeGeneration(5)", "expects a table of named arguments, got 5 (a number)"),
    ("maze:getEntityCell(6, 1)", "maze:getEntityCell: cell (6, 1) is outside the maze (rows 1..5, columns 1..7)"),
    ("maze:setEntityCell(1, 1.5, 'x')", "the row and column must be integers, got 1 (a number) and 1.5"),
    ("maze:setVariationsCell(1, 1, 'ab')", "one-byte string other than a newline, got \"ab\" (a string)"),
    ("maze.getEntityCell(1, 1)", "maze:getEntityCell: call it on a maze with a colon"),
    ("maze:visitFill{cell = {0, 1}, func = print}", "maze:visitFill: 'cell': cell (0, 1) is outside the maze"),
    ("maze:visitFill{cell = {2, 2}}", "'func' must be a function, got nil"),
    ("maze:visitRandomPath{from = {2, 2}, to = {4, 2}, func = print}", "give 'random' (a random generator) or"),
    ("maze:fromWorldPos(0/0, 1)", "x and y must be finite numbers"),
    ("maze:rotate(1)", "maze:rotate is not provided"),
    ("maze_generation.randomMazeGeneration{height = 11, width = 11}", "give 'random' (a random generator"),
    ("maze_generation.randomMazeGeneration{seed = 1, height = 10, width = 11}",
     "'height' must be an odd integer in 1..101, got 10 (a number)"),
    ("maze_generation.randomMazeGeneration{seed = 1, height = 103, width = 11}", "in 1..101, got 103"),
    ("maze_generation.randomMazeGeneration{seed = 1, height = 11, width = 11, spawnToken = 'S'}",
     "unknown argument 'spawnToken' (the argument is 'spawn')"),
    ("maze_generation.randomMazeGeneration{seed = 1, height = 11, width = 11, maxRooms = 2, roomMaxSize = 11}",
     "'roomMaxSize' + 2 must fit the maze"),
    ("maze_generation.randomMazeGeneration{seed = 1, height = 11, width = 11, roomMinSize = 5, roomMaxSize = 3}",
     "'roomMinSize' (5) is larger than 'roomMaxSize' (3)"),
    ("maze_generation.randomMazeGeneration{seed = 1.5, height = 11, width = 11}", "'seed' must be an integer"),
    ("maze_generation.randomMazeGeneration{seed = 1, height = 11, width = 11, hasDoors = 1}",
     "'hasDoors' must be true or false, got 1 (a number)"),
    ("maze_generation.randomMazeGeneration{random = {}, height = 11, width = 11}",
     "'random' must be a random generator"),
])
def test_bad_arguments_are_refused_at_the_scripts_line(tmp_path, line, message):
    err = error_of(tmp_path, f"local maze = maze_generation.mazeGeneration{{entity = {lua_string(SMALL)}}}\n"
                             f"local x = {line}\n")
    assert err.path == str(tmp_path / "level.lua") and err.line == 3, str(err)
    assert message in err.message, err.message
    assert "raised in" not in err.message


def test_an_error_in_a_callback_points_at_the_callback(tmp_path):
    err = error_of(tmp_path, f"local maze = maze_generation.mazeGeneration{{entity = {lua_string(SMALL)}}}\n"
                             "maze:visitFill{cell = {2, 2}, func = function(i, j, d)\n"
                             "  if d == 3 then error('stop at ' .. i .. ',' .. j) end\n"
                             "end}\n")
    assert err.line == 4 and "stop at 2,5" in err.message
