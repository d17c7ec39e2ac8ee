"""compile_lua.device: translated play-time callbacks agree with lupa (real Lua, jaxlab's sandbox) call
for call (results, effects, state), under jax.jit and jax.vmap; constructs that cannot run on the device
are rejected with file:line and their name."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from compile_lua.device import DeviceRejection, translate
from compile_lua.device.conversions import SCRIPT_ERROR
from compile_lua.device.layouts import stored_name
from compile_lua.device.translate import read_host_state
from compile_lua.errors import LuaScriptError
from compile_lua.loading import load_script

HERE = Path(__file__).parent / "device_lua"
HEAD = "local game = require 'dmlab.system.game'\nlocal api = {}\n"

SCRIPTS = {
    # a pickup counter that ends the map after N pickups, with a finite message
    "counter": ("""local count = 0
local N = 3
function api:pickup(id)
  count = count + 1
  if count >= N then
    game:finishMap()
    return 'done'
  end
  return string.format('%d left', math.min(N, math.max(0, N - count)))
end""", {"pickup": st.integers(0, 9)}),
    # a score observation, with branching rewards
    "score": ("""api.score = 0
function api:pickup(id)
  local reward
  if id == 1 then reward = 10 elseif id % 2 == 0 then reward = -1 else reward = 0.5 end
  api.score = api.score + reward
  game:addScore(reward)
end
function api:customObservation(name) return self.score end""",
              {"pickup": st.integers(0, 5), "customObservation": st.just(0)}),
    # a countdown message from the episode time
    "countdown": ("""local LIMIT = 30
function api:screenMessages(w)
  local left = math.max(0, LIMIT - math.floor(game:episodeTimeSeconds()))
  if left == 0 then return 'time up' end
  return 'time left: ' .. math.min(left, LIMIT) .. ' s'
end""", {"screenMessages": st.integers(0, 40)}),
    # a timer, a loop with a compile-time bound, an inlined helper and math.*
    "timer": ("""local ticks = 0
local total = 0.0
local function clamp(x, lo, hi) return math.max(lo, math.min(hi, x)) end
function api:hasEpisodeFinished(t)
  ticks = ticks + 1
  local s = 0
  for i = 1, 4 do
    if i > t then break end
    s = s + i * 2
  end
  local k = 0
  while k < 3 do
    if s > 0 then s = s - 1 end
    k = k + 1
  end
  repeat k = k - 1 until k <= 0
  total = total + math.sqrt(math.abs(t)) + math.floor(t / 3) + clamp(t, 1, 5) ^ 2 + s
  return ticks >= 6 or total > 100
end""", {"hasEpisodeFinished": st.integers(-5, 12)}),
    # Lua's conditional idiom 'c and x or y' on traced and static conditions
    "conditional": ("""local calls = 0
function api:pickup(id)
  calls = calls + 1
  local bonus = (id > 3 and 2) or 1
  local tag = id % 2 == 0 and 'even' or 'odd'
  local big = id > 5 and id % 2 == 0 or false
  return bonus * 10 + (tag == 'even' and calls or 0) + (false and 3 or 4) + (big and 1000 or 0)
end""", {"pickup": st.integers(0, 9)}),
    # a fixed table updated at a traced index, and #t
    "table": ("""local seen = {0, 0, 0, 0}
local flags = {false, false, false, false}
function api:pickup(id)
  local i = id % #seen + 1
  seen[i] = seen[i] + 1
  flags[i] = not flags[i]
  if seen[i] > 2 and flags[i] then return seen[i] end
  return 0
end""", {"pickup": st.integers(0, 20)}),
    # a fixed list of strings at a traced index, through assert (which returns its arguments)
    "names": ("""local NAMES = {'hat', 'can', 'cake'}
