"""The Lua sandbox of compile_lua and the pure-Lua library modules."""
import hashlib
import os
import time

import numpy as np
import pytest

from compile_lua.errors import LuaScriptError
from compile_lua.sandbox import LIBRARY_DIR, Sandbox


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make(tmp_path, text, name="level.lua", **kwargs):
    """A Sandbox for a script with body `text`, its main chunk already run."""
    kwargs.setdefault("time_limit_s", 1.0)
    sb = Sandbox(write(tmp_path / name, text), **kwargs)
    return sb, sb.load_script()


def error_of(fn, *args, **kwargs):
    with pytest.raises(LuaScriptError) as info:
        fn(*args, **kwargs)
    return info.value


# -- errors are located ---------------------------------------------------------

def test_syntax_error_has_file_and_line(tmp_path):
    script = write(tmp_path / "level.lua", "local api = {}\n\nfunction api:nextMap(\n  return 1\nend\n")
    err = error_of(Sandbox(script).load_script)
    assert err.path == str(script) and err.line == 4
    assert str(err).startswith(f"{script}:4: ")


def test_runtime_error_names_callback_file_and_line(tmp_path):
    sb, api = make(tmp_path, "local api = {}\nfunction api:nextMap()\n\n  return foo()\nend\nreturn api\n")
    err = error_of(sb.call, "api:nextMap", api.nextMap, api)
    assert (err.path, err.line) == (str(tmp_path / "level.lua"), 4)
    assert "in api:nextMap: attempt to call a nil value (global 'foo')" in str(err)
    assert str(err).startswith(f"{tmp_path / 'level.lua'}:4: in api:nextMap: ")


def test_long_paths_are_not_shortened(tmp_path):
    deep = tmp_path / ("d" * 80) / "level.lua"
    sb = Sandbox(write(deep, "local x = 1\nerror('boom')\n"))
    err = error_of(sb.load_script)
    assert (err.path, err.line) == (str(deep), 2) and err.message == "in main chunk: boom"


def test_error_in_user_module_points_into_the_module(tmp_path):
    write(tmp_path / "helpers" / "util.lua",
          "local M = {}\nfunction M.f(x)\n  return x.y.z\nend\nreturn M\n")
    sb, api = make(tmp_path, "local util = require 'helpers.util'\nlocal api = {}\n"
                             "function api:start() util.f({}) end\nreturn api\n")
    err = error_of(sb.call_method, api, "start")
    assert err.path == str(tmp_path / "helpers" / "util.lua") and err.line == 3
    assert "in api:start:" in str(err) and "attempt to index" in str(err)


def test_error_raised_in_library_is_reported_at_the_script_line(tmp_path):
    sb, api = make(tmp_path, "local tensor = require 'dmlab.system.tensor'\nlocal api = {}\n"
                             "function api:obs()\n  local t = tensor.Tensor{{1}, {1, 2}}\n"
                             "  return t\nend\n"
                             "function api:tail()\n  return tensor.Tensor{{1}, {1, 2}}\nend\n"
                             "function api:range()\n  local r = require('common.random')\n"
                             "  local x = r:uniformInt(5, 1)\nend\n"
                             "return api\n")
    err = error_of(sb.call_method, api, "obs", what="api:customObservation")
    assert (err.path, err.line) == (str(tmp_path / "level.lua"), 4)
    assert "in api:customObservation:" in str(err) and "ragged" in str(err)
    err = error_of(sb.call_method, api, "range")
    assert (err.path, err.line) == (str(tmp_path / "level.lua"), 12)
    assert "empty range" in str(err)
    # A tail call leaves no frame of the script: the library line is all there is.
    err = error_of(sb.call_method, api, "tail")
    assert err.path == "dmlab/system/tensor.lua" and "tail call" in str(err)


@pytest.mark.parametrize("raise_stmt, words", [
    ("error({code = 7, reason = 'bad'})", ["error object is a table", "'code': 7", "bad"]),
    ("error(setmetatable({}, {__tostring = function() return 'custom!' end}))", ["custom!"]),
    ("error()", ["error object is nil"]),
    ("error(42)", ["42"]),
    ("error('no position', 0)", ["no position"]),
])
def test_non_string_errors_are_readable(tmp_path, raise_stmt, words):
    sb, api = make(tmp_path, f"local api = {{}}\nfunction api:f()\n  {raise_stmt}\nend\nreturn api\n")
    err = error_of(sb.call_method, api, "f")
    assert err.line == 3 and err.path == str(tmp_path / "level.lua")
    for w in words:
        assert w in err.message


