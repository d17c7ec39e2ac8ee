-- common.make_map: register text maps made by a level script.
--
-- makeMap(map_text, map_name) or makeMap{mapName = ..., mapEntityLayer = ...,
-- mapVariationsLayer = ..., pickups = {char = class_name, ...}} records the
-- map under its name and returns the name, which api:nextMap() returns in
-- turn. The compiler reads the recorded maps after nextMap; nothing is
-- written to disk. The maps are recorded where dmlab.system.map_maker
-- records its text levels (one registry for both).
local map_maker = require 'dmlab.system.map_maker'
local make_map = {}

-- name -> {kind = 'legend', entityLayer = string, variationsLayer = string|nil, pickups = table}
make_map._maps = map_maker._maps

local function check_string(value, what)
  if type(value) ~= 'string' then
    error(what .. ' must be a string, got ' .. type(value), 3)
  end
end

function make_map.makeMap(map_text, map_name)
  local spec
  if type(map_text) == 'table' then
    spec = map_text
  else
    spec = {mapEntityLayer = map_text, mapName = map_name}
  end
  check_string(spec.mapEntityLayer, 'makeMap: the entity layer (mapEntityLayer)')
  check_string(spec.mapName, 'makeMap: the map name (mapName)')
  if spec.mapVariationsLayer ~= nil then
    check_string(spec.mapVariationsLayer, 'makeMap: mapVariationsLayer')
  end
  local pickups = {}
  for char, class_name in pairs(spec.pickups or {}) do
    if type(char) ~= 'string' or #char ~= 1 or type(class_name) ~= 'string' then
      error('makeMap: pickups maps one character to a class name, got ' ..
            tostring(char) .. ' = ' .. tostring(class_name), 2)
    end
    pickups[char] = class_name
  end
  make_map._maps[spec.mapName] = {
      kind = 'legend',
      entityLayer = spec.mapEntityLayer,
      variationsLayer = spec.mapVariationsLayer,
      pickups = pickups,
  }
  return spec.mapName
end

-- Engine commands are not modelled: the compiler warns about any returned.
function make_map.commandLine(old_command_line)
  return old_command_line
end

return make_map
