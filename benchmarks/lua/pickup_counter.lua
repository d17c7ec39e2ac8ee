-- Benchmark level: pickups counted at play time on the device. Each pickup pays the running count
-- (1, 2, 3, ...) and the episode ends after `pickups` of them (default 6); respawns after 2 s.
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}
local count = 0
local N = 6

function api:init(settings)
  N = tonumber(settings.pickups or 6)
end

function api:start(episode, seed)
  count = 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'bench_counter', mapEntityLayer = [[
*********
*P A A A*
* A A A *
*A A A A*
*********]]}
end

function api:pickup(id)
  count = count + 1
  game:addScore(count)
  return 2
end

function api:hasEpisodeFinished(time)
  return count >= N
end

return api
