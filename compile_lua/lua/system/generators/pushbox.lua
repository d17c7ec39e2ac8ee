--[[ system.generators.pushbox, Lab2D's Sokoban room generator, as the compile's host sandbox sees it.

pushbox.generate{seed =, width =, height =, numBoxes =, roomSteps =} makes a room at play time (in
api:start, compiled onto the device), where jaxlab's own generator (jaxlab.levels.lab2d.pushbox_rooms)
makes it from the episode's key: a room of the same kind (walls '*', player 'P', boxes 'B', goals
'X', boxes on goals '&'), solvable by construction, not Lab2D's room for the same seed.
]]
local pushbox = {__jaxlab = 'generators.pushbox'}

function pushbox.generate()
  error('pushbox.generate runs at play time: make rooms in api:start (compiled onto the device)', 2)
end

return pushbox
