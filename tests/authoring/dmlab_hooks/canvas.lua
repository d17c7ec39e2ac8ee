-- A picture kept as a DMLab tensor made when the script loads: each jump paints the next of its four
-- columns bright and writes how many jumps there were along its top row (through select views of it),
-- then pays a hundredth of the picture's sum.
local game = require 'dmlab.system.game'
local make_map = require 'common.make_map'
local tensor = require 'dmlab.system.tensor'

local api = {}
local canvas = tensor.ByteTensor(3, 4):fill(1)
local column = 0
local jumps = 0

function api:nextMap()
  return make_map.makeMap{mapName = 'canvas', mapEntityLayer = '*****\n*P  *\n*****'}
end

local function paint(picture)
  column = column % 4 + 1
  jumps = jumps + 1
  picture:select(2, column):fill(200)
  picture:select(1, 1):fill(jumps)
end

function api:modifyControl(actions)
  if actions.crouchJump > 0 then
    paint(canvas)
    game:addScore(canvas:sum() / 100)
  end
  return actions
end

return api
