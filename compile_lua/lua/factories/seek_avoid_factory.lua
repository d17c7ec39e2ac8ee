-- factories.seek_avoid_factory: an arena of pickups to seek or avoid.
--
--   local factory = require 'factories.seek_avoid_factory'
--   return factory.createLevelApi{mapName = 'seekavoid_arena_01', episodeLengthSeconds = 20}
--
-- kwargs:
--   mapName              a built-in map, or the name to register mapText under
--   mapText              optional entity layer (then mapVariationsLayer and
--                        pickups {char = class_name} may be given too)
--   episodeLengthSeconds episode length (default 20)
--   respawnSeconds       if set, every pickup reappears this long after it is taken
local make_map = require 'common.make_map'
local episode_length = require 'factories._episode_length'

local factory = {}

function factory.createLevelApi(kwargs)
  assert(type(kwargs) == 'table', 'createLevelApi expects a table of options')
  assert(kwargs.mapName, 'createLevelApi: mapName is required')
  local episode_seconds = episode_length.seconds(kwargs.episodeLengthSeconds or 20,
                                                'createLevelApi: episodeLengthSeconds', 2)
  local api = {}

  function api:init(settings)
    if settings.episodeLengthSeconds then
      episode_seconds = episode_length.seconds(settings.episodeLengthSeconds, 'setting episodeLengthSeconds', 1)
    end
  end

  function api:nextMap()
    if kwargs.mapText then
      return make_map.makeMap{
          mapName = kwargs.mapName,
          mapEntityLayer = kwargs.mapText,
          mapVariationsLayer = kwargs.mapVariationsLayer,
          pickups = kwargs.pickups,
      }
    end
    return kwargs.mapName
  end

  if kwargs.respawnSeconds then
    function api:pickup(spawn_id)
      return kwargs.respawnSeconds
    end
  end

  function api:hasEpisodeFinished(time_seconds)
    return time_seconds >= episode_seconds
  end

  return api
end

return factory
