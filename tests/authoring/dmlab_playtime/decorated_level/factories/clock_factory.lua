-- A factory whose level ends a moment after its last apple. The clock and the deadline are api fields
-- that are nil until play sets them; a decorator adds the episode's time limit around hasEpisodeFinished.
local game = require 'dmlab.system.game'
local make_map = require 'common.make_map'
local time_limit = require 'decorators.time_limit'

local factory = {}

function factory.createLevelApi(kwargs)
  local api = {}

  function api:start(episode, seed)
    api._left = kwargs.apples
    api._endsAt = nil
  end

  function api:nextMap()
    return make_map.makeMap{mapName = 'clock', mapEntityLayer = '*******\n*PAAAA*\n*******'}
  end

  function api:pickup(id)
    api._left = api._left - 1
    if api._left == 0 then
      api._endsAt = api._clock + kwargs.grace
    end
  end

  function api:hasEpisodeFinished(seconds)
    api._clock = seconds
    return api._endsAt ~= nil and seconds > api._endsAt
  end

  time_limit.decorate(api, kwargs.seconds)
  return api
end

return factory
