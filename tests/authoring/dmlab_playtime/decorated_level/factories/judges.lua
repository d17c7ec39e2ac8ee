-- Judges made by a module function: tables whose methods are closures over the function's argument and
-- the module's locals (as reward controllers are in DeepMind Lab's language levels).
local game = require 'dmlab.system.game'

local judges = {}

local function penalty(bonus, others)
  return -math.floor(bonus / others + 0.5)
end

function judges.counting(opts)
  local judge = {}

  function judge:prepare(goal, count)
    self._goal = goal
    self._count = 0
    self._others = count - 1
  end

  function judge:judge(object)
    if object.group == self._goal then
      self._count = self._count + 1
      if self._count >= opts.needed then
        game:addScore(opts.bonus)
        game:finishMap()
      end
      return -1
    end
    game:addScore(penalty(opts.bonus, self._others) + object.worth)
    return 1
  end

  return judge
end

function judges.generous()
  local judge = {}
  function judge:prepare(goal, count) end
  function judge:judge(object)
    game:addScore(1 + object.worth)
    return 2
  end
  return judge
end

return judges
