-- Respawn delays from the entities' wait spawn var, over what api:pickup answers; a count that pays instead.
local make_map = require 'common.make_map'
local api = {}
local WAITS = {apple_reward = '5', lemon_reward = '-1'}

function api:nextMap()
  return make_map.makeMap{mapName = 'waits', mapEntityLayer = '*******\n*P A L*\n*  S  *\n*******\n',
                           pickups = {L = 'lemon_reward', S = 'strawberry_reward'}}
end

function api:updateSpawnVars(spawnVars)
  spawnVars.wait = WAITS[spawnVars.classname] or spawnVars.wait
  if spawnVars.classname == 'strawberry_reward' then
    spawnVars.count = '7'
  end
  return spawnVars
end

function api:pickup(spawnId)
  return 3
end

return api
