-- Benchmark level: the static twin of pickup_counter.lua. The same map and pickups; each pickup pays
-- a fixed 1 and respawns after 2 s, so its callbacks are tabulated on the host; the episode ends on time.
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}

function api:nextMap()
  return make_map.makeMap{mapName = 'bench_counter', mapEntityLayer = [[
*********
*P A A A*
* A A A *
*A A A A*
*********]]}
end

function api:pickup(id)
  game:addScore(1)
  return 2
end

return api
