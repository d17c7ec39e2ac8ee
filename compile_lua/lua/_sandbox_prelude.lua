--[[ Private setup of compile_lua.sandbox.Sandbox (not a level module).

Runs once per LuaRuntime with the real globals. It captures the few real
functions the sandbox needs (debug.sethook and debug.getinfo among them),
builds the sandbox environment that level scripts and their modules run in,
strips the dangerous libraries from the real globals, and returns a table of
private functions for Python. Scripts cannot reach this chunk's locals (they
have no debug library), and its own frames are skipped when errors are located
(its chunk name does not start with '@').

`...` is a table from Python: print(text), now() (monotonic seconds),
find(name) -> display, source, library | nil, message, count (instructions between
time checks), note (the "level scripts run sandboxed (...)" text), host(name, ...) -> ok, result
(a host function of the Sandbox's host_functions; ok false: result is the message).

Modules of the jaxlab Lua library (not scripts, nor modules found in their folders) get a third
chunk argument, `host(name, ...)`: the engine modules (dmlab.system.*) call Python through it.
]]
local py = ...
local py_print, py_now, py_find, py_host = py.print, py.now, py.find, py.host
local COUNT, NOTE = py.count, py.note

local G = _G
local real_sethook, real_getinfo = debug.sethook, debug.getinfo
local raw_getmetatable, traceback = debug.getmetatable, debug.traceback
local getupvalue, setupvalue, upvalueid = debug.getupvalue, debug.setupvalue, debug.upvalueid
local co_create, co_resume, co_close = coroutine.create, coroutine.resume, coroutine.close
local real_load, error, type, tostring, pcall, xpcall = load, error, type, tostring, pcall, xpcall
local setmetatable, rawget, next, select = setmetatable, rawget, next, select
local pack, unpack, concat = table.pack, table.unpack, table.concat
local sformat, sgsub, sfind, ssub, schar, sbyte, spack, srep = string.format,
    string.gsub, string.find, string.sub, string.char, string.byte, string.pack, string.rep
local utf8len = utf8.len
local real_collect, randomseed = collectgarbage, math.randomseed
local mmin, mtype = math.min, math.type

-- Strings -------------------------------------------------------------------

local HEX, BYTEHEX = {}, {}
for i = 0, 255 do
  HEX[schar(i)] = sformat('%02x', i)
  BYTEHEX[i] = HEX[schar(i)]
end

local function tohex(s) return (sgsub(s, '.', HEX)) end

-- Valid UTF-8 as is; otherwise bytes >= 0x80 written as \xNN (so that Python
-- can always decode the text).
local function sanitize(s)
  if utf8len(s) then return s end
  return (sgsub(s, '[\128-\255]', function(c) return sformat('\\x%02X', sbyte(c)) end))
end

-- Time budget ---------------------------------------------------------------

local TIMEOUT = setmetatable({}, {__tostring = function()
  return 'script ran past its time limit'
end})
local deadline, expired, seen_src, seen_line = nil, nil, nil, nil
local MAX_FRAMES = 250
local hook, run, reset

-- {chunk1, line1, tail1, chunk2, ...} for the Lua frames of loaded files
-- (sources "@<display path>") from stack `level` outwards, innermost first;
-- tail is true when the frame was entered by a tail call (its caller is gone).
local function frames_from(level)
  local out, n = {}, 0
  for lv = level, level + MAX_FRAMES do
    local info = real_getinfo(lv, 'Slt')
    if not info then break end
    if info.currentline > 0 and ssub(info.source, 1, 1) == '@' then
      out[n + 1], out[n + 2], out[n + 3] = ssub(info.source, 2), info.currentline,
          info.istailcall
      n = n + 3
    end
  end
  return out
end

hook = function()
  local d = deadline
  if not d then return end
  if not expired then
    for lv = 2, 4 do  -- remember roughly where the script is (memory errors)
      local info = real_getinfo(lv, 'Sl')
      if not info then break end
      if info.currentline > 0 and ssub(info.source, 1, 1) == '@' then
        seen_src, seen_line = ssub(info.source, 2), info.currentline
        break
      end
    end
  end
  if expired or py_now() > d then
    local f = real_getinfo(2, 'f').func
    if f == run or f == reset then return end  -- our own epilogue
    if not expired then expired = frames_from(3) end
    -- Check every few instructions from now on, so that a script that
    -- catches the error with pcall in a loop cannot keep going.
    real_sethook(hook, '', 7)
    error(TIMEOUT, 0)
  end
