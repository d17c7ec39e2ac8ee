-- Continuous actions: a cart whose speed follows a throttle in [-1, 1].
-- Exercises: continuousActionSpec / continuousActions beside a discrete `brake`, Double state,
-- a DoubleTensor{2} observation, a reward for distance covered.
local tensor = require 'system.tensor'

local api = {}

function api:observationSpec()
  return {{name = 'CART', type = 'tensor.DoubleTensor', shape = {2}}}
end

function api:discreteActionSpec()
  return {{name = 'brake', min = 0, max = 1}}
end

function api:discreteActions(actions)
  self.brake = actions[1]
end

function api:continuousActionSpec()
  return {{name = 'throttle', min = -1.0, max = 1.0}}
end

function api:continuousActions(actions)
  self.throttle = actions[1]
end

function api:start(episode, seed)
  self.speed = 0
  self.distance = 0
  self.brake = 0
  self.throttle = 0
end

function api:advance(frame)
  if self.brake == 1 then
    self.speed = self.speed * 0.5
  else
    self.speed = 0.75 * self.speed + self.throttle
  end
  self.distance = self.distance + self.speed
  return true, self.speed
end

function api:observation(index)
  return tensor.DoubleTensor{self.speed, self.distance}
end

return api
