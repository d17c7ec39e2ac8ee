local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'
local tensor = require 'dmlab.system.tensor'

local api = {}
local score = 0
local taken = 0

function api:start(episode, seed)
  score, taken = 0, 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'score', mapEntityLayer = '*******\n*PAAAA*\n*******'}
end

function api:customObservationSpec()
  return {{name = 'SCORE', type = 'doubles', shape = {2}}, {name = 'TAKEN', type = 'bytes', shape = {1}}}
end

function api:canPickup(id)
  return taken < 3 or id == 5
end

function api:pickup(id)
  taken = taken + 1
  local bonus = id * 10
  if taken % 2 == 0 then bonus = -bonus end
  score = score + bonus
  game:addScore(bonus)
  return 0.05
end

function api:customObservation(name)
  if name == 'SCORE' then
    return tensor.DoubleTensor{score, taken * 0.5}
  end
  return tensor.ByteTensor{taken}
end

return api
