-- A foraging level on DeepMind Lab's built natlab maps: mushrooms pay 1, lifted as DMLab's factory lifts them.
local pickups = require 'common.pickups'
local random = require 'common.random'
local api = {}
local MAPS = {}
for i = 1, 3 do MAPS[i] = string.format('natlab_forage_stm_%03d', i + 10) end

function api:start(episode, seed)
  random:seed(seed)
end

function api:nextMap()
  return MAPS[random:uniformInt(1, #MAPS)]
end

function api:createPickup(classname)
  if classname == 'frag_mushroom_desert_01a' then
    return {name = 'Mushroom', classname = classname, model = 'mushroom_reward', quantity = 1,
            type = pickups.type.REWARD}
  end
  return pickups.defaults[classname]
end

function api:updateSpawnVars(spawnVars)
  if spawnVars.classname == 'frag_mushroom_desert_01a' then
    local x, y, z = spawnVars.origin:match('(%S+) (%S+) (%S+)')
    spawnVars.origin = x .. ' ' .. y .. ' ' .. (tonumber(z) + 20)
  end
  return spawnVars
end

function api:hasEpisodeFinished(t) return t >= 120 end

return api