end

-- The message handler of run(): the error and where it happened.
local function handler(e)
  local info = {frames = frames_from(3), kind = type(e), timeout = (e == TIMEOUT)}
  if type(e) == 'string' then
    info.msg = sanitize(e)
  else
    local mt = raw_getmetatable(e)
    if e ~= TIMEOUT and type(mt) == 'table' and rawget(mt, '__tostring') ~= nil then
      local ok, s = pcall(tostring, e)
      if ok and type(s) == 'string' then info.msg = sanitize(s) end
    end
    info.value = e
  end
  return info
end

--- Calls f(...) with a deadline (monotonic seconds). Returns the packed
-- xpcall results, the frames where the deadline was found passed (or nil),
-- the last sampled script location, and the indices of string results that
-- were not UTF-8 (replaced by their hex).
run = function(d, f, ...)
  deadline, expired, seen_src, seen_line = d, nil, nil, nil
  real_sethook(hook, '', COUNT)
  local r = pack(xpcall(f, handler, ...))
  real_sethook()
  deadline = nil
  local binary
  if r[1] then
    for i = 2, r.n do
      local v = r[i]
      if type(v) == 'string' and not utf8len(v) then
        r[i] = tohex(v)
        binary = binary or {}
        binary[i] = true
      end
    end
  end
  return r, expired, seen_src, seen_line, binary
end

--- Clears the hook and the deadline (after run() itself failed).
reset = function()
  real_sethook()
  deadline = nil
  real_collect('collect')
end

-- The sandbox environment -----------------------------------------------------

local env, loaded, loading = {}, {}, {}
local pending_seed = nil

local function unavailable(what, hint)
  return sformat('%s is not available: %s%s', what, NOTE, hint or '')
end

local REQUIRE_HINT = "; modules are loaded with require 'name' from the script's "
    .. 'folder, search_dirs and the jaxlab Lua library'
local HINTS = {
  os = '; for randomness use common.random (seeded by the compiler)',
  io = '; io.write, io.flush, io.stdout and io.stderr go where print goes; ' .. "require 'name' for modules",
  debug = '',
}

