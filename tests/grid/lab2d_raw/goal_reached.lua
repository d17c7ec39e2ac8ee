-- Episode ends: walk along a line of 7 cells to either end. The right end ends the episode with +5,
-- the left end with -5, and 30 frames without reaching either end it with 0.
-- Exercises: two discrete actions, each end of the episode, a step limit, an Int32Tensor{3}
-- observation built from a table each frame.
local tensor = require 'system.tensor'

local LENGTH = 7
local LIMIT = 30

local api = {}

function api:observationSpec()
  return {{name = 'STATE', type = 'tensor.Int32Tensor', shape = {3}}}
end

function api:discreteActionSpec()
  return {
      {name = 'step', min = -1, max = 1},
      {name = 'double', min = 0, max = 1},
  }
end

function api:discreteActions(actions)
  self.step = actions[1]
  self.double = actions[2]
end

function api:start(episode, seed)
  self.position = 4
  self.frames = 0
  self.step = 0
  self.double = 0
end

function api:advance(frame)
  self.frames = self.frames + 1
  local stride = self.step * (1 + self.double)
  self.position = math.max(1, math.min(LENGTH, self.position + stride))
  if self.position == LENGTH then
    return false, 5
  elseif self.position == 1 then
    return false, -5
  end
  return self.frames < LIMIT, 0
end

function api:observation(index)
  return tensor.Int32Tensor{self.position, self.frames, LIMIT - self.frames}
end

return api
