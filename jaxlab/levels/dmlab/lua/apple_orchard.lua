-- An orchard in a small maze. Shows the pickup callbacks:
--   createPickup   a custom 'golden_apple' class worth 5
--   pickup         apples grow back after 2 s; a golden apple adds a bonus
--                  of 3 with game:addScore and then ends the map
--   canPickup      the apple with id 3 is out of reach
--   hasEpisodeFinished  episodes last 30 s (or the 'seconds' setting)
local make_map = require 'common.make_map'
local pickups = require 'common.pickups'
local game = require 'dmlab.system.game'

local ORCHARD = [[
*********
*P  A  A*
* *** * *
*A  * *O*
*** * * *
*A    *A*
*********
]]

local api = {}
local seconds = 30

function api:init(settings)
  seconds = tonumber(settings.seconds) or seconds
end

function api:nextMap()
  return make_map.makeMap{
      mapName = 'apple_orchard',
      mapEntityLayer = ORCHARD,
      pickups = {O = 'golden_apple'},
  }
end

function api:createPickup(class_name)
  if class_name == 'golden_apple' then
    return {
        name = 'Golden apple',
        class_name = 'golden_apple',
        model_name = 'models/apple_reward.md3',
        quantity = 5,
        type = pickups.type.REWARD,
    }
  end
end

function api:canPickup(id)
  return id ~= 3
end

function api:pickup(id)
  if id == 5 then          -- the golden apple (5th entity in reading order)
    game:addScore(3)
    game:finishMap()
    return nil
  end
  return 2                 -- apples grow back after 2 seconds
end

function api:hasEpisodeFinished(time_seconds)
  return time_seconds >= seconds
end

return api
