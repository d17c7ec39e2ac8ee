-- Branching rewards: if / elseif / else on the action and on a streak counter.
-- Exercises: nested branches, `and`/`or`, math.min, negative and fractional rewards.
-- Action `choice` 0..3: 0 rests (-0.5), 1 and 2 score 1 (2 after three of the same in a row,
-- capped at a streak of 5), 3 gambles: +3 on even frames, -2 on odd ones.
local api = {}

function api:observationSpec()
  return {
      {name = 'STREAK', type = 'tensor.Int32Tensor', shape = {}},
      {name = 'LAST', type = 'tensor.Int32Tensor', shape = {}},
  }
end

function api:discreteActionSpec()
  return {{name = 'choice', min = 0, max = 3}}
end

function api:discreteActions(actions)
  self.choice = actions[1]
end

function api:start(episode, seed)
  self.streak = 0
  self.last = -1
  self.choice = 0
end

function api:advance(frame)
  local choice = self.choice
  if choice == self.last then
    self.streak = math.min(self.streak + 1, 5)
  else
    self.streak = 1
  end
  self.last = choice
  local reward
  if choice == 0 then
    reward = -0.5
  elseif choice == 1 or choice == 2 then
    reward = (self.streak >= 3 and 2) or 1
  elseif frame % 2 == 0 then
    reward = 3
  else
    reward = -2
  end
  return true, reward
end

function api:observation(index)
  if index == 1 then
    return self.streak
  end
  return self.last
end

return api
