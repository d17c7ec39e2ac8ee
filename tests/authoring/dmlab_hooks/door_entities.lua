-- The map's doors reach updateSpawnVars as DMLab's func_door entities, in reading order among the
-- others and without ids of their own: the first two get a colour by their target name, the third is
-- removed (its cell becomes open floor). canTrigger opens a door only if it has a colour and it is red.
local make_map = require 'common.make_map'

local api = {}
local COLOURS = {'red', 'blue'}

function api:start(episode, seed)
  api._doors = {}
  api._seen = 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'door_entities', mapEntityLayer = '***********\n*P AI I I *\n***********'}
end

function api:updateSpawnVars(spawnVars)
  if spawnVars.classname == 'func_door' then
    api._seen = api._seen + 1
    assert(spawnVars.id == nil and spawnVars.angle == '90')
    assert(spawnVars.targetname == 'door_' .. (2 + 2 * api._seen) .. '_1')
    if api._seen == 3 then
      return nil
    end
    api._doors[spawnVars.targetname] = COLOURS[api._seen]
  elseif spawnVars.classname == 'apple_reward' then
    assert(spawnVars.id == '2' and api._seen == 0)
  end
  return spawnVars
end

function api:canTrigger(spawnId, targetName)
  return api._doors[targetName] and api._doors[targetName] == 'red'
end

return api
