--[[ system.tensor, Lab2D's tensor library, as the compile's host sandbox sees it.

A Lab2D raw-API level makes and uses its tensors at play time, in the callbacks compiled onto the
device (start, advance, observation and the *Actions callbacks: see docs/grid_lua.md). The host runs
only the script's main chunk and init, before any episode: a tensor made there would not be play-time
state. So on the host each class exists (the main chunk may name them) and making a tensor is an
error that says where to make it instead.
]]
local tensor = {}

local CLASSES = {'ByteTensor', 'Int32Tensor', 'Int64Tensor', 'DoubleTensor'}

for _, name in ipairs(CLASSES) do
  tensor[name] = setmetatable({}, {
      __call = function()
        error('tensor.' .. name .. ' is made at play time in a compiled Lab2D level: make it in ' ..
              'api:start (or advance, observation), not in the main chunk or init', 2)
      end,
  })
end

return tensor
