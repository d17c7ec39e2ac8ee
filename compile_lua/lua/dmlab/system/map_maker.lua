--[[ dmlab.system.map_maker: text levels a script makes, recorded for the compiler.

`map_maker:mapFromTextLevel{entityLayer = text, mapName = name, variationsLayer = text,
callback = function(i, j, c, maker) ... end, cellSize = 100, ...}` records the text level under
`mapName`; `api:nextMap()` returns that name and the compiler builds the level from the record.
The text level format is DeepMind Lab's: '*' walls, ' ' floor, lines of length zero ignored, short
lines padded with walls. For every other cell (0-based row i, column j from the top left) the
callback, when given, is called with the cell's character and a maker; it returns nil (not handled:
the default applies: 'P' a spawn point, 'I' and 'H' doors), an entity string, or an array of them
(handled: '' adds nothing). Cells handled by the callback, and characters with no default, are floor.

The maker writes entity strings (Quake map entities, "key" "value" lines between braces, origin in
game units, z = (0.2 height + 0.3) cells, as DeepMind Lab places them): makeEntity{i, j, classname,
height, attributes}, makeSpawnPoint{i, j, height, angleRad}, makeDoor{i, j, isEastWest},
makeFenceDoor{...}; a script may also return entity strings it writes itself. Platforms and glass
columns (addPlatform{i, j, height}, addGlassColumn{i, j, height}) are added to the map itself, as
DeepMind Lab adds their brushes (they return ''): a platform's top stands 0.2 height cells up.

Other arguments (theme, skyboxTextureName, allowBots, decalFrequency, ceilingHeight,
drawDefaultLayout, ...) are kept in the record; jaxlab draws its own themes. `randomGen()` is the
map maker's generator (dmlab.system.random's methods), seeded by `randomGen():seed(n)`.
]]
local random = require 'dmlab.system.random'

local map_maker = {}

