-- A door that opens once, for the colour of the key the player carries: updateSpawnVars names the door's
-- colour by its target name (api._doors), taking the apple (the key) sets the carried colour, canTrigger
-- compares them, and trigger marks the door opened in a table that starts empty and that play writes at
-- the door's name (api._opened). Once opened, canTrigger keeps it shut.
-- api._fired: a field nil until trigger sets it.
local make_map = require 'common.make_map'

local api = {}

function api:start(episode, seed)
  api._doors = {}
  api._opened = {}
end

function api:nextMap()
  return make_map.makeMap{mapName = 'opened_once', mapEntityLayer = '*********\n*P A I  *\n*********'}
end

function api:updateSpawnVars(spawnVars)
  if spawnVars.classname == 'func_door' then
    api._doors[spawnVars.targetname] = 'red'
  end
  return spawnVars
end

function api:pickup(id)
  api._carried = 'red'
end

function api:canTrigger(spawnId, targetName)
  return not api._opened[targetName] and api._carried == api._doors[targetName]
end

function api:trigger(spawnId, targetName)
  if api._doors[targetName] and not api._opened[targetName] then
    api._opened[targetName] = true
  end
  api._fired = 1   -- a field no callback sets before play
  return false
end

return api
