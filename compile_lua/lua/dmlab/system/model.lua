--[[ dmlab.system.model: 3D models a level script builds for `api:createModel`.

DeepMind Lab draws the models a script makes (cubes, spheres, cones, cylinders, loaded MD3 files and
hierarchies of them under transforms). jaxlab draws its own sprites for pickups, so here each
function only checks its arguments and returns a description of the model (a table with `kind` and
the arguments), which the compiler does not draw; `api:createModel` is not called.
]]
local model = {}

local function describe(kind, args, what)
  if args ~= nil and type(args) ~= 'table' then
    error(string.format('model:%s expects a table of arguments, got %s', what, type(args)), 3)
  end
  local d = {kind = kind}
  for k, v in pairs(args or {}) do d[k] = v end
  return d
end

for _, kind in ipairs{'cube', 'sphere', 'cone', 'cylinder', 'hierarchy'} do
  model[kind] = function(_, args) return describe(kind, args, kind) end
end

function model:loadMD3(path)
  if type(path) ~= 'string' then error('model:loadMD3 expects a file name (a string)', 2) end
  return {kind = 'md3', path = path}
end
model.loadMD = model.loadMD3

function model:saveMD3()
  error('model:saveMD3 writes a file; level scripts compiled by jaxlab write none', 2)
end

return model
