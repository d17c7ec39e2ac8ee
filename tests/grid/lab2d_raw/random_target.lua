-- Random draws in start: a target number 1..6 drawn from start's seed with system.random.
-- Exercises: random:seed(seed) and random:uniformInt at the start of each episode, a reward that
-- depends on the draw, an episode end after 4 guesses or on the right one.
-- Action `guess` 1..6: +1 when it is the target (ends the episode), 0 otherwise.
-- The TARGET observation shows the draw once the episode is over (0 before).
local random = require 'system.random'

local api = {}

function api:observationSpec()
  return {
      {name = 'GUESSES', type = 'tensor.Int32Tensor', shape = {}},
      {name = 'TARGET', type = 'tensor.Int32Tensor', shape = {}},
  }
end

function api:discreteActionSpec()
  return {{name = 'guess', min = 1, max = 6}}
end

function api:discreteActions(actions)
  self.guess = actions[1]
end

function api:start(episode, seed)
  random:seed(seed)
  self.target = random:uniformInt(1, 6)
  self.guesses = 0
  self.over = false
  self.guess = 1
end

function api:advance(frame)
  self.guesses = self.guesses + 1
  if self.guess == self.target then
    self.over = true
    return false, 1
  end
  self.over = self.guesses >= 4
  return not self.over, 0
end

function api:observation(index)
  if index == 1 then
    return self.guesses
  end
  return self.over and self.target or 0
end

return api
