-- modifyControl: moving forward strafes and strafing moves (a swapped control scheme).
local make_map = require 'common.make_map'

local api = {}

function api:nextMap()
  return make_map.makeMap{mapName = 'swap', mapEntityLayer = '*******\n*     *\n*  P  *\n*     *\n*******'}
end

function api:modifyControl(actions)
  local move = actions.moveBackForward
  actions.moveBackForward = actions.strafeLeftRight
  actions.strafeLeftRight = move
  return actions
end

return api
