-- Counters: how many frames have passed and how many times `press` was 1.
-- Exercises: api fields as state, discreteActions, advance's reward, Int32 scalar observations.
-- Reward: 1 for each frame the button is pressed. The episode never ends by itself.
local api = {}

function api:init(settings)
end

function api:observationSpec()
  return {
      {name = 'FRAMES', type = 'tensor.Int32Tensor', shape = {}},
      {name = 'PRESSES', type = 'tensor.Int32Tensor', shape = {}},
  }
end

function api:discreteActionSpec()
  return {{name = 'press', min = 0, max = 1}}
end

function api:discreteActions(actions)
  self.press = actions[1]
end

function api:start(episode, seed)
  self.frames = 0
  self.presses = 0
  self.press = 0
end

function api:advance(frame)
  self.frames = self.frames + 1
  local reward = 0
  if self.press == 1 then
    self.presses = self.presses + 1
    reward = 1
  end
  return true, reward
end

function api:observation(index)
  if index == 1 then
    return self.frames
  end
  return self.presses
end

return api
