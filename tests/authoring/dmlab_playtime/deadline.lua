-- The episode ends a moment after the second pickup. Two api fields are nil until play sets them, as
-- DMLab's factories keep the clock: `_now` (hasEpisodeFinished stores the time it is given) and
-- `_endsAt` (pickup sets it from `_now`; nil means no deadline yet).
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}
local NEEDED = 2
local GRACE = 0.04   -- seconds: between two and three frames at 60 per second

function api:start(episode, seed)
  api._taken = 0
  api._endsAt = nil
end

function api:nextMap()
  return make_map.makeMap{mapName = 'deadline', mapEntityLayer = '*******\n*PAAAA*\n*******'}
end

function api:pickup(id)
  api._taken = api._taken + 1
  if api._taken >= NEEDED and api._endsAt == nil then
    api._endsAt = api._now + GRACE
    game:addScore(10)
  end
end

function api:hasEpisodeFinished(seconds)
  api._now = seconds
  return api._endsAt and seconds > api._endsAt
end

return api
