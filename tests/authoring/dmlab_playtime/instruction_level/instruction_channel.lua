-- A decorator in the style of DeepMind Lab's: it lists an INSTR observation, answers it from a local of this
-- module, and gives the api a setter for that local.
local channel = {}

local current = ''

function channel.decorate(api)
  local spec = api.customObservationSpec
  function api:customObservationSpec()
    local specs = spec and spec(api) or {}
    specs[#specs + 1] = {name = 'INSTR', type = 'String', shape = {0}}
    return specs
  end

  local observation = api.customObservation
  function api:customObservation(name)
    if name == 'INSTR' then
      return current
    end
    return observation and observation(api, name)
  end

  function api.setInstruction(text)
    current = text
  end
end

return channel
