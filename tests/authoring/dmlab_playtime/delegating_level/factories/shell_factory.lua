-- A factory that makes the api and hands its start and pickups to the level table it is given.
local make_map = require 'common.make_map'

local factory = {}

function factory.createLevelApi(kwargs)
  local api = {}

  function api:start(episode, seed)
    if kwargs.level.start then
      kwargs.level:start(episode, seed)
    end
  end

  function api:nextMap()
    return make_map.makeMap{mapName = 'tally', mapEntityLayer = '*******\n*PAAAA*\n*******'}
  end

  function api:pickup(id)
    if kwargs.level.pickup then
      return kwargs.level:pickup(id)
    end
  end

  return api
end

return factory
