--[[ dmlab.system.game_entities: the entities of the running game.

`game_entities:entities({classname, ...})` lists the entities active in the frame being played
(their ids, positions, visibility). Compiling ahead of time, no frame is being played: a script may
require the module (DeepMind Lab's debug observations do, at load), and a call says so.
]]
local game_entities = {}

function game_entities:entities(classnames)
  if classnames ~= nil and type(classnames) ~= 'table' then
    error('game_entities:entities expects a list of class names or nothing, got ' .. type(classnames), 2)
  end
  error('game_entities:entities reads the entities of the frame being played, and jaxlab compiles level '
        .. 'scripts ahead of time: read the map\'s entities in api:updateSpawnVars or api:createPickup instead', 2)
end

return game_entities
