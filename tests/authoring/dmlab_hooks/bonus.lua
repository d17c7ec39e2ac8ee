-- rewardOverride: every third reward pickup pays double.
local make_map = require 'common.make_map'

local api = {}
local rewards = 0

function api:start(episode, seed)
  rewards = 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'bonus', mapEntityLayer = '********\n*PAAAAA*\n********'}
end

function api:rewardOverride(kwargs)
  rewards = rewards + 1
  if rewards % 3 == 0 then
    return kwargs.score * 2
  end
  return kwargs.score
end

return api