-- name -> {kind = 'text', entityLayer = cleaned layer, variationsLayer, entities = {strings},
--          cellSize, settings = {...}} (or kind = 'legend' from jaxlab's common.make_map)
map_maker._maps = {}

local generator = random.new(0)
local HEIGHT_SCALE = 0.2         -- cells per height step (DeepMind Lab's platforms and entities)
local START_Z = 0.3               -- cells from an entity's height to its origin
local MAX_CELLS = 1000000

function map_maker:randomGen()
  return generator
end

-- args[key], a finite number (default when nil or false and a default is given); else an error `level`
-- frames above this function's caller.
local function number_arg(args, key, what, default, level)
  local v = args[key]
  if (v == nil or v == false) and default ~= nil then return default end   -- DMLab's factories pass false
  if type(v) ~= 'number' or v ~= v or v == math.huge or v == -math.huge then
    error(what .. ': ' .. key .. ' must be a finite number, got ' .. tostring(v), (level or 1) + 2)
  end
  return v
end

local function quoted(s)
  s = tostring(s)
  if s:find('"', 1, true) or s:find('\n', 1, true) then
    error('entity keys and values may not hold quotes or newlines: ' .. s, 3)
  end
  return '"' .. s .. '"'
end

-- An entity string: classname at cell (i, j) of a map of `rows` rows, `height` cell heights up.
local function entity(rows, cell, i, j, height, classname, attributes)
  local x, y = (j + 0.5) * cell, (rows - i - 1 + 0.5) * cell
  local z = (height * HEIGHT_SCALE + START_Z) * cell
  local lines = {'{', quoted('classname') .. ' ' .. quoted(classname),
                 quoted('origin') .. ' ' .. quoted(string.format('%g %g %g', x, y, z))}
  local keys = {}
  for k in pairs(attributes or {}) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for _, k in ipairs(keys) do
    if k ~= 'classname' and k ~= 'origin' then
      lines[#lines + 1] = quoted(k) .. ' ' .. quoted(attributes[k])
    end
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n')
end

local function make_maker(rows, cell)
  local maker = {platforms = {}, glassColumns = {}}
  local function cell_args(args, what)   -- errors at the caller of the maker's method
    if type(args) ~= 'table' then error(what .. ' expects a table {i = ..., j = ...}', 3) end
    return number_arg(args, 'i', what, nil, 2), number_arg(args, 'j', what, nil, 2),
        number_arg(args, 'height', what, 0, 2)
  end
  function maker:makeEntity(args)
    local i, j, height = cell_args(args, 'makeEntity')
    if type(args.classname) ~= 'string' then error('makeEntity: classname must be a string', 2) end
    if args.attributes ~= nil and type(args.attributes) ~= 'table' then
      error('makeEntity: attributes must be a table of keys and values', 2)
    end
    return entity(rows, cell, i, j, height, args.classname, args.attributes)
  end
  function maker:makeSpawnPoint(args)
    local i, j, height = cell_args(args, 'makeSpawnPoint')
    local angle = number_arg(args, 'angleRad', 'makeSpawnPoint', 0, 1)
    return entity(rows, cell, i, j, height, 'info_player_start',
                  {angle = string.format('%g', math.deg(angle))})
  end
  local function door(args, what, fence)
    local i, j = cell_args(args, what)
    local east_west = args.isEastWest and 'I' or 'H'
    return entity(rows, cell, i, j, 0, 'jaxlab_door', {direction = east_west, fence = fence and '1' or nil})
  end
  function maker:makeDoor(args) return door(args, 'makeDoor', false) end
  function maker:makeFenceDoor(args) return door(args, 'makeFenceDoor', true) end
  function maker:addPlatform(args)
    local i, j, height = cell_args(args, 'addPlatform')
    maker.platforms[#maker.platforms + 1] = {i, j, height}
    return ''
  end
  function maker:addGlassColumn(args)
    local i, j, height = cell_args(args, 'addGlassColumn')
    maker.glassColumns[#maker.glassColumns + 1] = {i, j, height}
    return ''
  end
  return maker
end

local function lines_of(text)
  local lines, width = {}, 0
  for line in (text .. '\n'):gmatch('([^\n]*)\n') do
    line = line:gsub('\r$', '')
    if #line > 0 then
      lines[#lines + 1] = line
      if #line > width then width = #line end
    end
  end
  return lines, width
end

local DEFAULTS = {P = true, I = true, H = true}

-- The callback's answer: nil (not handled) or a list of entity strings.
local function answer(result, i, j, c)
  if result == nil then return nil end
  if type(result) == 'string' then return {result} end
  if type(result) ~= 'table' then
    error(string.format('mapFromTextLevel: the callback returned a %s for cell (%d, %d) %q; expected '
                        .. 'nil, an entity string or an array of them', type(result), i, j, c), 3)
  end
  for k, s in ipairs(result) do
    if type(s) ~= 'string' then
      error(string.format('mapFromTextLevel: the callback\'s entity %d for cell (%d, %d) is a %s, not a string',
                          k, i, j, type(s)), 3)
    end
  end
  return result
end

function map_maker:mapFromTextLevel(args)
  if type(args) ~= 'table' then error('mapFromTextLevel expects a table of arguments', 2) end
  if type(args.entityLayer) ~= 'string' then error('mapFromTextLevel: entityLayer must be a string', 2) end
  if type(args.mapName) ~= 'string' or args.mapName == '' then
    error('mapFromTextLevel: mapName must be a non-empty string', 2)
  end
  if args.variationsLayer ~= nil and type(args.variationsLayer) ~= 'string' then
    error('mapFromTextLevel: variationsLayer must be a string', 2)
  end
  if args.callback ~= nil and type(args.callback) ~= 'function' then
    error('mapFromTextLevel: callback must be a function', 2)
  end
  local cell = number_arg(args, 'cellSize', 'mapFromTextLevel', 100, 1)
  if cell <= 0 then error('mapFromTextLevel: cellSize must be positive', 2) end
  local lines, width = lines_of(args.entityLayer)
  if #lines * width > MAX_CELLS then
    error(string.format('mapFromTextLevel: %d x %d cells is more than %d', #lines, width, MAX_CELLS), 2)
  end
  local maker = make_maker(#lines, cell)
  local cleaned, entities = {}, {}
  for i0, line in ipairs(lines) do
    local row = {}
    for j0 = 1, width do
      local c = line:sub(j0, j0)
      if c == '' then c = '*' end
      local keep = c
      if c ~= '*' and c ~= ' ' then
        local handled = args.callback and answer(args.callback(i0 - 1, j0 - 1, c, maker), i0 - 1, j0 - 1, c)
        if handled then
          for _, s in ipairs(handled) do
            if s ~= '' then entities[#entities + 1] = s end
          end
          keep = ' '
        elseif not DEFAULTS[c] then
          keep = ' '
        end
      end
      row[j0] = keep
    end
    cleaned[i0] = table.concat(row)
  end
  local settings = {}
  for k, v in pairs(args) do
    if type(v) == 'string' or type(v) == 'number' or type(v) == 'boolean' then settings[k] = v end
  end
  settings.entityLayer, settings.variationsLayer, settings.mapName = nil, nil, nil
  map_maker._maps[args.mapName] = {
      kind = 'text',
      entityLayer = table.concat(cleaned, '\n'),
      variationsLayer = args.variationsLayer,
      entities = entities,
      platforms = maker.platforms,
      glassColumns = maker.glassColumns,
      cellSize = cell,
      settings = settings,
  }
  return args.mapName
end

return map_maker
