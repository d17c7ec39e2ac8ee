-- A factory that keeps its play-time helpers as objects: a clock (a class instance) made each episode,
-- a judge (a table of closures) handed in by the level and prepared for each episode's goal, and its
-- argument `kwargs` (numbers beside functions and objects). A decorator adds the time limit. The fifth apple is
-- never taken in the tests, so the map is never cleared of its apples.
local Alarm = require 'factories.alarm'
local make_map = require 'common.make_map'
local time_limit = require 'decorators.time_limit'

local factory = {}

function factory.createLevelApi(kwargs)
  local api = {}

  function api:start(episode, seed)
    self._alarm = Alarm.new(kwargs.every)
    self._judge = kwargs.judges[episode % #kwargs.judges + 1]
    self._judge:prepare(episode % 2 + 1, 4)
    -- one record per apple (ids 2..6), one more in odd episodes, with a table in the last: a list whose length
    -- and records differ between episodes
    self._objects = {}
    for i = 1, 5 + episode % 2 do
      self._objects[i] = {group = (i + 1) % 2 + 1, extra = i == 6 and {x = 1} or nil}
    end
  end

  function api:nextMap()
    return make_map.makeMap{mapName = 'quest', mapEntityLayer = '********\n*PAAAAA*\n********'}
  end

  function api:_spare()   -- the records past the fifth (one in odd episodes), walked and counted
    local n = 0
    for _, object in ipairs(self._objects) do
      n = n + 1
    end
    return n - 5 + (#self._objects - n)
  end

  function api:pickup(id)
    return self._judge:judge{group = self._objects[id - 1].group, worth = self._alarm:rings() + self:_spare()}
  end

  function api:hasEpisodeFinished(seconds)
    self._alarm:tick(seconds)
    if kwargs.hasEpisodeFinished then
      return kwargs.hasEpisodeFinished(seconds)
    end
  end

  time_limit.decorate(api, kwargs.seconds)
  return api
end

return factory