def test_missing_callback(tmp_path):
    sb, api = make(tmp_path, "return {}")
    err = error_of(sb.call_method, api, "nextMap")
    assert "api:nextMap" in str(err) and "does not define" in str(err)


# -- the sandbox ---------------------------------------------------------------

SANDBOXED = "level scripts run sandboxed"


@pytest.mark.parametrize("stmt, name", [
    ("os.execute('ls')", "os.execute"),
    ("local f = io.open('/etc/passwd')", "io.open"),
    ("local os = require 'os'", "os module"),
    ("local io = require('io'); io.open('x')", "io.open"),
    ("io.read()", "io.read"),
    ("io.lines('/etc/passwd')", "io.lines"),
    ("io.popen('ls')", "io.popen"),
    ("io.output('/tmp/x')", "io.output to a file"),
    ("package.loadlib('libc.so.6', 'system')", "package.loadlib"),
    ("local p = package.cpath", "package.cpath"),
    ("dofile('/etc/passwd')", "dofile"),
    ("loadfile('/etc/passwd')", "loadfile"),
    ("debug.sethook()", "debug.sethook"),
    ("local f = function() end; load(string.dump(f))", "string.dump"),
    ("local s = ('x').dump(print)", "string.dump"),
])
def test_forbidden_things_fail_clearly_with_location(tmp_path, stmt, name):
    sb, api = make(tmp_path, f"local api = {{}}\nfunction api:f()\n\n  {stmt}\nend\nreturn api\n")
    err = error_of(sb.call_method, api, "f")
    assert (err.path, err.line) == (str(tmp_path / "level.lua"), 4)
    assert name in err.message and SANDBOXED in err.message and "not available" in err.message


def test_io_output_goes_where_print_goes(tmp_path):
    """DeepMind Lab's logging writes to io.stdout: io.write and the two output files reach print_fn,
    one call per write, a trailing newline dropped."""
    printed = []
    make(tmp_path, "local io = require 'io'\nio.write('a', 1, '\\n')\nio.stdout:write('b'):write('c')\n"
                   "io.stderr:write('d\\n')\nassert(io.type(io.stdout) == 'file' and io.output() == io.stdout)\n"
                   "assert(io.flush() == io.stdout)\n"
                   "print(math.pow(2, 3), unpack({'e', 'f'}))\n", print_fn=printed.append)
    assert printed == ["a1", "b", "c", "d", "8.0\te\tf"]
    err = error_of(make, tmp_path, "io.write({})\n")
    assert err.line == 1 and "io write expects strings or numbers, got table" in err.message


def test_forbidden_at_top_level_of_script(tmp_path):
    err = error_of(make, tmp_path, "local x = 1\nlocal t = os.time()\n")
    assert err.line == 2 and "os.time is not available" in str(err)


def test_no_python_objects_and_no_binary_chunks(tmp_path):
    sb, api = make(tmp_path, """
local api = {}
function api:probe()
  local f, err = load('\\27Lua\\84\\0')
  local g = load('return os')
  return {python = type(python), print = type(print), require = type(require),
          binary = f == nil, err = err, env = g() == os, gc = collectgarbage('count') > 0,
          stop = collectgarbage('stop'), traceback = type(debug.traceback),
          loaded = package.loaded.string == string, upper = ('abc'):upper()}
end
return api
""")
    out = sb.to_python(sb.call_method(api, "probe"))
    assert out["python"] == "nil" and out["print"] == "function" and out["require"] == "function"
    assert out["binary"] and "text chunks" in out["err"]
    assert out["env"] and out["gc"] and out["loaded"] and out["upper"] == "ABC"
    assert out["traceback"] == "function"


def test_print_goes_to_print_fn(tmp_path):
    lines = []
    make(tmp_path, "print('hello', 1, nil, true)\nprint(('\\255'))\n", print_fn=lines.append)
    assert lines == ["hello\t1\tnil\ttrue", "\\xFF"]


# -- require ----------------------------------------------------------------------

