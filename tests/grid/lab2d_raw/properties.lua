-- Properties: a writable reward scale, a read-only score, a list of both.
-- Exercises: readProperty / writeProperty / listProperty with system.properties' result codes,
-- a written value changing later rewards, the frame number advance receives.
-- Property `params.bonus` (rw, a whole number 0..9, default 1): the reward of a frame with
-- `collect` = 1. `state.score` (r): the episode's total so far. `state.frame` (r): the last frame.
local properties = require 'system.properties'

local api = {bonus = 1}

function api:observationSpec()
  return {{name = 'SCORE', type = 'tensor.DoubleTensor', shape = {}}}
end

function api:discreteActionSpec()
  return {{name = 'collect', min = 0, max = 1}}
end

function api:discreteActions(actions)
  self.collect = actions[1]
end

function api:start(episode, seed)
  self.score = 0
  self.frame = 0
  self.collect = 0
end

function api:advance(frame)
  self.frame = frame
  local reward = self.collect * self.bonus
  self.score = self.score + reward
  return true, reward
end

function api:observation(index)
  return self.score
end

function api:readProperty(key)
  if key == 'params.bonus' then
    return tostring(self.bonus)
  elseif key == 'state.score' then
    return tostring(self.score)
  elseif key == 'state.frame' then
    return tostring(self.frame)
  end
  return properties.NOT_FOUND
end

function api:writeProperty(key, value)
  if key == 'state.score' or key == 'state.frame' then
    return properties.PERMISSION_DENIED
  elseif key ~= 'params.bonus' then
    return properties.NOT_FOUND
  end
  local bonus = tonumber(value)
  if bonus == nil or bonus ~= math.floor(bonus) or bonus < 0 or bonus > 9 then
    return properties.INVALID_ARGUMENT
  end
  self.bonus = bonus
  return properties.SUCCESS
end

function api:listProperty(key, callback)
  if key == '' then
    callback('params', 'l')
    callback('state', 'l')
  elseif key == 'params' then
    callback('params.bonus', 'rw')
  elseif key == 'state' then
    callback('state.score', 'r')
    callback('state.frame', 'r')
  else
    return properties.NOT_FOUND
  end
  return properties.SUCCESS
end

return api
