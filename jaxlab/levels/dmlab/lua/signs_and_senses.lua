-- The remaining callbacks:
--   commandLine          engine commands (not modelled: the compiler warns)
--   init                 reads the 'order' setting
--   updateSpawnVars      lemons become strawberries, the apple with id 2 is
--                        removed, and the goal moves half a cell east
--   customObservationSpec / customObservation
--                        ORDER (bytes, the text of the order) and GOAL_XY
--                        (doubles, where the goal is this episode)
--   screenMessages       the order, centred on the screen
--   addBots              two bots (carried in the level for later use)
local make_map = require 'common.make_map'
local tensor = require 'dmlab.system.tensor'
local screen_message = require 'common.screen_message'

local ROOM = [[
*******
*P A L*
*     *
*A   G*
*******
]]

local api = {}
local order = 'Find the goal!'
local goal_xy = {0, 0}

function api:commandLine(old_command_line)
  return old_command_line .. ' +set r_fullscreen "0"'
end

function api:init(settings)
  order = settings.order or order
end

function api:nextMap()
  return make_map.makeMap{mapName = 'signs_room', mapEntityLayer = ROOM, pickups = {L = 'lemon_reward'}}
end

function api:updateSpawnVars(spawn_vars)
  if spawn_vars.classname == 'lemon_reward' then
    spawn_vars.classname = 'strawberry_reward'
  elseif spawn_vars.classname == 'apple_reward' and spawn_vars.id == '2' then
    return nil
  elseif spawn_vars.classname == 'goal' then
    local x, y, z = spawn_vars.origin:match('(%S+) (%S+) (%S+)')
    x = tonumber(x) + 50
    spawn_vars.origin = x .. ' ' .. y .. ' ' .. z
    goal_xy = {x, tonumber(y)}
  end
  return spawn_vars
end

function api:customObservationSpec()
  return {
      {name = 'ORDER', type = 'bytes', shape = {0}},
      {name = 'GOAL_XY', type = 'doubles', shape = {2}},
  }
end

function api:customObservation(name)
  if name == 'ORDER' then
    return tensor.ByteTensor{order:byte(1, -1)}
  elseif name == 'GOAL_XY' then
    return tensor.Tensor{goal_xy[1], goal_xy[2]}
  end
end

function api:screenMessages(args)
  return {{
      message = order,
      x = args.width / 2,
      y = (args.height - args.line_height) / 2,
      alignment = screen_message.ALIGN_CENTER,
  }}
end

function api:addBots()
  return {{name = 'Ada', skill = 2.0}, {name = 'Grace', skill = 4.0}}
end

return api