def test_require_search_order_and_files(tmp_path):
    extra = tmp_path / "extra"
    write(tmp_path / "levels" / "shared_name.lua", "return 'script dir'")
    write(extra / "shared_name.lua", "return 'search dir'")
    write(extra / "only_extra.lua", "return 'search dir'")
    write(extra / "pkg" / "init.lua", "return 'init'")
    write(extra / "common" / "pickups.lua", "return 'shadowed library'")
    sb, api = make(tmp_path, "return {a = require 'shared_name', b = require 'only_extra',\n"
                             "        c = require 'pkg', d = require 'common.pickups',\n"
                             "        e = require 'common.screen_message'}\n",
                   name="levels/level.lua", search_dirs=[extra])
    out = sb.to_python(api)
    assert out["a"] == "script dir" and out["b"] == "search dir" and out["c"] == "init"
    assert out["d"] == "shadowed library"   # search_dirs come before the library
    assert out["e"]["ALIGN_CENTER"] == 2
    library_file = (LIBRARY_DIR / "common" / "screen_message.lua").resolve()
    expected = [tmp_path / "levels" / "level.lua", tmp_path / "levels" / "shared_name.lua",
                extra / "only_extra.lua", extra / "pkg" / "init.lua",
                extra / "common" / "pickups.lua", library_file]
    assert list(sb.files) == [str(p.resolve()) for p in expected]
    for p in expected:
        assert sb.files[str(p.resolve())] == hashlib.sha256(p.read_bytes()).hexdigest()
    assert sb.require("only_extra") == "search dir"   # cached in package.loaded


def test_require_from_library_and_python(tmp_path):
    sb, _ = make(tmp_path, "return nil")
    pickups = sb.to_python(sb.require("common.pickups"))
    assert pickups["type"]["GOAL"] == 10
    assert str((LIBRARY_DIR / "common" / "pickups.lua").resolve()) in sb.files


@pytest.mark.parametrize("name, words", [
    ("../x", "may not contain '..'"),
    ("common/make_map", "may not contain '/'"),
    ("/etc/passwd", "may not contain '/'"),
    ("no.such.module", "module not found"),
])
def test_require_refuses_bad_names(tmp_path, name, words):
    err = error_of(make, tmp_path, f"local x = 1\nlocal m = require '{name}'\n")
    assert (err.path, err.line) == (str(tmp_path / "level.lua"), 2)
    assert words in err.message and name in err.message