-- debug.getinfo for logging (DeepMind Lab's common.log names the calling file and line): where a
-- function is written or a frame runs (source, short_src, what, currentline, linedefined,
-- lastlinedefined, name); never the function itself nor its locals. Chunks that are not files show '=?'.
local function safe_getinfo(target, ...)
  if type(target) ~= 'number' and type(target) ~= 'function' then
    error('debug.getinfo takes a stack level or a function', 2)
  end
  if type(target) == 'number' then
    if target < 0 then return nil end
    target = target + 1
  end
  local info = real_getinfo(target, 'Sln')
  if info == nil then return nil end
  local file = type(info.source) == 'string' and ssub(info.source, 1, 1) == '@'
  return {source = file and info.source or '=?', short_src = file and info.short_src or '?',
          what = info.what, currentline = info.currentline, linedefined = info.linedefined,
          lastlinedefined = info.lastlinedefined, name = info.name, namewhat = info.namewhat}
end

local function module_proxy(name)
  local hint = HINTS[name]
  return setmetatable({}, {
    __index = function(_, k)
      if name == 'debug' and k == 'traceback' then return traceback end
      if name == 'debug' and k == 'getinfo' then return safe_getinfo end
      error(unavailable(sformat('%s.%s', name, sanitize(tostring(k))), hint), 2)
    end,
    __newindex = function(_, k)
      error(unavailable(sformat('%s.%s', name, sanitize(tostring(k))), hint), 2)
    end,
    __call = function() error(unavailable(name, hint), 2) end,
    __metatable = 'sandboxed',
  })
end

local function copy(t)
  local c = {}
  for k, v in next, t do c[k] = v end
  return c
end

-- The keys of table t in the order pairs walks them here: 1..n (the integer keys from 1 without a gap), then
-- the other numbers ascending, strings in byte order, false, true, and other keys (tables, functions) in
-- next's order. Lua 5.4 seeds its string hashes anew in every state, so next's own order over string keys
-- differs between processes (DeepMind Lab's Lua 5.1 has one order, unspecified); a script drawing random
-- numbers in a pairs loop would compile into other levels in each process. This order is one everywhere,
-- and it is the order the device translation walks a table in (compile_lua.device.host_values.keys).
local KEY_RANK = {number = 2, string = 3, boolean = 4}
local function key_before(a, b)
  local ra, rb = a[1], b[1]
  if ra ~= rb then return ra < rb end
  if ra == 2 or ra == 3 then return a[2] < b[2] end
  if ra == 4 then return not a[2] and b[2] end
  return a[3] < b[3]
end
local function ordered_keys(t)
  local n = 0
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  local rest, m = {}, 0
  for k in next, t do
    if not (mtype(k) == 'integer' and k >= 1 and k <= n) then
      m = m + 1
      rest[m] = {KEY_RANK[type(k)] or 5, k, m}
    end
  end
  table.sort(rest, key_before)
  local keys = {}
  for i = 1, n do keys[i] = i end
  for i = 1, m do keys[n + i] = rest[i][2] end
  return keys, n + m
end

for _, k in ipairs{'assert', 'error', 'ipairs', 'next', 'pairs', 'pcall', 'xpcall',
                   'rawequal', 'rawget', 'rawlen', 'rawset', 'select',
                   'setmetatable', 'getmetatable', 'tonumber', 'tostring', 'type'} do
  env[k] = G[k]
end
env._VERSION = G._VERSION
env._G = env

-- ipairs as Lua 5.1's, which DeepMind Lab and Lab2D run: it reads the table raw, so a table whose __index
-- function makes a default for every missing key (Lab2D's commons_harvest) ends at its last item instead
-- of walking on for ever as Lua 5.4's ipairs does; a table whose __index is a table (a view of another)
-- is read through it.
local function ipairs_step(t, i)
  i = i + 1
  local v = rawget(t, i)
  if v == nil then
    local mt = raw_getmetatable(t)
    if mt and type(mt.__index) == 'table' then
      v = t[i]
    end
  end
  if v ~= nil then
    return i, v
  end
end
env.ipairs = function(t)
  if type(t) == 'table' then
    return ipairs_step, t, 0
  end
  local mt = raw_getmetatable(t)
  if not (mt and mt.__index) then
    error(sformat("bad argument #1 to 'ipairs' (table expected, got %s)", type(t)), 2)
  end
  return G.ipairs(t)   -- a userdata with an __index: Lua's own walk
end

-- pairs in ordered_keys' order (a key set to nil during the walk is skipped); a table with a __pairs, or a
-- value that is not a table, as Lua's own pairs.
env.pairs = function(t)
  local mt = raw_getmetatable(t)
  if type(t) ~= 'table' or (mt and mt.__pairs) then
    return G.pairs(t)
  end
  local keys, count = ordered_keys(t)
  local i = 0
  return function(tbl)
    while i < count do
      i = i + 1
      local k = keys[i]
      local v = rawget(tbl, k)
      if v ~= nil then return k, v end
    end
  end, t, nil
end

local sb_string = copy(string)
sb_string.dump = nil
setmetatable(sb_string, {__index = function(_, k)
  if k == 'dump' then
    error(unavailable('string.dump', '; load accepts only text chunks'), 2)
  end
end})
-- Method calls on string values ("x"):f() go to the sandbox's string table.
raw_getmetatable('').__index = sb_string
env.string = sb_string
env.table = copy(table)
env.math = copy(math)
env.utf8 = copy(utf8)

local sb_coroutine = copy(coroutine)
local function sb_create(f)
  local co = co_create(f)
  real_sethook(co, hook, '', COUNT)  -- the time budget covers coroutines too
  return co
end
sb_coroutine.create = sb_create
sb_coroutine.wrap = function(f)
  local co = sb_create(f)
  return function(...)
    local r = pack(co_resume(co, ...))
    if r[1] then return unpack(r, 2, r.n) end
    co_close(co)
    error(r[2], 0)
  end
end
env.coroutine = sb_coroutine

env.print = function(...)
  local parts = {}
  for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
  py_print(sanitize(concat(parts, '\t')))
end

env.load = function(chunk, chunkname, mode, ...)
  if (mode ~= nil and (type(mode) ~= 'string' or not sfind(mode, 't', 1, true)))
      or (type(chunk) == 'string' and ssub(chunk, 1, 1) == '\27') then
    return nil, unavailable('loading binary chunks', '; load accepts only text chunks')
  end
  local e = env
  if select('#', ...) > 0 then e = (...) end
  return real_load(chunk, chunkname, 't', e)
end

env.dofile = function()
  error(unavailable('dofile', REQUIRE_HINT), 2)
end
env.loadfile = function()
  error(unavailable('loadfile', REQUIRE_HINT), 2)
end

env.collectgarbage = function(opt, ...)
  -- Harmless options run; the others (stop, restart, modes) are ignored.
  opt = opt or 'collect'
  if opt == 'collect' or opt == 'count' or opt == 'step' or opt == 'isrunning' then
    return real_collect(opt, ...)
  end
  return 0
end

env.os, env.debug = module_proxy('os'), module_proxy('debug')

-- io: output goes where print goes (DeepMind Lab's common.log writes to io.stdout); files stay closed.
local function sink_write(...)
  local parts = {}
  for i = 1, select('#', ...) do
    local v = (select(i, ...))
    if type(v) ~= 'string' and type(v) ~= 'number' then
      error(sformat('io write expects strings or numbers, got %s', type(v)), 3)
    end
    parts[i] = tostring(v)
  end
  local text = concat(parts)
  if ssub(text, -1) == '\n' then text = ssub(text, 1, -2) end
  if text ~= '' then py_print(sanitize(text)) end
end
local function output_file(name)
  local file = {}
  file.write = function(self, ...) sink_write(...); return self end
  file.flush = function(self) return self end
  file.setvbuf = function() return true end
  file.close = function() return nil, name .. ' cannot be closed' end
  return setmetatable(file, {__tostring = function() return 'file (' .. name .. ')' end,
                             __metatable = 'sandboxed'})
end
local sb_io = {stdout = output_file('stdout'), stderr = output_file('stderr')}
sb_io.write = function(...) sink_write(...); return sb_io.stdout end
sb_io.flush = function() return sb_io.stdout end   -- io.write's output is passed on at once
sb_io.output = function(f)
  if f ~= nil and f ~= sb_io.stdout and f ~= sb_io.stderr then
    error(unavailable('io.output to a file', HINTS.io), 2)
  end
  return sb_io.stdout
end
sb_io.type = function(f)
  if f == sb_io.stdout or f == sb_io.stderr then return 'file' end
  return nil
end
env.io = setmetatable(sb_io, {
  __index = function(_, k) error(unavailable(sformat('io.%s', sanitize(tostring(k))), HINTS.io), 2) end,
  __newindex = function(_, k) error(unavailable(sformat('io.%s', sanitize(tostring(k))), HINTS.io), 2) end,
  __metatable = 'sandboxed',
})

-- What Lua 5.1 (DeepMind Lab's LuaJIT) has as globals and this Lua keeps elsewhere.
env.unpack = unpack
env.math.pow = function(x, y) return x ^ y end
env.math.atan2 = math.atan

local PACKAGE_FIELDS = {loadlib = true, cpath = true, path = true, searchers = true,
                        searchpath = true, preload = true, config = true}
env.package = setmetatable({loaded = loaded}, {
  __index = function(_, k)
    if PACKAGE_FIELDS[k] then
      error(unavailable('package.' .. k, REQUIRE_HINT), 2)
    end
  end,
  __metatable = 'sandboxed',
})

loaded._G, loaded.package = env, env.package
for _, k in ipairs{'string', 'table', 'math', 'utf8', 'coroutine', 'io'} do loaded[k] = env[k] end

local function check_name(name)
  if name == '' then return 'empty module name' end
  if sfind(name, '..', 1, true) then
    return "module names may not contain '..': modules are found only under the "
        .. "script's folder, search_dirs and the jaxlab Lua library"
  end
  if sfind(name, '[/\\]') then
    return "module names may not contain '/' or '\\' (use dots: require 'common.make_map')"
  end
  if not sfind(name, '^[%w_%-][%w_%-%.]*$') or ssub(name, -1) == '.' then
    return "invalid module name (use letters, digits, '_', '-' and dots)"
  end
  return nil
end

-- The level's generator under both of its names (DeepMind Lab's common.random wraps the engine's).
local SEEDED = {['dmlab.system.random'] = true, ['common.random'] = true}

local function seed_module(m, n)
  if type(m) == 'table' and type(m.seed) == 'function' then m:seed(n) end
end

--- The library's way to Python: host(name, ...) -> the host function's result; its refusal is a
-- Lua error at the caller of the library function (level 3).
local function host(name, ...)
  local ok, result = py_host(name, ...)
  if not ok then error(result, 3) end
  return result
end

--- The sandbox's require: package.loaded, then Python's file search.
local function sb_require(name)
  if type(name) ~= 'string' then
    error('require expects a module name (a string), got ' .. type(name), 2)
  end
  local m = loaded[name]
  if m ~= nil then return m end
  if HINTS[name] then
    error(sformat("require '%s': %s", name, unavailable('the ' .. name .. ' module', HINTS[name])), 2)
  end
  local bad = check_name(name)
  if bad then error(sformat("require '%s': %s", sanitize(name), bad), 2) end
  if loading[name] then
    error(sformat("require '%s': circular require (the module is still loading)", name), 2)
  end
  local display, source, library = py_find(name)
  if not display then error(sformat("require '%s': %s", name, source), 2) end
  local chunk, err = real_load(source, '@' .. display, 't', env)
  if not chunk then error(err, 0) end
  loading[name] = true
  local guard <close> = setmetatable({}, {__close = function() loading[name] = nil end})
  local result = chunk(name, display, library and host or nil)
  if result == nil then result = loaded[name] end
  if result == nil then result = true end
  loaded[name] = result
  if SEEDED[name] and pending_seed ~= nil then seed_module(result, pending_seed) end
  return result
end
env.require = sb_require

-- Helpers for Python ----------------------------------------------------------

local ids, next_id = setmetatable({}, {__mode = 'k'}), 0

--- A number naming the table or function v for as long as it lives (the ids entries gives).
local function ident(v)
  local id = ids[v]
  if not id then
    next_id = next_id + 1
    id = next_id
    ids[v] = id
  end
  return id
end

--- Raw contents of table t: id, n, keys, values, flags (flags[i]: 1 = key,
-- 2 = value, 3 = both were non-UTF-8 strings, given as hex).
local function entries(t)
  local id = ident(t)
  local ks, vs, flags, n = {}, {}, {}, 0
  local order, count = ordered_keys(t)
  for i = 1, count do
    local k = order[i]
    local v = rawget(t, k)
    n = n + 1
    local f = 0
    if type(k) == 'string' and not utf8len(k) then k, f = tohex(k), 1 end
    if type(v) == 'string' and not utf8len(v) then v, f = tohex(v), f + 2 end
    ks[n], vs[n] = k, v
    if f > 0 then flags[n] = f end
  end
  return id, n, ks, vs, flags
end

local PACK = {int8 = 'b', int16 = 'h', int32 = 'i4', int64 = 'i8', float32 = 'f', float64 = 'd'}

-- The elements of a view (dmlab/system/_tensor_view.lua: _storage, _offset, _shape,
-- _stride) in row-major order, and the shape; an error when the fields are not a view.
local function tensor_elements(t)
  local storage, offset = rawget(t, '_storage'), rawget(t, '_offset')
  local shape, stride = rawget(t, '_shape'), rawget(t, '_stride')
  if type(storage) ~= 'table' or mtype(offset) ~= 'integer' or type(shape) ~= 'table'
      or type(stride) ~= 'table' or #stride ~= #shape then
    error('a tensor whose fields _storage, _offset, _shape, _stride were changed')
  end
  local rank, n = #shape, #shape > 0 and 1 or 0
  for i = 1, rank do
    if mtype(shape[i]) ~= 'integer' or mtype(stride[i]) ~= 'integer' then
      error('a tensor whose fields _shape, _stride were changed')
    end
    n = n * shape[i]
  end
  local data, m = {}, 0
  if n == 0 then return data, rank == 0 and {0} or shape end
  local idx, pos, inner, step = {}, offset, shape[rank], stride[rank]
  for d = 1, rank - 1 do idx[d] = 1 end
  while true do
    local p = pos
    for _ = 1, inner do
      m = m + 1
      data[m] = storage[p]
      p = p + step
    end
    local d = rank - 1
    while d > 0 and idx[d] == shape[d] do
      pos = pos - stride[d] * (shape[d] - 1)
      idx[d] = 1
      d = d - 1
    end
    if d == 0 then return data, shape end
    idx[d] = idx[d] + 1
    pos = pos + stride[d]
  end
end

--- For a dmlab.system.tensor tensor: dtype, shape ("3,2"; "0" when it has no
-- dimensions), its elements in row-major order as hex of uint8 bytes or of little-endian
-- values of the dtype; nil for anything else.
local function tensor_info(t)
  local mt = raw_getmetatable(t)
  if type(mt) ~= 'table' then return nil end
  local dtype = rawget(mt, '__jaxlab_tensor')
  if dtype == nil then return nil end
  local data, shape = tensor_elements(t)
  local parts, n = {}, #data
  if dtype == 'uint8' then
    for i = 1, n do
      parts[i] = BYTEHEX[data[i]] or error(sformat(
          'ByteTensor element %d is %s, not an integer 0..255', i, tostring(data[i])))
    end
  else
    local code = PACK[dtype] or error('unknown tensor dtype ' .. tostring(dtype))
    for i = 1, n, 512 do
      local j = mmin(i + 511, n)
      parts[#parts + 1] = tohex(spack('<' .. srep(code, j - i + 1), unpack(data, i, j)))
    end
  end
  return dtype, concat(shape, ','), concat(parts)
end

--- Names and values of function f's upvalues (_ENV left out): names, values, n.
local function upvalues(f)
  local names, values, n = {}, {}, 0
  for i = 1, 255 do
    local name, value = getupvalue(f, i)
    if name == nil then break end
    if name ~= '_ENV' then n = n + 1; names[n], values[n] = name, value end
  end
  return names, values, n
end

--- Names and identities (text, one per variable: closures sharing a variable share it) of function f's upvalues
--- (_ENV left out): names, ids, n.
local function upvalue_ids(f)
  local names, ids, n = {}, {}, 0
  for i = 1, 255 do
    local name = getupvalue(f, i)
    if name == nil then break end
    if name ~= '_ENV' then n = n + 1; names[n], ids[n] = name, tostring(upvalueid(f, i)) end
  end
  return names, ids, n
end

--- Sets function f's upvalue `name` to v: its old value and true (nil and false when f has none).
local function set_upvalue(f, name, v)
  for i = 1, 255 do
    local n, old = getupvalue(f, i)
    if n == nil then break end
    if n == name then
      setupvalue(f, i, v)
      return old, true
    end
  end
  return nil, false
end

--- Seeds math.random and (now or when first required) the level's generator.
local function seed(n)
  randomseed(n)
  pending_seed = n
  for name in next, SEEDED do seed_module(loaded[name], n) end
end

-- Nothing below is reachable by scripts; strip the real globals anyway.
for _, k in ipairs{'os', 'io', 'debug', 'python', 'dofile', 'loadfile'} do
  G[k] = nil
  G.package.loaded[k] = nil
end
G.package.loadlib, G.package.cpath = nil, ''

return {
  run = run,
  reset = reset,
  env = env,
  require = sb_require,
  load_text = function(source, chunkname)
    local f, e = real_load(source, chunkname, 't', env)
    return f, e
  end,
  entries = entries,
  ident = ident,
  meta = raw_getmetatable,   -- a table's metatable, no __metatable field consulted
  tensor_info = tensor_info,
  upvalues = upvalues,
  upvalue_ids = upvalue_ids,
  set_upvalue = set_upvalue,
  answers_false = function() return false end,
  where = function(f)   -- a Lua function's chunk name and first and last lines
    local info = real_getinfo(f, 'S')
    return info.source, info.linedefined, info.lastlinedefined
  end,
  seed = seed,
  same = rawequal,   -- whether two values are one Lua object (lupa's wrappers are not)
  field = rawget,    -- a table's own field, no metamethod run
  tohex = tohex,
  collect = function() real_collect('collect') end,
}
