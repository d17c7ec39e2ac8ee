-- Timers: a countdown that ends the episode when it reaches zero.
-- Exercises: init(settings) (setting `duration`, frames, default 12), a timer kept across calls,
-- episode ends (advance returns false), a Double scalar observation, a reward only on the last frame.
-- Action `hurry` (0 or 1) takes one extra frame off the clock.
local api = {}

function api:init(settings)
  self.duration = tonumber(settings.duration) or 12
end

function api:observationSpec()
  return {{name = 'TIME_LEFT', type = 'tensor.DoubleTensor', shape = {}}}
end

function api:discreteActionSpec()
  return {{name = 'hurry', min = 0, max = 1}}
end

function api:discreteActions(actions)
  self.hurry = actions[1]
end

function api:start(episode, seed)
  self.timeLeft = self.duration
  self.hurry = 0
end

function api:advance(frame)
  self.timeLeft = math.max(self.timeLeft - 1 - self.hurry, 0)
  if self.timeLeft == 0 then
    return false, 10
  end
  return true, 0
end

function api:observation(index)
  return self.timeLeft / self.duration
end

return api
