-- Keys named by a list of strings whose length start picks per episode: pickup reads the list at the
-- pickup id (nil past the list's end) and keeps the name it finds in a field that is nil until then.
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}

function api:start(episode, seed)
  api._names = episode == 0 and {'red', 'green', 'blue'} or {'red', 'green'}
  api._carried = nil
end

function api:nextMap()
  return make_map.makeMap{mapName = 'named_keys', mapEntityLayer = '********\n*PAAAAA*\n********'}
end

function api:pickup(id)
  local name = api._names[id - 1]   -- ids 2..6: the list's keys 1..5
  if name then
    game:addScore(name == 'green' and 10 or 1)
    api._carried = name
  elseif api._carried == 'green' then
    game:addScore(100)
  end
end

return api
