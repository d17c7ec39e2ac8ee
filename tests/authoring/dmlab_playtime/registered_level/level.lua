-- Observations registered with the decorator: closures over the targets the map's entities give.
local make_map = require 'common.make_map'
local observations = require 'decorators.custom_observations'
local game = require 'dmlab.system.game'
local tensor = require 'dmlab.system.tensor'
local api = {}

local targets = {}

function api:nextMap()
  targets = {}
  return make_map.makeMap{mapName = 'registered', mapEntityLayer = '*******\n*A * A*\n*P   A*\n*******'}
end

function api:updateSpawnVars(spawnVars)
  if spawnVars.classname ~= 'info_player_start' then
    local x, y, z = spawnVars.origin:match('(%S+) (%S+) (%S+)')
    targets[#targets + 1] = {tonumber(x), tonumber(y), tonumber(z)}
  end
  return spawnVars
end

function api:customObservationSpec()
  return {{name = 'CLOCK', type = 'Doubles', shape = {1}}}
end

function api:customObservation(name)
  return tensor.DoubleTensor{game:episodeTimeSeconds()}
end

local function inView()
  local info = game:playerInfo()
  local seen = tensor.ByteTensor(#targets)
  for i, target in ipairs(targets) do
    seen(i):val(game:inFov(info.pos, target, info.angles, 90) and 1 or 0)
  end
  return seen
end

local function clearance(fov)
  return function()
    local info = game:playerInfo()
    local out = tensor.DoubleTensor(#targets)
    for i, target in ipairs(targets) do
      out(i):val(game:inFov(info.pos, target, info.angles, fov) and game:raycast(info.pos, target) or -1)
    end
    return out
  end
end

local function pose()
  local info = game:playerInfo()
  return tensor.DoubleTensor{info.pos[1], info.pos[2], info.pos[3], info.angles[1], info.angles[2], info.angles[3]}
end

local function view()
  local info = game:playerInfo()
  return game:renderCustomView{width = 8, height = 6, pos = info.eyePos, look = info.angles, renderPlayer = false}
end

observations.decorate(api)
observations.addSpec('IN_VIEW', 'Bytes', {0}, inView)
observations.addSpec('CLEARANCE', 'Doubles', {0}, clearance(120))
observations.addSpec('POSE', 'Doubles', {6}, pose)
observations.addSpec('VIEW', 'Bytes', {6, 8, 3}, view)

return api
