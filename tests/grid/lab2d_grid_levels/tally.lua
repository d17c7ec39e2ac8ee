--[[ A level whose play-time state lives in an object made by init (a class instance kept on the host),
written at play time through its methods and through a helper that is passed a table: as Lab2D levels
built on `common.class` objects keep theirs. One action ADD (0..3) adds to the tally; every fourth step a
helper halves the bonus record the level holds. The object starts its streak as an empty table, which start
replaces with a record (a table inside it): the streak counts equal adds in a row; and a table init made that
play writes at keys, `seen`: at which add each amount was last added. Observations: the tally, how many adds
made it, the bonus, the streak and when 1 was last added (-1 never). ]]
local grid_world = require 'system.grid_world'   -- a level of Lab2D's libraries

local Tally = {}
Tally.__index = Tally

function Tally.new(start)
  return setmetatable({count = start, adds = 0, streak = {}, seen = {}}, Tally)
end

function Tally:reset(count)
  self.count = count
  self.adds = 0
  local last = {}
  last.add = -1
  self.streak = {length = 0, last = last}
end

function Tally:add(n)
  self.count = self.count + n
  self.adds = self.adds + 1
  if self.streak.last.add == n then
    self.streak.length = self.streak.length + 1
  else
    self.streak.length = 1
  end
  self.streak.last.add = n
  self.seen[n % 4 + 1] = self.adds
end

local function halve(record)
  record.points = math.floor(record.points / 2)
end

local api = {}

function api:init(kwargs)
  self._tally = Tally.new(0)
  self._bonus = {points = 0}
  self._add = 0
end

function api:observationSpec()
  return {{name = 'TALLY', type = 'Doubles', shape = {}}, {name = 'ADDS', type = 'Doubles', shape = {}},
          {name = 'BONUS', type = 'Doubles', shape = {}}, {name = 'STREAK', type = 'Doubles', shape = {}},
          {name = 'SEEN', type = 'Doubles', shape = {}}}
end

function api:discreteActionSpec()
  return {{name = 'ADD', min = 0, max = 3}}
end

function api:discreteActions(actions)
  self._add = actions[1]
end

function api:start(episode, seed)
  self._tally:reset(episode % 3)   -- the object init made: its fields become play-time state
  self._bonus = {points = 0}
end

function api:advance(steps)
  self._tally:add(self._add)
  local bonus = self._bonus
  bonus.points = bonus.points + 10 * self._add
  if steps % 4 == 0 then
    halve(bonus)
  end
  self._bonus = bonus
  return steps < 12, self._add
end

function api:observation(index)
  if index == 1 then
    return self._tally.count
  elseif index == 2 then
    return self._tally.adds
  elseif index == 4 then
    return self._tally.streak.length
  elseif index == 5 then
    return self._tally.seen[2] or -1
  end
  return self._bonus.points
end

return api