function api:pickup(id)
  local name, why = assert(NAMES[id % #NAMES + 1], 'no such item')
  return name .. '/' .. why
end""", {"pickup": st.integers(0, 9)}),
    # records (tables of named fields) as state: a top-level local holding a nested record, an api field
    "records": ("""local stats = {picked = 0, best = {id = -1, times = 0}}
api.last = {id = 0, even = false}
function api:pickup(id)
  stats.picked = stats.picked + 1
  if id > stats.best.id then
    stats.best = {id = id, times = 1}
  elseif id == stats.best.id then
    stats.best = {id = id, times = stats.best.times + 1}
  end
  self.last.id = id
  self.last.even = id % 2 == 0
  return stats.picked * 100 + stats.best.times
end
function api:customObservation(name) return self.last.id + (self.last.even and 0.5 or 0) end""",
                {"pickup": st.integers(0, 6), "customObservation": st.just(0)}),
    # a helper function writing the record it is passed (a callback's local, an api field's): its caller sees it
    "helper_writes": ("""local function bump(r, by)
  r.count = r.count + by
  if by > 3 then
    r.big = r.big + 1
  end
end
api.tally = {count = 0, big = 0}
function api:pickup(id)
  self.tally.count = self.tally.count   -- written here, so play-time state
  local mine = {count = id, big = 0}
  bump(mine, id)
  bump(self.tally, id)
  return mine.count * 10 + mine.big
end
function api:customObservation(name) return self.tally.count * 100 + self.tally.big end""",
                      {"pickup": st.integers(0, 6), "customObservation": st.just(0)}),
    # tables that play sets and reads at integer keys (nil elsewhere): a set, counts, emptied, walked by ipairs
    "keyed": ("""local WANTED = {3, 5, 6}
api.taken = {}
api.times = {}
local function allTaken()
  for _, id in ipairs(WANTED) do
    if not api.taken[id] then return false end
  end
  return true
end
function api:pickup(id)
  local first = api.times[id] == nil
  api.taken[id] = true
  api.times[id] = (api.times[id] or 0) + 1
  game:addScore(api.times[id])
  if allTaken() then
    game:finishMap()
    api.taken = {}
  end
  local run = 0
  for i, n in ipairs(api.times) do run = run + i * n end
  return (first and 1000 or 0) + run * 10 + (api.taken[id + 100] == nil and 1 or 0) + (api.taken[-7] and 5 or 0)
end""", {"pickup": st.integers(0, 9)}),
    # a list of strings read at keys past its end (nil), kept in a field that is nil until play sets it
    # records inside records written through a chain of fields: a top-level local's, an api field's two deep, a
    # callback's local's, and functions stored into a table made in the call (as Lab2D's stateCallbacks are built)
    "nested_writes": ("""local stats = {best = {id = -1, times = 0}}
api.deep = {a = {b = {n = 0}}}
function api:pickup(id)
  stats.best.times = stats.best.times + 1
  if id > stats.best.id then
    stats.best.id = id
  end
  self.deep.a.b.n = self.deep.a.b.n + id
  local t = {inner = {k = id}, other = {k = 0}}
  t.inner.k = t.inner.k * 2
  t.other.k = t.inner.k + 1
  local calls = {on = {}}
  function calls.on.hit(x) return x + stats.best.id end
  return t.inner.k * 100 + t.other.k * 10 + calls.on.hit(stats.best.times)
end
function api:customObservation(name) return self.deep.a.b.n end""",
                      {"pickup": st.integers(0, 6), "customObservation": st.just(0)}),
    "names_or_nil": ("""local COLORS = {'red', 'green', 'blue'}
function api:pickup(id)
  local c = COLORS[id - 2]
  if c then api._carried = c end
  if id == 9 then api._carried = nil end
  local n = 0
  if api._carried == 'green' then n = 1 elseif api._carried == nil then n = 2 end
  return n + (c and 10 or 0) + (c == api._carried and 100 or 0)
end""", {"pickup": st.integers(0, 9)}),
    # a helper that returns a value on some paths and falls off its end (nil) on others; its caller tests it
    "partial_return": ("""local best = 0
local NAMES = {'low', 'high'}
local function above(x, floor)
  if x > floor then return x end
end
local function named(x)
  for i = 1, 2 do
    if x == i * 3 then return NAMES[i] end
  end
end
function api:pickup(id)
  local got, name = above(id, 4), named(id)
  if name == 'high' then game:addScore(1) end
  if got == nil then return -1 end
  best = best + id
  return best
end""", {"pickup": st.integers(0, 9)}),
    # a list of records read at a traced key (DMLab's self._pickups[id]): each field chosen on the device
    "records_at_id": ("""local ITEMS = {{a = 1, name = 'x', at = {row = 2}}, {a = 2, name = 'y', bonus = 3, at = {row = 4}},
               {a = 5, name = 'x', more = {b = 1}, at = {row = 6}}}
function api:pickup(id)
  local item = ITEMS[math.min(math.max(id, 1), 3)]
  if item.name == 'x' then game:addScore(item.a) end
  return item.a * 10 + (item.bonus or 0) * 100 + item.at.row
end""", {"pickup": st.integers(0, 9)}),
    # fixed lists of numbers and booleans read at keys that may lie past their ends (nil there, as in Lua)
    "lists_or_nil": ("""local W = {5, 7, 9}
local ON = {true, false, true}
function api:pickup(id)
  local w, on = W[id - 2], ON[id / 2 - 1]
  local n = W[id % 3 + 1]
  if w then n = n + w end
  if w == nil then n = n + 100 end
  if on == nil then n = n + 1000 elseif on then n = n + 10 end
  return n
end""", {"pickup": st.integers(0, 9)}),
    # locals that hold records of play-time state: a write through any name reaches the state and the others
    "aliases": ("""api.last = {id = 0, seen = {n = 0}}
local kept = {best = {id = 0}}
function api:pickup(id)
  local p = self.last
  local s = p.seen
  local b = kept.best
  self.last.id = id
  s.n = s.n + 1
  if id > 4 then p.id = p.id + 100 end
  kept.best.id = kept.best.id + id
  local fresh = {n = id}
  self.last.seen = fresh
  self.last.seen.n = self.last.seen.n + 1
  return p.id + s.n * 1000 + self.last.seen.n + b.id * 100000 + fresh.n * 10000000
end""", {"pickup": st.integers(0, 9)}),
    # a table of the state replaced by another: the locals that held it keep the old one
    "replaced": ("""api.last = {id = 0}
local kept = {id = 0}
function api:pickup(id)
  local q = self.last
  local k = kept
  self.last = {id = id + 5}
  kept = {id = id + 7}
  q.id = q.id + 1
  return q.id * 1000 + k.id * 100 + self.last.id + kept.id * 10
end""", {"pickup": st.integers(0, 9)}),
    # an api field nil at load that play sets to a table or back to nil (PsychLab's gaze position), read by a
    # callback traced before the one that first sets it; Lua 5.1's global unpack
    "table_or_nil": ("""function api:customObservation(name)
  local x, y = unpack(self.pos and {self.pos[1], 10 - self.pos[3]} or {-1, -1})
  return x * 100 + y
end
function api:pickup(id)
  if id % 3 == 0 then
    self.pos = nil
  else
    self.pos = {id, 0.5, id * 2}
  end
  if self.pos ~= nil and id > 6 then self.pos = {1, 2, 3} end
  return self.pos and 1 or 0
end""", {"customObservation": st.just(0), "pickup": st.integers(0, 9)}),
    # varargs: a function of ... called with more arguments than it names, and ... passed on
    "varargs": ("""local total = 0
local function sum(first, ...)
  local a, b = ...
  return first + (a or 0) + (b or 0)
end
local function forward(...) return sum(...) end
function api:pickup(id)
  local later = function(...) total = total + select_first(...) end
  total = total + forward(id, 2) + sum(id) + forward(id, id, id, 100)
  return total
end
function select_first(x) return x end""", {"pickup": st.integers(0, 9)}),
    # timers kept by name, each with its callback (a function made at play): added, counted down, removed when
    # due and called frames later, in order, from a list built on the paths where they were due
    "timers": ("""local timers = {}
local fired = 0
local function addTimer(opts) timers[opts.name] = opts end
function api:pickup(id)
  if id % 2 == 0 then
    addTimer{name = 'a', timeout = id, callback = function(...) fired = fired + 1 end}
  else
    addTimer{name = 'b', timeout = 2, callback = function(timer) fired = fired * 2 + #timer.name end}
  end
  return fired
end
function api:hasEpisodeFinished(t)
  local due = {}
  for name, timer in pairs(timers) do
    timer.timeout = timer.timeout - 1
    if timer.timeout <= 0 then
      timers[name] = nil
      table.insert(due, timer)
    end
  end
  for i, timer in ipairs(due) do timer.callback(timer); fired = fired + i * 100 end
  return fired > 1000 and #due > 0
end
function api:customObservation(name)
  return (timers.a and timers.a.timeout or -9) * 100 + (timers.b and timers.b.timeout or -9) + fired * 10000
end""", {"pickup": st.integers(0, 9), "hasEpisodeFinished": st.integers(0, 3), "customObservation": st.just(0)}),
    # numbers kept in state keep what they may be: a field every write gives 3 is that constant (a loop's bound),
    # one that lies in [0, 30] is never over 100 (the test is decided when translating: its arms differ in kind)
    "bounded": ("""local kept = {}
function api:pickup(id)
  kept.w = {reps = 3, x = (id % 4) * 10}
  local s = 0
  for i = 1, kept.w.reps do s = s + i end
  local r = kept.w.x
  if kept.w.x > 100 then r = 'far' end
  return s * 1000 + r
end
function api:customObservation(name)
  local s = 0
  if kept.w then
    for i = 1, kept.w.reps do s = s + i * kept.w.x end
  end
  return s
end""", {"pickup": st.integers(0, 9), "customObservation": st.just(0)}),
    # numeric for loops whose start or stop is known only at play time but lies in a known interval
    "bounded_loops": ("""local seen = {0, 0, 0, 0}
function api:pickup(id)
  local n = id % 5
  local s = 0
  for i = 1, n do
    s = s + i
    if i == 3 then break end
  end
  for i = n, 1, -1 do s = s * 2 + i end
  for i = id % 3 + 1, 4 do seen[i] = seen[i] + 1 end
  for i = 4, id % 2 + 1, -2 do s = s + 100 * i end
  return s
end""", {"pickup": st.integers(0, 9)}),
    # an object's table of handlers (functions beside data) that play writes: a field it has on the host, one play
    # adds, one play removes; pairs walks both kinds of key
    "object_tables": ("""local Board = {}
Board.__index = Board
local function hovered(board, name) board.hits = board.hits + #name end
local board = setmetatable({hits = 0, widgets = {a = {hover = 0, onHover = hovered}}, panel = {draw = hovered}}, Board)
function Board:touch(name)
  local w = self.widgets[name]
  if w then
    w.hover = w.hover + 1
    w.onHover(self, name)
    w.active = w.hover > 2
  end
end
function api:pickup(id)
  if id % 3 == 0 then board.widgets.b = {hover = 10, onHover = hovered} end
  if id % 4 == 0 then board.widgets.a = nil end
  board:touch('a')
  board:touch('b')
  board.panel.lit = id > 4
  return board.hits
end
function api:customObservation(name)
  local s = 0
  for k, w in pairs(board.widgets) do s = s + w.hover * (k == 'a' and 1 or 100) + (w.active and 7 or 0) end
  if board.panel.lit then s = s + 3 end
  return s
end""", {"pickup": st.integers(0, 9), "customObservation": st.just(0)}),
    # Lua's library at play: type, math.modf, collectgarbage; log messages and events made of numbers known only
    # at play time (which reach no kernel) are left out
    "library": ("""local log = require 'common.log'
local events = require 'dmlab.system.events'
local count = 0
function api:pickup(id)
  count = count + 1
  log.info('picked ', id, ' count ' .. count)
  events:add('picked', string.format('%d of %d', id, count))
  local kind = type(id) == 'number' and 1 or 0
  local whole, fraction = math.modf(id / 4)
  local _, none = math.modf(id)
  collectgarbage()
  return count * 100 + kind * 10 + whole + fraction + none
end""", {"pickup": st.integers(0, 9)}),
    # lists rebuilt at play and kept in play-time state: tables of the state by layer number (t[#t + 1] = v,
    # table.insert, table.sort), walked top-down by position (for i = #t, 1, -1) in a later call; the lists hold
    # the state's own tables, whose writes they see; a type test that a number never passes; a layer that is a
    # number or nil as a key
    "layers": ("""local shown, stack, levels, hits = {}, {}, {}, 0
local function rebuild()
  stack = {}
  levels = {}
  for name, item in pairs(shown) do
    if not stack[item.layer] then
      levels[#levels + 1] = item.layer
      stack[item.layer] = {}
    end
    table.insert(stack[item.layer], {name, item})
  end
  table.sort(levels)
end
function api:pickup(id)
  if id % 4 == 0 then
    shown.a = {layer = 2, x = id}
  elseif id % 4 == 1 then
    shown.b = {layer = 1, x = id * 2}
  elseif id % 4 == 2 then
    shown.c = {layer = 3, x = id + 1}
  elseif shown.a then
    shown.a.x = shown.a.x + 5
  end
  if id == 7 then shown.b = nil end
  if id >= 8 then   -- made field by field on a path known only at play: its layer is a number or nil
    local w = {}
    w.layer = 3
    w.x = id * 3
    shown.d = w
  end
  rebuild()
  return hits
end
function api:customObservation(name)
  local out = 0
  for _, l in ipairs(levels) do
    local sum = 0
    for _, pair in pairs(stack[l]) do
      local n, item = unpack(pair)
      sum = sum + item.x
    end
    out = out * 100 + sum
  end
  return out + #levels * 1000000
end
function api:hasEpisodeFinished(t)
  for i = #levels, 1, -1 do
    local layer = stack[levels[i]]
    local found = 0
    for j = #layer, 1, -1 do
      local n, item = unpack(layer[j])
      if type(item.x) == 'table' then found = found - 100 end
      if item.x >= t then found = found + 1 end
    end
    if found > 0 then
      hits = hits + found * levels[i]
      return true
    end
  end
  return false
end""", {"pickup": st.integers(0, 9), "customObservation": st.just(0), "hasEpisodeFinished": st.integers(0, 12)}),
    # a table of other tables by number read at a number known only at play: the statements after the read run
    # once per number, each where the key is it (the tables differ in shape)
    "key_cases": ("""local shapes, seen = {}, 0
function api:pickup(id)
  shapes = {}
  shapes[1] = {w = id}
  shapes[2] = {w = 2, h = id + 1}
  shapes[3] = {d = id * 2}
  local k = id % 4 + 1
  local s = shapes[k]
  if not s then return -1 end
  seen = seen + 1
  if k == 3 then return s.d * 100 + seen end
  return s.w * 10 + (s.h or 0) + seen * 1000
end""", {"pickup": st.integers(0, 9)}),
    # an api field nil when the script has loaded that play sets to an empty table on a path known only at play
    "empty_table_or_nil": ("""function api:pickup(id)
  if id > 3 then
    self.bag = {}
  end
  return self.bag and 1 or 0
end
function api:customObservation(name)
  return self.bag and 10 or 20
end""", {"pickup": st.integers(0, 9), "customObservation": st.just(0)}),
}
#: the interval of the integers the engine passes a callback (a level's pickup ids), where a script needs it
BOUNDS = {"keyed": {"pickup": ((0, 9),)}}


def _script(tmp_path, name):
    body, _ = SCRIPTS[name]
    path = tmp_path / f"{name}.lua"
    path.write_text(HEAD + body + "\nreturn api\n")
    return path


def _lupa_call(loaded, game, name, arg, time):
    sb = loaded.sandbox
    game.effects.score, game.effects.finish, game.time = 0, False, time
    result = sb.call_method(loaded.returned, name, arg)
    return result, {"score": game.effects.score, "finish": game.effects.finish}


def _host_form(kind, value, state=None, layout=None):
    """A state variable as lupa reads it: a table keyed by integers as {key: value} (a list for keys 1..n), a
    field that may be nil as None where it is, a list built at play as its entries there, a table of the state
    that such a list holds as the state's (``state``, ``layout``: all the variables)."""
    if kind[0] == "maybe":
        return _host_form(kind[1], value["value"], state, layout) if value["present"] else None
    if kind[0] == "record":   # the host's table lacks the fields that are nil
        forms = {k: _host_form(sub, value[stored_name(k)], state, layout) for k, sub in kind[1]}
        forms = {k: f for k, f in forms.items() if f is not None}
        return [forms[k] for k in sorted(forms)] if forms and sorted(forms, key=str) == sorted(
            range(1, len(forms) + 1), key=str) else forms   # keys 1..n: a list, as lupa reads it
    if kind[0] == "list":
        return [_host_form(sub, x, state, layout) for sub, x, p in zip(kind[1], value["items"], value["present"]) if p]
    if kind[0] == "tuple":
        return [_host_form(sub, x, state, layout) for sub, x in zip(kind[1], value)]
    if kind[0] == "ref":
        form = _host_form(layout[kind[1]], state[kind[1]], state, layout)
        for name in kind[2]:
            form = form[name]
        return form
    if kind[0] != "keyed":
        return value
    items = {kind[2] + i: v for i, (v, p) in enumerate(zip(value["value"].tolist(), value["present"].tolist())) if p}
    return list(items.values()) if items and sorted(items) == list(range(1, len(items) + 1)) else items


def _same(host, device, strings):
    if isinstance(host, dict):
        # an object's table the device keeps on the host (its fields play writes are state of their own, checked
        # through the callbacks) is data on the host once play has emptied it of functions
        kept = {k for k, v in host.items() if k not in device and isinstance(v, dict)}
        assert set(host) - kept == set(device)
        for k in set(host) - kept:
            _same(host[k], device[k], strings)
    elif isinstance(host, str):
        assert strings[int(device)] == host
    elif isinstance(host, list) and any(isinstance(x, (str, dict, list)) for x in host):   # a list of tables
        assert len(host) == len(device)
        for h, d in zip(host, device):
            _same(h, d, strings)
    elif isinstance(host, list):
        np.testing.assert_allclose(np.asarray(device, float), np.asarray(host, float), rtol=1e-5)
    elif host is None:
        assert device is None
    else:
        np.testing.assert_allclose(float(device), float(host), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_translated_callbacks_agree_with_lupa(tmp_path, name):
    path = _script(tmp_path, name)
    tr = translate(load_script(path, HERE), {cb: (0,) for cb in SCRIPTS[name][1]}, bounds=BOUNDS.get(name))
    steps = {cb: jax.jit(f) for cb, f in tr.callbacks.items()}
    calls = st.lists(st.one_of(*[st.tuples(st.just(cb), args) for cb, args in SCRIPTS[name][1].items()]),
                     max_size=8)

    @settings(max_examples=12, deadline=None, database=None)
    @given(calls)
    def run(seq):
        loaded = load_script(path, HERE)
        game = loaded.sandbox.require("dmlab.system.game")
        state = tr.initial_state()
        for cb, arg in seq:
            want, effects = _lupa_call(loaded, game, cb, arg, float(arg))
            state, got, got_effects = steps[cb](state, tr.inputs(episode_time=float(arg)), arg)
            _same(want, got, tr.strings)
            assert float(got_effects["score"]) == pytest.approx(effects["score"], rel=1e-5)
            assert bool(got_effects["finish"]) == effects["finish"]
            host = read_host_state(loaded, tr.outline)
            for key, value in state["vars"].items():
                if key == SCRIPT_ERROR:   # lupa ran without an error: the device's flag is down
                    assert not bool(value)
                    continue
                if key not in host and ("'fn'" in str(tr.layout[key]) or key.startswith("hostfield.")):
                    continue   # a table holding functions, a field of one, is not data the host reads back: the
                               # callbacks show them
                _same(host.get(key), _host_form(tr.layout[key], value, state["vars"], tr.layout), tr.strings)
    run()


def test_vmap_over_states_equals_one_call_at_a_time(tmp_path):
    tr = translate(load_script(_script(tmp_path, "table"), HERE), {"pickup": (0,)})
    f = tr.callbacks["pickup"]
    states, ids = [tr.initial_state(s) for s in range(4)], jnp.arange(4) * 3
    for _ in range(3):
        states = [f(s, tr.inputs(), i)[0] for s, i in zip(states, ids)]
    batch = jax.tree.map(lambda *x: jnp.stack(x), *states)
    got = jax.jit(jax.vmap(f, in_axes=(0, None, 0)))(batch, tr.inputs(), ids)
    want = [f(s, tr.inputs(), i) for s, i in zip(states, ids)]
    for k in range(4):
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want[k]), strict=True):
            np.testing.assert_array_equal(a[k], b)


@pytest.mark.parametrize("module", ["common.random", "dmlab.system.random"])
def test_random_draws_come_from_the_state_key(tmp_path, module):
    path = tmp_path / "r.lua"
    path.write_text(f"local random = require '{module}'\nlocal api = {{}}\nlocal last = 0\n"
                    "function api:pickup(id)\n  last = random:uniformInt(1, 6) + math.random(10)\n"
                    "  return last\nend\nreturn api\n")
    tr = translate(load_script(path), {"pickup": (0,)})
    f = jax.jit(tr.callbacks["pickup"])
    s0 = tr.initial_state(7)
    s1, r1, _ = f(s0, tr.inputs(), 0)
    _, r2, _ = f(s1, tr.inputs(), 0)
    _, again, _ = f(s0, tr.inputs(), 0)
    assert 2 <= int(r1) <= 16 and int(again) == int(r1)
    assert not np.array_equal(s1["key"], s0["key"])


def test_dmlab_system_random_draws_on_the_host_from_the_seed(tmp_path):
    # DeepMind Lab's engine module: one generator with common.random, seeded by start's seed
    path = tmp_path / "r.lua"
    path.write_text("local random = require 'dmlab.system.random'\nlocal common = require 'common.random'\n"
                    "local api = {shared = random == common}\nfunction api:start(episode, seed)\n  random:seed(seed)\n"
                    "  api.layout = random:uniformInt(1, 1000)\n  api.same = common:uniformInt(1, 1000)\n"
                    "  api.weight = random:normalDistribution(0, 1)\nend\nreturn api\n")
    loaded = load_script(path, HERE)

    def episode(seed):
        loaded.sandbox.call_method(loaded.returned, "start", 0, seed)
        return tuple(loaded.sandbox.to_python(loaded.returned[k]) for k in ("layout", "same", "weight"))
    runs = [episode(seed) for seed in (1, 2, 3, 1)]
    assert runs[0] == runs[3] and len({r[0] for r in runs[:3]}) == 3 and all(1 <= r[0] <= 1000 for r in runs)
    assert loaded.sandbox.to_python(loaded.returned["shared"]) is True


REJECTED = [
    ("sort of a fixed table", "local t = {3, 1}\nfunction api:pickup(id)\n  table.sort(t)\nend", 5,
     "table.sort of this table"),
    ("sort with an order", "function api:pickup(id)\n  local t = {}\n  table.insert(t, 1)\n"
     "  table.sort(t, function(a, b) return a > b end)\nend", 6, "table.sort with an order function"),
    ("sort of play numbers", "function api:pickup(id)\n  local t = {}\n  table.insert(t, id)\n  table.sort(t)\nend",
     6, "table.sort"),
    ("list grows each call", "local seen = {}\nfunction api:pickup(id)\n  table.insert(seen, 1)\nend", 5,
     "grows call after call"),
    ("goto", "function api:pickup(id)\n  goto done\n  ::done::\nend", 4, "goto"),
    ("bit and", "function api:pickup(id)\n  return id & 1\nend", 4, "bitwise and"),
    ("closure kept", "function api:pickup(id)\n  api.f = function() return 1 end\nend", 4, "assigning api.f"),
    ("setmetatable", "function api:pickup(id)\n  setmetatable({}, {})\nend", 4, "'setmetatable'"),
    ("coroutine", "function api:pickup(id)\n  coroutine.yield()\nend", 4, "'coroutine'"),
    ("string method", "local s = 'abc'\nfunction api:pickup(id)\n  return s:upper()\nend", 5, ":upper"),
    ("table grows", "local t = {1, 2}\nfunction api:pickup(id)\n  t[3] = id\nend", 5, "grows"),
    ("pairs", "local t = {}\nfunction api:pickup(id)\n  t[math.min(math.max(id, 1), 3)] = 1\n"
              "  for k, v in pairs(t) do end\nend", 6, "pairs over a table"),
    ("iterator", "function api:pickup(id)\n  for k in string.gmatch('ab', '.') do end\nend", 4, "generic for"),
    ("recursion", "local function f(x)\n  return f(x)\nend\nfunction api:pickup(id)\n  return f(id)\nend",
     4, "recursion"),
    ("while true", "function api:pickup(id)\n  while true do end\nend", 4, "while loop"),
    ("unbounded while", "local n = 0\nfunction api:pickup(id)\n  while n < id do n = n + 1 end\nend", 5,
     "while loop"),
    ("io", "function api:pickup(id)\n  io.write('x')\nend", 4, "'io'"),
    ("os", "function api:pickup(id)\n  return os.time()\nend", 4, "'os'"),
    ("undefined global", "function api:pickup(id)\n  return undefined_thing + 1\nend", 4, "undefined_thing"),
    ("traced for bound", "function api:pickup(id)\n  for i = 1, id do end\nend", 4, "numeric for"),
    ("unbounded string", "local n = 0\nfunction api:pickup(id)\n  n = n + 1\n  return 'n=' .. n\nend", 6,
     "'..'"),
    ("float format", "function api:pickup(id)\n  return string.format('%f', id / 2)\nend", 4, "%f"),
    ("unknown game call", "function api:pickup(id)\n  game:console('x')\nend", 4, "game:console"),
    ("bit ops", "function api:pickup(id)\n  return id & 1\nend", 4, "bitwise and"),
    ("kind changes", "local on = false\nfunction api:pickup(id)\n  on = 1\nend", 5, "assigning a number"),
    ("global state", "function api:pickup(id)\n  counter = 1\nend", 4, "global variable"),
    ("load", "function api:pickup(id)\n  load('return 1')()\nend", 4, "'load'"),
    ("assert without a value", "function api:pickup(id)\n  assert()\nend", 4, "assert without a value"),
    ("a table some records at a traced index lack", "local t = {{a = 1}, {a = 2, more = {b = 1}}}\n"
     "function api:pickup(id)\n  local r = t[math.min(math.max(id, 1), 2)]\n  return r.more\nend", 6,
     "reading the field 'more'"),
    ("a record read at a traced index, written", "local t = {{a = 1}, {a = 2}}\nfunction api:pickup(id)\n"
     "  local r = t[math.min(math.max(id, 1), 2)]\n  r.a = 3\nend", 6,
     "writing a field of a table read at a key known only at play time"),
    ("partial return of a table", "function api:pickup(id)\n  if id > 1 then return {1} end\nend", 3,
     "returning a table on some paths and nothing on others"),
    ("a state record losing a field", "api.last = {id = 0, even = false}\nfunction api:pickup(id)\n"
     "  self.last = {id = id}\nend", 5, "a table whose fields change"),
    ("a table keyed by an id with no bound", "api.seen = {}\nfunction api:pickup(id)\n  api.seen[id] = true\nend",
     5, "a key with no bound known ahead of time"),
    ("a table keyed past its most keys", "api.seen = {}\nfunction api:pickup(id)\n"
     "  api.seen[math.max(0, math.min(id, 9)) * 1000] = true\nend", 5, "a table written at keys 0 .. 9000"),
    ("a table at a float key", "api.seen = {}\nfunction api:pickup(id)\n  api.seen[id / 2] = 1\nend", 5,
     "a float key"),
    ("a table of booleans given a number", "api.seen = {}\nfunction api:pickup(id)\n  api.seen[1] = true\n"
     "  api.seen[2] = 3\nend", 6, "storing a number in a table of booleans"),
    ("a fixed table written past its keys", "local t = {0, 0}\nfunction api:pickup(id)\n  t[id % 3 + 1] = 1\nend", 5,
     "a key k in [1, 3]"),
    ("a local's inner record another local holds", "function api:pickup(id)\n  local inner = {k = 1}\n"
     "  local t = {a = inner}\n  t.a.k = id\n  return inner.k\nend", 6, "2 names hold"),
]


def test_closures_made_in_a_callback_are_inlined(tmp_path):
    path = tmp_path / "closures.lua"
    path.write_text(HEAD + "function api:pickup(id)\n  local f = function(x) return x + 1 end\n"
                    "  local function g(x) return f(x) * 2 end\n  return g(id)\nend\nreturn api\n")
    tr = translate(load_script(path, HERE), {"pickup": (0,)})
    assert int(tr.callbacks["pickup"](tr.initial_state(), tr.inputs(), 5)[1]) == 12


@pytest.mark.parametrize("label,body,line,construct", REJECTED, ids=[r[0] for r in REJECTED])
def test_rejected_with_file_line_and_construct(tmp_path, label, body, line, construct):
    path = tmp_path / "bad.lua"
    path.write_text(HEAD + body + "\nreturn api\n")
    with pytest.raises(DeviceRejection) as err:
        translate(load_script(path, HERE), {"pickup": (0,)})
    assert str(err.value).startswith(f"{path}:{line}: "), str(err.value)
    assert construct in err.value.construct and "cannot run on the device" in str(err.value)


@pytest.mark.parametrize("body, message", [
    ("  assert(id > 2, 'small')\n", "small"),   # a failed assert
    ("  local t = {}\n  if id <= 2 then n = n + t.missing end\n", "arithmetic"),   # arithmetic on nil
])
def test_a_lua_error_sets_the_script_error_flag_where_lua_stops(tmp_path, body, message):
    """A kernel cannot stop with an error: where an assert on a traced value fails, or arithmetic meets nil on a
    path known only at play time (lupa raises there), the play state's error flag is set, and stays set."""
    path = tmp_path / "checked.lua"
    path.write_text(HEAD + "local n = 0\nfunction api:pickup(id)\n  n = n + 1\n" + body + "  return n\nend\nreturn api\n")
    tr = translate(load_script(path, HERE), {"pickup": (0,)})
    step = jax.jit(tr.callbacks["pickup"])
    loaded = load_script(path, HERE)
    state = tr.initial_state()
    for arg, fails in [(5, False), (3, False), (1, True), (7, False)]:
        if fails:
            with pytest.raises(LuaScriptError, match=message):
                loaded.sandbox.call_method(loaded.returned, "pickup", arg)
        else:
            loaded.sandbox.call_method(loaded.returned, "pickup", arg)
        was = bool(state["vars"][SCRIPT_ERROR])
        state, _, _ = step(state, tr.inputs(), arg)
        assert bool(state["vars"][SCRIPT_ERROR]) == (was or fails)
    assert bool(state["vars"][SCRIPT_ERROR])


def test_a_tensor_of_a_size_known_ahead_is_written_through_its_elements(tmp_path):
    """``tensor.DoubleTensor(n)`` (DMLab's sized constructor) and ``t(i):val(x)``, as lupa runs them."""
    path = tmp_path / "sized.lua"
    path.write_text(HEAD + "local tensor = require 'dmlab.system.tensor'\nlocal POINTS = {{1, 2}, {3, 4}, {5, 6}}\n"
                    "function api:customObservation(name)\n  local t = tensor.DoubleTensor(#POINTS)\n"
                    "  for i, p in ipairs(POINTS) do\n    t(i):val(p[1] * game:episodeTimeSeconds() + p[2])\n  end\n"
                    "  return t\nend\nreturn api\n")
    tr = translate(load_script(path, HERE), {"customObservation": ("",)})
    loaded = load_script(path, HERE)
    game = loaded.sandbox.require("dmlab.system.game")
    for time in (0.5, 2.0):
        want, _ = _lupa_call(loaded, game, "customObservation", "", time)
        _, got, _ = tr.callbacks["customObservation"](tr.initial_state(), tr.inputs(episode_time=time), "")
        np.testing.assert_allclose(np.asarray(got), loaded.sandbox.to_python(want), rtol=1e-6)
