-- Random draws every frame: wind pushes a kite left or right by a draw from system.random,
-- seeded from start's seed; the agent pulls back.
-- Exercises: random:uniformInt inside advance, a DoubleTensor{2} observation, math.abs, a penalty
-- that grows with the distance from the centre, an end when the kite leaves [-5, 5].
-- Action `pull` -1..1 moves the kite against the wind.
local random = require 'system.random'
local tensor = require 'system.tensor'

local api = {}

function api:observationSpec()
  return {{name = 'KITE', type = 'tensor.DoubleTensor', shape = {2}}}
end

function api:discreteActionSpec()
  return {{name = 'pull', min = -1, max = 1}}
end

function api:discreteActions(actions)
  self.pull = actions[1]
end

function api:start(episode, seed)
  random:seed(seed)
  self.offset = 0
  self.wind = 0
  self.pull = 0
end

function api:advance(frame)
  self.wind = random:uniformInt(-2, 2)
  self.offset = self.offset + self.wind + self.pull
  if math.abs(self.offset) > 5 then
    return false, -10
  end
  return true, -0.25 * math.abs(self.offset)
end

function api:observation(index)
  return tensor.DoubleTensor{self.offset, self.wind}
end

return api
