local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}
local LIMIT = 5
local taken = 0

function api:nextMap()
  return make_map.makeMap{mapName = 'countdown', mapEntityLayer = '*******\n*PAAAA*\n*******'}
end

function api:pickup(id)
  taken = taken + 1
end

function api:screenMessages(args)
  local left = math.max(0, LIMIT - math.floor(game:episodeTimeSeconds()))
  local text = 'time left: ' .. math.min(left, LIMIT) .. ' s'
  if left == 0 then text = 'time up' end
  return {
    {message = text, x = args.width / 2, y = 10, alignment = 2},
    {message = 'taken ' .. math.max(0, math.min(taken, 9)), x = 0, y = args.height - args.line_height},
  }
end

return api
