-- The random-goal factory: each episode puts the goal on one P/G cell and
-- the spawn point on a far one.
local factory = require 'factories.random_goal_factory'

local MAZE = [[
***********
*P    *  G*
* **** ** *
*    *    *
**** * ** *
*G   *  P *
***********
]]

return factory.createLevelApi{mapName = 'random_goal_maze', mapText = MAZE, episodeLengthSeconds = 45}
