local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}
local count = 0
local N = 3

function api:init(settings)
  N = tonumber(settings.pickups or 3)
end

function api:start(episode, seed)
  count = 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'counter', mapEntityLayer = '*******\n*PAAAA*\n*******'}
end

function api:pickup(id)
  count = count + 1
  game:addScore(count)
end

function api:hasEpisodeFinished(time)
  return count >= N
end

return api
