-- Random draws whose outcomes are fixed: each distribution drawn with one possible value (a range
-- of one number, weights with one non-zero entry, a table of equal items), and a fair die whose
-- roll is only checked against its own range. Seeded from start's seed.
-- Exercises: random:seed, uniformInt, uniformReal, normalDistribution, discreteDistribution,
-- choice, shuffle and shuffleInPlace in start and advance, so that two engines with different
-- generators play the level alike step for step.
-- Action `pick` 1..4 chooses the draw added to the total each frame; the episode ends after 12
-- frames. DRAWS holds the last frame's fixed draws; reward: the picked draw (plus 1 when the die
-- showed 1..6, which it always does).
local random = require 'system.random'
local tensor = require 'system.tensor'

local api = {}

function api:observationSpec()
  return {
      {name = 'DRAWS', type = 'tensor.DoubleTensor', shape = {4}},
      {name = 'TOTAL', type = 'tensor.DoubleTensor', shape = {}},
  }
end

function api:discreteActionSpec()
  return {{name = 'pick', min = 1, max = 4}}
end

function api:discreteActions(actions)
  self.pick = actions[1]
end

function api:start(episode, seed)
  random:seed(seed)
  self.base = random:uniformInt(3, 3)
  self.total = 0
  self.pick = 1
  self.draws = tensor.DoubleTensor(4)
  self.ones = {1, 1, 1}
end

function api:advance(frame)
  local values = {
      random:uniformInt(self.base, self.base) + frame,
      random:uniformReal(0.5, 0.5) * frame,
      random:discreteDistribution({0, 0, 1, 0}) + random:normalDistribution(0.25, 0),
      random:choice({2, 2, 2}) - random:shuffle({1, 1})[2] * self.ones[1],
  }
  random:shuffleInPlace(self.ones)
  self.draws:val(values)
  local reward = values[self.pick]
  local die = random:uniformInt(1, 6)
  if die >= 1 and die <= 6 then
    reward = reward + 1
  end
  self.total = self.total + reward
  return frame < 12, reward
end

function api:observation(index)
  if index == 1 then
    return self.draws
  end
  return self.total
end

return api
