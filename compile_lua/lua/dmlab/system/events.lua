--[[ dmlab.system.events: events a level script raises for the user to read (`Lab.events()`).

`events:add(name, obs1, obs2, ...)`: an event named `name` (a string) with observations, each a
string, a ByteTensor or a DoubleTensor. The compiler takes the events raised while a callback runs
ahead of time (`api:start`, `api:nextMap`, ...) and gives them to the episode they belong to.
]]
local events = {}

-- {name = string, observations = {...}} in the order raised, since the compiler last took them
local raised = {}

local function is_tensor(v)
  local mt = getmetatable(v)
  return type(mt) == 'table' and rawget(mt, '__jaxlab_tensor') ~= nil
end

function events:add(name, ...)
  if type(name) ~= 'string' then
    error('events:add expects an event name (a string) first, got ' .. type(name), 2)
  end
  local observations = {}
  for i = 1, select('#', ...) do
    local v = (select(i, ...))
    if type(v) ~= 'string' and not is_tensor(v) then
      error(string.format('events:add(%q, ...): observation %d is a %s; each must be a string, a ByteTensor '
                          .. 'or a DoubleTensor', name, i, type(v)), 2)
    end
    observations[i] = v
  end
  raised[#raised + 1] = {name = name, observations = observations}
end

-- For the compiler: the events raised since the last call, oldest first.
function events._take()
  local taken = raised
  raised = {}
  return taken
end

return events
