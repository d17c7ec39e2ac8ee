--[[ dmlab.system.maze_generation: DeepMind Lab's text mazes, as the compile's sandbox gives them.

    local maze_generation = require 'dmlab.system.maze_generation'
    local maze = maze_generation.mazeGeneration{entity = '*****\n*P G*\n*****\n'}
    local blank = maze_generation.mazeGeneration{height = 9, width = 11}  -- entity '*', variations '.'
    local rand = maze_generation.randomMazeGeneration{random = gen, height = 17, width = 17, maxRooms = 4}

`maze_generation:mazeGeneration{...}` (with a colon) works too, as in DeepMind Lab.

A maze is two layers of one-byte cells, rows i = 1..height from the top and columns j = 1..width from
the left: the entity layer (walls '*', floor ' ', spawns 'P', ...) and the variations layer ('.' or a
room's letter). From text: rows are split at newlines (blank lines skipped), the width is the longest
row's, and missing cells are '*' (entity) or '.' (variations); a layer's text is its rows, each ending
in a newline. Mazes are at most 501 x 501 cells, random ones at most 101 x 101 (their generator's time
grows steeply with the size: compile_lua.engine.mazes).

randomMazeGeneration{...} takes DeepMind Lab's arguments and defaults: height, width (odd, required),
maxRooms 0 (no limit), roomMinSize 3, roomMaxSize 7 (odd), retryCount 1000, extraConnectionProbability
0.05, maxVariations 26, hasDoors false, simplify true, roomSpawnCount 0, spawn 'P', roomObjectCount 0,
object 'G'; the maze is labmaze's RandomMaze for them. `seed = s` is labmaze's seed s (wrapped to 32
bits, as DeepMind Lab reads it); `random = gen` (a generator such as require 'dmlab.system.random')
draws s = gen:uniformInt(0, 2^31 - 1) once and gives the maze of `seed = s`. Unknown arguments are
refused.

Methods; (i, j) is a cell inside the maze unless said otherwise, c one byte other than a newline:
  maze:size() -> height, width
  maze:entityLayer(), maze:variationsLayer() -> the layer's text
  maze:getEntityCell(i, j), maze:getVariationsCell(i, j) -> the cell, a one-byte string
  maze:setEntityCell(i, j, c), maze:setVariationsCell(i, j, c)
  maze:toWorldPos(i, j) -> x, y: the centre of cell (i, j) (any integers) in world units, 100 a cell,
      x growing with j, y growing upward from the bottom row
  maze:fromWorldPos(x, y) -> i, j: the cell holding the point (x, y) (finite numbers)
  maze:visitFill{cell = {i, j}, func = f, wall = '*'}: f(i, j, distance) for every cell reachable
      from `cell` by steps up, down, left or right through cells whose entity is not in `wall`, nearest
      first (the distances are found before the first call); nothing when `cell` is a wall
  maze:visitRandomPath{from = {i, j}, to = {i, j}, func = f, wall = '*', random = gen | seed = n}
      -> found: a random depth-first walk from `from` (each step picks one of the open, unvisited
      neighbours with gen:uniformInt, or with a common.random generator seeded with n) until it steps
      next to `to`; then f(i, j) for each cell of the walk's path, `from` first, `to` last
Not provided (no DeepMind Lab level uses them): rotate, paste, findRooms, fillEntityRect,
countEntities, countVariations.
]]
local _, _, host = ...

local maze_generation = {}
local Maze = {}
Maze.__index = Maze

local MAX_SIDE = 501
local CELL_UNITS = 100
local tointeger, floor, huge = math.tointeger, math.floor, math.huge
local sformat, ssub, concat = string.format, string.sub, table.concat

local function describe(v)
  if type(v) == 'string' then
    return (sformat('%q', #v > 40 and ssub(v, 1, 40) .. '...' or v):gsub('\\\n', '\\n')) .. ' (a string)'
  elseif type(v) == 'number' or type(v) == 'boolean' then
    return sformat('%s (a %s)', tostring(v), type(v))
  end
  return v == nil and 'nil' or 'a ' .. type(v)
end

local function int(v)
  return type(v) == 'number' and tointeger(v) or nil
end

--- The named-arguments table of maze_generation.f{...} or maze_generation:f{...}.
local function own_args(a, b)
  if a == maze_generation then return b end
  return a
end

-- Argument checks: each raises at the caller of the API function that calls it (level 3).

local function named_args(kwargs, what, keys)
  if type(kwargs) ~= 'table' then
    error(sformat('%s expects a table of named arguments, got %s', what, describe(kwargs)), 3)
  end
  for key in pairs(kwargs) do
    if not keys[key] then
      local names = {}
      for name in pairs(keys) do names[#names + 1] = name end
      table.sort(names)
      error(sformat('%s: unknown argument %s; the arguments are %s', what, describe(key),
                    concat(names, ', ')), 3)
    end
  end
  return kwargs
end

local function check_self(self, what)
  if getmetatable(self) ~= Maze then
    error(sformat('%s: call it on a maze with a colon, got %s as the maze', what, describe(self)), 3)
  end
end

--- The flat index of cell (i, j), checked; raises at `level` (default: the API function's caller).
local function cell_index(self, i, j, what, level)
  local row, col = int(i), int(j)
  if row == nil or col == nil then
    error(sformat('%s: the row and column must be integers, got %s and %s', what, describe(i), describe(j)),
          level or 3)
  end
  if row < 1 or row > self._height or col < 1 or col > self._width then
    error(sformat('%s: cell (%d, %d) is outside the maze (rows 1..%d, columns 1..%d)', what, row, col,
                  self._height, self._width), level or 3)
  end
  return (row - 1) * self._width + col
end

local function cell_arg(self, pair, what, key)
  if type(pair) ~= 'table' then
    error(sformat("%s: '%s' must be a cell {row, column}, got %s", what, key, describe(pair)), 3)
  end
  return cell_index(self, pair[1], pair[2], sformat("%s: '%s'", what, key), 4)
end

local function char_arg(c, what)
  if type(c) ~= 'string' or #c ~= 1 or c == '\n' then
    error(sformat('%s: the character must be a one-byte string other than a newline, got %s', what,
                  describe(c)), 3)
  end
  return c
end

local function func_arg(f, what)
  if type(f) ~= 'function' then
    error(sformat("%s: 'func' must be a function, got %s", what, describe(f)), 3)
  end
  return f
end

local function wall_set(wall, what)
  if wall == nil then return {['*'] = true} end
  if type(wall) ~= 'string' then
    error(sformat("%s: 'wall' must be a string of wall characters, got %s", what, describe(wall)), 3)
  end
  local set = {}
  for k = 1, #wall do set[ssub(wall, k, k)] = true end
  return set
end

local function generator_arg(gen, what)
  if type(gen) ~= 'table' or type(gen.uniformInt) ~= 'function' then
    error(sformat("%s: 'random' must be a random generator (e.g. require 'dmlab.system.random'), got %s",
                  what, describe(gen)), 3)
  end
  return gen
end

-- Layers: flat arrays of one-byte strings, cell (i, j) at (i - 1) * width + j.

local function new_maze(height, width)
  local entity, variations = {}, {}
  for k = 1, height * width do
    entity[k], variations[k] = '*', '.'
  end
  return setmetatable({_height = height, _width = width, _entity = entity, _variations = variations}, Maze)
end

--- The rows of `text` (blank lines skipped) and the longest row's length; nil and a message when the
-- text has no rows or more than MAX_SIDE rows or columns.
local function text_rows(text, key)
  local rows, width = {}, 0
  for row in text:gmatch('[^\n]+') do
    rows[#rows + 1] = row
    width = #row > width and #row or width
    if #rows > MAX_SIDE or width > MAX_SIDE then
      return nil, sformat("'%s' has more than %d rows or columns (jaxlab's largest maze is %d x %d)", key,
                          MAX_SIDE, MAX_SIDE, MAX_SIDE)
    end
  end
  if #rows == 0 then return nil, sformat("'%s' has no rows (only newlines)", key) end
  return rows, width
end

local function write_rows(cells, rows, height, width)
  for i = 1, math.min(#rows, height) do
    local row, base = rows[i], (i - 1) * width
    for j = 1, math.min(#row, width) do
      cells[base + j] = ssub(row, j, j)
    end
  end
end

--- A maze from an entity text and an optional variations text; nil and a message for a bad text.
local function from_text(entity, variations)
  local rows, width = text_rows(entity, 'entity')
  if rows == nil then return nil, width end
  local maze = new_maze(#rows, width)
  write_rows(maze._entity, rows, #rows, width)
  if variations ~= nil then
    local vrows, message = text_rows(variations, 'variations')
    if vrows == nil then return nil, message end
    write_rows(maze._variations, vrows, #rows, width)
  end
  return maze
end

local function layer_text(self, cells)
  local lines, width = {}, self._width
  for i = 1, self._height do
    lines[i] = concat(cells, '', (i - 1) * width + 1, i * width)
  end
  lines[#lines + 1] = ''
  return concat(lines, '\n')
end

-- The module --------------------------------------------------------------------------------------

local MAZE_KEYS = {entity = true, variations = true, height = true, width = true}

--- mazeGeneration{entity = text[, variations = text]} or mazeGeneration{height = h, width = w}.
function maze_generation.mazeGeneration(a, b)
  local what = 'maze_generation.mazeGeneration'
  local kwargs = named_args(own_args(a, b), what, MAZE_KEYS)
  if kwargs.entity == nil then
    local height, width = int(kwargs.height), int(kwargs.width)
    if kwargs.variations ~= nil or height == nil or width == nil or height < 1 or width < 1
        or height > MAX_SIDE or width > MAX_SIDE then
      error(sformat('%s: give entity (a text, and optionally variations) or height and width (integers in '
                    .. '1..%d), got height %s and width %s', what, MAX_SIDE, describe(kwargs.height),
                    describe(kwargs.width)), 2)
    end
    return new_maze(height, width)
  end
  local entity, variations = kwargs.entity, kwargs.variations
  if kwargs.height ~= nil or kwargs.width ~= nil then
    error(what .. ': give entity (and variations) or height and width, not both', 2)
  end
  if type(entity) ~= 'string' or entity == '' then
    error(sformat("%s: 'entity' must be a non-empty string, got %s", what, describe(entity)), 2)
  end
  if variations ~= nil and type(variations) ~= 'string' then
    error(sformat("%s: 'variations' must be a string, got %s", what, describe(variations)), 2)
  end
  local maze, message = from_text(entity, variations ~= '' and variations or nil)
  if maze == nil then error(what .. ': ' .. message, 2) end
  return maze
end

--- randomMazeGeneration{...}: see the module's comment for the arguments.
function maze_generation.randomMazeGeneration(a, b)
  local what = 'maze_generation.randomMazeGeneration'
  local kwargs = own_args(a, b)
  if type(kwargs) ~= 'table' then
    error(sformat('%s expects a table of named arguments, got %s', what, describe(kwargs)), 2)
  end
  local args = {}
  for key, value in pairs(kwargs) do args[key] = value end
  if kwargs.random ~= nil then
    args.random = nil
    args.seed = generator_arg(kwargs.random, what):uniformInt(0, 0x7fffffff)
  end
  local layers = host('maze_generation.random', args)
  return assert(from_text(layers.entity, layers.variations))
end

-- Maze methods ------------------------------------------------------------------------------------

function Maze:size()
  check_self(self, 'maze:size')
  return self._height, self._width
end

-- entityLayer, variationsLayer, getEntityCell, getVariationsCell, setEntityCell, setVariationsCell.
for name, field in pairs{Entity = '_entity', Variations = '_variations'} do
  local layer, get, set = name:lower() .. 'Layer', 'get' .. name .. 'Cell', 'set' .. name .. 'Cell'
  Maze[layer] = function(self)
    check_self(self, 'maze:' .. layer)
    return layer_text(self, self[field])
  end
  Maze[get] = function(self, i, j)
    check_self(self, 'maze:' .. get)
    return self[field][cell_index(self, i, j, 'maze:' .. get)]
  end
  Maze[set] = function(self, i, j, c)
    check_self(self, 'maze:' .. set)
    self[field][cell_index(self, i, j, 'maze:' .. set)] = char_arg(c, 'maze:' .. set)
  end
end

function Maze:toWorldPos(i, j)
  check_self(self, 'maze:toWorldPos')
  local row, col = int(i), int(j)
  if row == nil or col == nil then
    error(sformat('maze:toWorldPos: the row and column must be integers, got %s and %s', describe(i),
                  describe(j)), 2)
  end
  return (col - 1) * CELL_UNITS + CELL_UNITS // 2, (self._height - row) * CELL_UNITS + CELL_UNITS // 2
end

function Maze:fromWorldPos(x, y)
  check_self(self, 'maze:fromWorldPos')
  if type(x) ~= 'number' or type(y) ~= 'number' or x ~= x or y ~= y or x == huge or x == -huge
      or y == huge or y == -huge then
    error(sformat('maze:fromWorldPos: x and y must be finite numbers, got %s and %s', describe(x),
                  describe(y)), 2)
  end
  return self._height - floor(y / CELL_UNITS), floor(x / CELL_UNITS + 1)
end

local FILL_KEYS = {cell = true, func = true, wall = true}

function Maze:visitFill(kwargs)
  local what = 'maze:visitFill'
  check_self(self, what)
  named_args(kwargs, what, FILL_KEYS)
  local start = cell_arg(self, kwargs.cell, what, 'cell')
  local func, walls = func_arg(kwargs.func, what), wall_set(kwargs.wall, what)
  local entity, height, width = self._entity, self._height, self._width
  if walls[entity[start]] then return end
  local distance, queue, count, d = {[start] = 0}, {start}, 1, 0
  local function reach(k)
    if distance[k] == nil and not walls[entity[k]] then
      distance[k], count = d, count + 1
      queue[count] = k
    end
  end
  local head = 1
  while head <= count do
    local k = queue[head]
    head, d = head + 1, distance[k] + 1
    local i, j = (k - 1) // width, (k - 1) % width
    if i > 0 then reach(k - width) end
    if i < height - 1 then reach(k + width) end
    if j > 0 then reach(k - 1) end
    if j < width - 1 then reach(k + 1) end
  end
  for n = 1, count do
    local k = queue[n]
    func((k - 1) // width + 1, (k - 1) % width + 1, distance[k])
  end
end

local PATH_KEYS = {from = true, to = true, func = true, wall = true, random = true, seed = true}

function Maze:visitRandomPath(kwargs)
  local what = 'maze:visitRandomPath'
  check_self(self, what)
  named_args(kwargs, what, PATH_KEYS)
  local gen
  if kwargs.random ~= nil then
    gen = generator_arg(kwargs.random, what)
  elseif int(kwargs.seed) ~= nil then
    gen = require('dmlab.system.random').new(int(kwargs.seed))
  else
    error(sformat("%s: give 'random' (a random generator) or 'seed' (an integer), got seed %s", what,
                  describe(kwargs.seed)), 2)
  end
  local from, to = cell_arg(self, kwargs.from, what, 'from'), cell_arg(self, kwargs.to, what, 'to')
  local func, walls = func_arg(kwargs.func, what), wall_set(kwargs.wall, what)
  local entity, height, width = self._entity, self._height, self._width
  local path, taken, found = {from}, {[from] = true}, from == to
  while not found and #path > 0 do
    local k = path[#path]
    local i, j = (k - 1) // width, (k - 1) % width
    local steps = {}
    for _, next_k in ipairs{i < height - 1 and k + width, i > 0 and k - width, j < width - 1 and k + 1,
                            j > 0 and k - 1} do
      if next_k == to then
        found = true
        break
      elseif next_k and not taken[next_k] and not walls[entity[next_k]] then
        steps[#steps + 1] = next_k
      end
    end
    if found then
      path[#path + 1] = to
    elseif #steps == 0 then
      path[#path] = nil
    else
      local step = steps[gen:uniformInt(1, #steps)]
      path[#path + 1], taken[step] = step, true
    end
  end
  for _, k in ipairs(path) do
    func((k - 1) // width + 1, (k - 1) % width + 1)
  end
  return #path > 0
end

for _, name in ipairs{'rotate', 'paste', 'findRooms', 'fillEntityRect', 'countEntities', 'countVariations'} do
  Maze[name] = function()
    error(sformat("maze:%s is not provided by jaxlab's dmlab.system.maze_generation (no DeepMind Lab "
                  .. 'level uses it)', name), 2)
  end
end

return maze_generation
