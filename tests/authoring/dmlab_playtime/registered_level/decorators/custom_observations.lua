-- Custom observations registered by name, to DeepMind Lab's decorator API: a level calls
-- addSpec(name, type, shape, fn) and decorate(api); the api then lists the specs and answers a
-- registered name with fn(), any other with the level's own customObservation.
local observations = {}
local registry = {}
local specs = {}

function observations.addSpec(name, kind, shape, fn)
  if registry[name] == nil then
    specs[#specs + 1] = {name = name, type = kind, shape = shape}
    registry[name] = fn
  end
end

local function note()
  return 'registered'
end

function observations.decorate(api)
  local init = api.init
  function api:init(params)
    observations.addSpec('NOTE', 'String', {0}, note)
    return init and init(api, params)
  end

  local listed = api.customObservationSpec
  function api:customObservationSpec()
    local all = listed and listed(api) or {}
    for _, spec in ipairs(specs) do
      all[#all + 1] = spec
    end
    return all
  end

  local own = api.customObservation
  function api:customObservation(name)
    local fn = registry[name]
    if fn then
      return fn()
    end
    return own(api, name)
  end
end

return observations
