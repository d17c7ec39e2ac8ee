-- A level table whose callbacks the shell factory calls on its behalf: it counts pickups, paying the
-- count, and restarts the map when the needed number is reached.
local game = require 'dmlab.system.game'
local shell = require 'factories.shell_factory'

local level = {}

function level:start(episode, seed)
  level._count = 0
  level._needed = 3
end

function level:pickup(id)
  level._count = level._count + 1
  game:addScore(level._count)
  if level._count >= level._needed then
    level._count = 0
    game:finishMap()
  end
end

return {
    createLevelApi = function() return shell.createLevelApi{level = level} end
}
