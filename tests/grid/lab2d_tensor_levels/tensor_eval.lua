-- A raw-API Lab2D level that evaluates a tensor expression written into the property 'expr' and
-- observes its result: VALUES (the elements in layout order, as doubles), SHAPE and KIND.
local tensor = require 'system.tensor'

local api = {}
local values, shape, kind = tensor.DoubleTensor(0), tensor.DoubleTensor(0), ''

function api:observationSpec()
  return {
      {name = 'VALUES', type = 'tensor.DoubleTensor', shape = {-1}},
      {name = 'SHAPE', type = 'tensor.DoubleTensor', shape = {-1}},
      {name = 'KIND', type = 'String'},
  }
end

function api:writeProperty(key, expr)
  local result = assert(loadstring('local tensor = ...; return ' .. expr))(tensor)
  if type(result) == 'number' then
    values, shape, kind = tensor.DoubleTensor{result}, tensor.DoubleTensor(0), 'number'
  else
    values = result:clone():double():reshape{result:size()}
    local dims = result:shape()
    shape = tensor.DoubleTensor(#dims)
    if #dims > 0 then shape:val(dims) end
    kind = tostring(result):match('tensor%.(%w+)Tensor')
  end
  return 0
end

function api:start(episode, seed) end

function api:observation(idx)
  if idx == 1 then return values end
  if idx == 2 then return shape end
  return kind
end

function api:advance(frame) return true, 0 end

return api
