-- Custom discrete actions: BONUS pays its value and counts the presses (any value but 0); LEAVE finishes
-- the map once three presses are in; the episode ends at the fifth press, or when LEAVE comes above its
-- spec's max (DMLab passes the agent's values as they are).
local make_map = require 'common.make_map'
local game = require 'dmlab.system.game'

local api = {}
local presses = 0
local held

function api:start(episode, seed)
  presses = 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'custom_actions', mapEntityLayer = '*******\n*P    *\n*******'}
end

function api:customDiscreteActionSpec()
  return {{name = 'BONUS', min = -2, max = 3}, {name = 'LEAVE', min = 0, max = 1}}
end

function api:customDiscreteActions(actions)
  held = actions
  if actions[1] ~= 0 then
    presses = presses + 1
    game:addScore(actions[1])
  end
  if actions[2] == 1 and presses >= 3 then
    game:finishMap()
  end
end

function api:hasEpisodeFinished(seconds)
  io.flush()   -- skipped on the device: play prints nothing
  return presses >= 5 or held[2] > 1
end

return api
