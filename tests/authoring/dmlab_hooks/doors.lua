-- canTrigger/trigger on the map's two doors (targets door_4_1 and door_6_1): the first opens on two
-- firings out of three, the second only after the first 0.07 s, and every other firing of the second is
-- handled by the script (it pays and keeps the door shut). (0.07 s falls between two frames, so the
-- device's float32 clock and Lua's double one agree on which frames come after it.)
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}
local fired = 0

function api:start(episode, seed)
  fired = 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'doors', mapEntityLayer = '*********\n*P  I I *\n*********'}
end

function api:canTrigger(spawnId, targetName)
  if targetName == 'door_4_1' then
    return fired % 3 ~= 2
  end
  return game:episodeTimeSeconds() > 0.07
end

function api:trigger(spawnId, targetName)
  fired = fired + 1
  if targetName == 'door_6_1' and fired % 2 == 0 then
    game:addScore(fired)
    return true
  end
  return false
end

return api
