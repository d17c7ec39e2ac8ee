-- rewardOverride with state: each goal pays its score times the number of goals so far, a lemon pays
-- its score and 1 back (game:addScore), and every third reward event otherwise pays double. The medkit
-- is a HEALTH pickup: it pays no reward, so rewardOverride is not asked about it.
local make_map = require 'common.make_map'
local pickups = require 'common.pickups'
local game = require 'dmlab.system.game'

local api = {}
local events = 0
local goals = 0

function api:start(episode, seed)
  events, goals = 0, 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'rewards', mapEntityLayer = '*******\n*PAGLM*\n*******',
                          pickups = {L = 'lemon_reward', M = 'medkit'}}
end

function api:createPickup(className)
  if className == 'medkit' then
    return {name = 'Medkit', class_name = 'medkit', model_name = 'models/medkit.md3', quantity = 25,
            type = pickups.type.HEALTH}
  end
end

function api:rewardOverride(kwargs)
  events = events + 1
  if kwargs.reason == 'PICKUP_GOAL' then
    goals = goals + 1
    return kwargs.score * goals
  end
  if kwargs.score < 0 then
    game:addScore(1)
    return kwargs.score
  end
  if events % 3 == 0 then
    return kwargs.score * 2
  end
  return kwargs.score
end

return api
