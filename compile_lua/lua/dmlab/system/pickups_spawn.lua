--[[ dmlab.system.pickups_spawn: entities a level script adds to the map while it plays.

`pickups_spawn:spawn(spawnVars)` spawns the entity `spawnVars` (a table of spawn vars with a `classname`,
as `api:extraEntities` returns them) into the map. The compiler asks `api:pickup(id)` ahead of time for
every pickup: the entities it spawns there become pickups of the level that appear once pickup `id` is
taken. A spawn anywhere else is an error.
]]
local pickups_spawn = {}

local spawned = {}
local recording = false

function pickups_spawn:spawn(spawnVars)
  if type(spawnVars) ~= 'table' then
    error('pickups_spawn:spawn expects a table of spawn vars, got ' .. type(spawnVars), 2)
  end
  if type(spawnVars.classname) ~= 'string' or spawnVars.classname == '' then
    error('pickups_spawn:spawn: the spawn vars need a classname (a string)', 2)
  end
  if not recording then
    error('pickups_spawn:spawn: jaxlab spawns pickups only from api:pickup, which it asks ahead of time '
          .. 'for every pickup', 2)
  end
  local copy = {}
  for k, v in pairs(spawnVars) do
    if type(k) ~= 'string' or (type(v) ~= 'string' and type(v) ~= 'number') then
      error('pickups_spawn:spawn: spawn var ' .. tostring(k) .. ' = ' .. tostring(v)
            .. '; keys and values are strings', 2)
    end
    copy[k] = tostring(v)
  end
  spawned[#spawned + 1] = copy
end

-- For the compiler: start recording the spawns (`on`), or stop and return those recorded, oldest first.
function pickups_spawn._record(on)
  local taken = spawned
  spawned, recording = {}, on
  return taken
end

return pickups_spawn
