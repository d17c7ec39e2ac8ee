-- modifyControl: moving forward strafes and strafing moves (a swapped control scheme), at half speed
-- (127 // 2 = 63 of DMLab's 127).
local make_map = require 'common.make_map'

local api = {}

function api:nextMap()
  return make_map.makeMap{mapName = 'swap', mapEntityLayer = '*******\n*     *\n*  P  *\n*     *\n*******'}
end

function api:modifyControl(actions)
  local move = actions.moveBackForward
  actions.moveBackForward = actions.strafeLeftRight // 2
  actions.strafeLeftRight = move // 2
  return actions
end

return api
