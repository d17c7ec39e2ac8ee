-- A level factory in the style of DeepMind Lab's: the api and its callbacks are closures made by
-- createLevelApi, whose locals (and its argument) are their play-time state and constants.
local game = require 'dmlab.system.game'
local make_map = require 'common.make_map'
local random = require 'common.random'
local stop_watch = require 'decorators.stop_watch'

local factory = {}

local BONUS = 10

function factory.createLevelApi(kwargs)
  local api = {}
  local taken = 0

  function api:start(episode, seed)
    random:seed(seed)
    taken = 0
    api._last = -1
  end

  function api:nextMap()
    return make_map.makeMap{mapName = 'row', mapEntityLayer = '*******\n*PAAAA*\n*******'}
  end

  function api:pickup(id)
    taken = taken + 1
    api._last = id
    if taken == kwargs.bonusAt then
      game:addScore(BONUS)
    end
    if taken >= kwargs.finishAfter then
      game:finishMap()
    end
  end

  stop_watch.decorate(api, kwargs.seconds)
  return api
end

return factory
