-- modifyControl with state: the view turns the other way every fourth frame and looks half as far up or
-- down; firing freezes the player (crouched) for three frames; jumping adds 64 to the forward move (DMLab
-- reads the move into a signed char, so 127 + 64 wraps around to -65).
local make_map = require 'common.make_map'

local api = {}
local frames = 0
local frozen = 0

function api:start(episode, seed)
  frames, frozen = 0, 0
end

function api:nextMap()
  return make_map.makeMap{mapName = 'controls', mapEntityLayer = '*****\n*P  *\n*****'}
end

function api:modifyControl(actions)
  frames = frames + 1
  if frames % 4 == 0 then
    actions.lookLeftRight = -actions.lookLeftRight
  end
  actions.lookDownUp = actions.lookDownUp * 0.5
  if actions.buttonsDown > 0 and frozen == 0 then
    frozen = 3
  end
  if frozen > 0 then
    frozen = frozen - 1
    actions.moveBackForward = 0
    actions.strafeLeftRight = 0
    actions.crouchJump = -127
    actions.buttonsDown = 0
  elseif actions.crouchJump > 0 then
    actions.moveBackForward = actions.moveBackForward + 64
  end
  return actions
end

return api