def test_require_not_found_lists_searched_folders(tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    err = error_of(make, tmp_path, "require 'nothing_here'\n", search_dirs=[extra])
    for folder in (tmp_path, extra, LIBRARY_DIR):
        assert str(folder) in err.message


def test_require_refuses_symlink_outside(tmp_path):
    outside = write(tmp_path / "outside" / "secret.lua", "return 'leaked'")
    levels = tmp_path / "levels"
    levels.mkdir()
    os.symlink(outside, levels / "evil.lua")
    write(levels / "inner.lua", "return 'ok'")
    os.symlink(levels / "inner.lua", levels / "alias.lua")   # inside: allowed
    sb = Sandbox(write(levels / "level.lua", "local a = require 'alias'\nlocal e = require 'evil'\n"))
    err = error_of(sb.load_script)
    # a link out of its folder is a module that is not there: the same message, nothing of where it leads
    assert err.line == 2 and "module not found" in err.message and str(outside.parent) not in err.message
    assert str(outside.resolve()) not in sb.files


def test_syntax_error_in_module(tmp_path):
    write(tmp_path / "broken.lua", "local M = {}\nM.x = = 2\nreturn M\n")
    err = error_of(make, tmp_path, "local b = require 'broken'\n")
    assert (err.path, err.line) == (str(tmp_path / "broken.lua"), 2)


# -- time and memory ---------------------------------------------------------------

@pytest.mark.parametrize("body", [
    "while true do end",
    "local co = coroutine.create(function() while true do end end)\n  coroutine.resume(co)",
    "coroutine.wrap(function() local i = 0 while true do i = i + 1 end end)()",
    "while true do pcall(function() while true do end end) end",
    "local ok = pcall(function() while true do end end)\n  return 'escaped'",
])
def test_runaway_loops_are_stopped(tmp_path, body):
    sb, api = make(tmp_path, f"local api = {{}}\nfunction api:loop()\n  {body}\nend\n"
                             "function api:ok() return 5 end\nreturn api\n")
    t0 = time.monotonic()
    err = error_of(sb.call_method, api, "loop")
    assert time.monotonic() - t0 < 4.0
    assert "script ran longer than 1 s (infinite loop?) in api:loop" in str(err)
    assert err.path == str(tmp_path / "level.lua") and err.line in (3, 4)
    assert sb.call_method(api, "ok") == 5   # the next call gets a fresh budget


def test_runaway_main_chunk(tmp_path):
    err = error_of(make, tmp_path, "local x = 0\nwhile true do x = x + 1 end\n")
    assert err.line == 2 and "in main chunk" in err.message


@pytest.mark.parametrize("body", [
    "local t = {} for i = 1, 1e9 do t[i] = i end",
    "local s = string.rep('x', 2^30)",
    "local s = 'x' for i = 1, 40 do s = s .. s end",
])
def test_memory_limit(tmp_path, body):
    sb, api = make(tmp_path, f"local api = {{}}\nfunction api:grow()\n  {body}\nend\n"
                             "function api:ok() return 'fine' end\nreturn api\n",
                   memory_limit_mb=32, time_limit_s=20)
    err = error_of(sb.call_method, api, "grow")
    assert "exceeded the memory limit of 32 MB" in err.message and "api:grow" in err.message
    assert err.path == str(tmp_path / "level.lua")
    assert sb.call_method(api, "ok") == "fine"


# -- values ------------------------------------------------------------------------

def test_to_python_nested_tables_and_tensors(tmp_path):
    sb, api = make(tmp_path, """
local tensor = require 'dmlab.system.tensor'
return {
  list = {1, 2.5, 'three', {4, {5}}},
  dict = {a = 1, [2] = 'two', nested = {x = {y = true}}},
  sparse = {[1] = 'a', [3] = 'c'},
  empty = {},
  raw = '\\0\\255',
  doubles = tensor.Tensor{{1, 2, 3}, {4, 5, 6}},
  bytes = tensor.ByteTensor{('abc'):byte(1, -1)},
  zeros = tensor.DoubleTensor(3, 2),
  byte_zeros = tensor.ByteTensor.zeros(2, 2, 3),
  wrapped = tensor.ByteTensor{256, -1, 3.7, 255},
}
""")
    out = sb.to_python(api)
    assert out["list"] == [1, 2.5, "three", [4, [5]]]
    assert type(out["list"][0]) is int and type(out["list"][1]) is float
    assert out["dict"] == {"a": 1, 2: "two", "nested": {"x": {"y": True}}}
    assert out["sparse"] == {1: "a", 3: "c"} and out["empty"] == {}
    assert out["raw"] == b"\x00\xff"
    d = out["doubles"]
    assert d.dtype == np.float64 and d.shape == (2, 3) and d.tolist() == [[1, 2, 3], [4, 5, 6]]
    b = out["bytes"]
    assert b.dtype == np.uint8 and b.tolist() == [97, 98, 99]
    assert out["zeros"].shape == (3, 2) and out["zeros"].dtype == np.float64
    assert not out["zeros"].any()
    assert out["byte_zeros"].shape == (2, 2, 3) and out["byte_zeros"].dtype == np.uint8
    assert out["wrapped"].tolist() == [0, 255, 3, 255]


def test_to_python_refuses_cycles(tmp_path):
    sb, api = make(tmp_path, "local t = {}\nt.self = t\nreturn t\n")
    with pytest.raises(ValueError, match="cycle"):
        sb.to_python(api)


def test_table_round_trip_and_call_converts_args(tmp_path):
    sb, api = make(tmp_path, "local api = {}\nfunction api:init(settings)\n"
                             "  return settings.width * 2, settings.names[2], #settings.names\nend\n"
                             "return api\n")
    data = {"a": [1, 2, {"b": 3.5}], "c": {"d": "e"}, "f": np.array([[1, 2], [3, 4]])}
    assert sb.to_python(sb.table(data)) == {"a": [1, 2, {"b": 3.5}], "c": {"d": "e"},
                                            "f": [[1, 2], [3, 4]]}
    assert sb.call_method(api, "init", {"width": 96, "names": ["x", "y", "z"]}) == (192, "y", 3)


def test_tensor_methods(tmp_path):
    sb, api = make(tmp_path, """
local tensor = require 'dmlab.system.tensor'
local t = tensor.DoubleTensor(2, 3)
local one = tensor.Tensor{7}
local b = tensor.ByteTensor{{1, 2}, {3, 4}}
return {shape = t:shape(), size = t:size(), type = t:type(), btype = b:type(),
        val = one:val(), set = one:val(9):val(), filled = t:fill(1.5),
        table = b:toTable(), reshaped = b:reshape(4), same = tensor.Tensor == tensor.DoubleTensor,
        eq = tensor.Tensor{1, 2} == tensor.Tensor{1, 2}, converted = tensor.ByteTensor(t)}
""")
    out = sb.to_python(api)
    assert out["shape"] == [2, 3] and out["size"] == 6
    assert out["type"] == "tensor.DoubleTensor" and out["btype"] == "tensor.ByteTensor"
    assert out["val"] == 7.0 and out["set"] == 9.0 and out["same"] and out["eq"]
    assert (out["filled"] == 1.5).all() and out["table"] == [[1, 2], [3, 4]]
    assert out["reshaped"].shape == (4,) and out["converted"].tolist() == [[1, 1, 1]] * 2


# -- library modules ------------------------------------------------------------------

RANDOM_SCRIPT = """
local random = require 'common.random'
local api = {}
function api:draw()
  local xs = {}
  for i = 1, 20 do xs[i] = random:uniformInt(1, 6) end
  xs[21] = random:uniformReal(0, 1)
  xs[22] = random:normalDistribution(0, 1)
  xs[23] = random:choice{'a', 'b', 'c'}
  xs[24] = table.concat(random:shuffle{1, 2, 3, 4, 5}, ',')
  return xs
end
function api:stats()
  local lo, hi, seen = math.huge, -math.huge, {}
  for i = 1, 2000 do
    local x = random:uniformInt(-2, 2)
    lo, hi, seen[x] = math.min(lo, x), math.max(hi, x), true
  end
  local g1, g2 = random.new(5), random.new(5)
  math.random()
  return lo, hi, g1:uniformInt(1, 1000000) == g2:uniformInt(1, 1000000)
end
return api
"""


def test_random_is_deterministic_per_seed(tmp_path):
    sb, api = make(tmp_path, RANDOM_SCRIPT)
    sb.seed(1)
    a = sb.to_python(sb.call_method(api, "draw"))
    sb.seed(1)
    b = sb.to_python(sb.call_method(api, "draw"))
    sb.seed(2)
    c = sb.to_python(sb.call_method(api, "draw"))
    assert a == b and a != c
    assert all(1 <= x <= 6 for x in a[:20]) and 0 <= a[20] < 1 and a[22] in "abc"
    assert sorted(a[23].split(",")) == ["1", "2", "3", "4", "5"]
    # A second sandbox gives the same sequence; math.random does not interfere.
    sb2, api2 = make(tmp_path, RANDOM_SCRIPT, name="other.lua")
    sb2.seed(1)
    sb2.lua.eval("math.random(1, 10)")
    assert sb2.to_python(sb2.call_method(api2, "draw")) == a
    assert sb.call_method(api, "stats") == (-2, 2, True)


def test_seed_before_require_seeds_module(tmp_path):
    draws = []
    for _ in range(2):
        sb = Sandbox(write(tmp_path / "level.lua",
                           "return function() return require('common.random'):uniformInt(1, 1e9) end"))
        sb.seed(123)
        fn = sb.load_script()
        draws.append(sb.call("draw", fn))
    assert draws[0] == draws[1]


def test_pickups_and_screen_message(tmp_path):
    sb, _ = make(tmp_path, "return nil")
    pickups = sb.to_python(sb.require("common.pickups"))
    t = pickups["type"]
    assert (t["INVALID"], t["WEAPON"], t["HEALTH"], t["PERSISTANT_POWERUP"], t["REWARD"],
            t["GOAL"]) == (0, 1, 4, 7, 9, 10)
    rewards = {k: (v["quantity"], v["type"]) for k, v in pickups["defaults"].items()}
    assert rewards == {"apple_reward": (1, 9), "lemon_reward": (-1, 9),
                       "strawberry_reward": (2, 9), "fungi_reward": (-10, 9),
                       "goal": (10, 10), "watermelon_goal": (20, 10), "mango_goal": (100, 10)}
    apple = pickups["defaults"]["apple_reward"]
    assert apple["class_name"] == "apple_reward"
    assert apple["model_name"] == "models/apple_reward.md3"
    sm = sb.require("common.screen_message")
    assert (sm.ALIGN_LEFT, sm.ALIGN_RIGHT, sm.ALIGN_CENTER) == (0, 1, 2)
    msg = sb.to_python(sb.call("centered", sm.centered,
                               {"width": 640, "height": 480, "line_height": 20}, "Find!"))
    assert msg == {"message": "Find!", "x": 320.0, "y": 230.0, "alignment": 2}


def test_debug_getinfo_names_files_and_lines_only(tmp_path):
    """Logging libraries ask debug.getinfo where they were called from: the file and line come back, never
    the function or anything of a chunk that is not a file."""
    sb, api = make(tmp_path, "local api = {}\nfunction api:where()\n  local i = debug.getinfo(1)\n"
                             "  return i.short_src, i.currentline, i.func, debug.getinfo(api.where).linedefined\n"
                             "end\nfunction api:caller()\n  return debug.getinfo(2).currentline\nend\n"
                             "function api:level()\n  local line = self:caller()\n  return line\nend\nreturn api\n")
    src, line, func, defined = sb.call_method(api, "where")
    assert src.endswith("level.lua") and line == 3 and func is None and defined == 2
    assert sb.call_method(api, "level") == 10
    err = error_of(make, tmp_path, "debug.getinfo('x')\n")
    assert err.line == 1 and "takes a stack level or a function" in err.message


def test_ipairs_reads_raw_as_lua_5_1_does(tmp_path):
    # DMLab and Lab2D run Lua 5.1, whose ipairs ignores __index: a table that makes a default for every
    # missing key (as Lab2D's commons_harvest does) ends at its last item; a view through an __index table
    # is still walked
    sb, api = make(tmp_path, """
local defaults = setmetatable({0.1, 0.2, 0.3}, {__index = function(t, k) rawset(t, k, 0); return 0 end})
local view = setmetatable({}, {__index = {'a', 'b'}})
local api = {}
function api:walk()
  local seen, items = 0, {}
  for i, v in ipairs(defaults) do seen = seen + 1 end
  for i, v in ipairs(view) do items[#items + 1] = v end
  return {seen = seen, items = items, past = defaults[7]}
end
return api
""")
    out = sb.to_python(sb.call_method(api, "walk"))
    assert out["seen"] == 3 and out["past"] == 0
    assert list(out["items"].values() if isinstance(out["items"], dict) else out["items"]) == ["a", "b"]
    bad_sb, bad = make(tmp_path, "local api = {}\nfunction api:bad() for _ in ipairs(5) do end end\nreturn api",
                       name="bad.lua")
    assert "table expected" in str(error_of(bad_sb.call_method, bad, "bad"))


PAIRS_WALK = """
local api = {}
function api:walk()
  local t = {true, 'two', [5] = 'five', [-1] = 'minus', [2.5] = 'half', [false] = 'no', [true] = 'yes'}
  for i = 1, 40 do t['key' .. ((i * 7919) % 40)] = i end
  t[3] = 'three'
  local out = {}
  for k, v in pairs(t) do
    out[#out + 1] = tostring(k)
    if k == 'key1' then t.key2 = nil end   -- a key removed during the walk is not visited
  end
  return table.concat(out, ' ')
end
return api
"""


def test_pairs_walks_one_order_in_every_lua_state(tmp_path):
    """Lua 5.4 seeds string hashes per state, so next's order over string keys differs between states; the
    sandbox's pairs walks 1..n, other numbers ascending, strings in byte order, false, true, in every one."""
    walks = set()
    for i in range(4):
        sb, api = make(tmp_path, PAIRS_WALK, name=f"level{i}.lua")
        walks.add(sb.call_method(api, "walk"))
    assert len(walks) == 1
    strings = sorted(f"key{i}" for i in range(40) if i != 2)
    assert walks.pop().split(" ") == ["1", "2", "3", "-1", "2.5", "5"] + strings + ["false", "true"]
