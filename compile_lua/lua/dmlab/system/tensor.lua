--[[ dmlab.system.tensor: DeepMind Lab's tensor library, in plain Lua for the compile's
sandbox (docs/authoring_lua.md; the API is DeepMind Lab's docs/developers/reference/
tensor.md).

Classes, each a constructor: ByteTensor (uint8), CharTensor (int8), Int16Tensor,
Int32Tensor, Int64Tensor, FloatTensor (float32), DoubleTensor (float64; Tensor is the
same class). How numbers become elements, integer wrap-around included, is in
dmlab.system._tensor_types.

    tensor.DoubleTensor(3, 2)              -- zeros of shape {3, 2} (numbers: dimensions)
    tensor.ByteTensor{{1, 2}, {3, 4}}      -- from nested tables (shape implied)
    tensor.Int64Tensor{range = {2, 9, 3}}  -- {2, 5, 8}: {to}, {from, to} or {from, to, step}
    tensor.ByteTensor(), tensor.ByteTensor{}  -- no dimensions, no elements
    tensor.FloatTensor(other)              -- a converted copy of another tensor
    tensor.ByteTensor.zeros(2, 3), tensor.DoubleTensor.ones{2, 3}

Tensors share storage: views (select, narrow, transpose, reverse, reshape, t(i, j, ...))
write through to the tensor they view. Methods, by module:
  here                    clone(), byte(), char(), int16(), int32(), int64(), float(),
                          double() (new storage, contiguous)
  _tensor_view            shape(), size(), type(), ownsStorage(), the views
  _tensor_tables          val([v]), toTable(), tostring([n]), __tostring
  _tensor_math            fill, add, sub, mul, div, cadd, csub, cmul, cdiv, copy, floor,
                          ceil, round, clamp, apply, applyIndexed (in place, return self)
  _tensor_reduce          sum, product, lengthSquared, dot, mmul, shuffle, __eq
The layout, read by the sandbox's Python side, is in _tensor_view. Not available:
Tensor{file = ...} (the sandbox reads no files). At most view.MAX_ELEMENTS elements.
]]

local types = require 'dmlab.system._tensor_types'
local view = require 'dmlab.system._tensor_view'
local tables = require 'dmlab.system._tensor_tables'
local math_ops = require 'dmlab.system._tensor_math'
local reduce = require 'dmlab.system._tensor_reduce'

local tensor = {}

local mtype, floor, tointeger = math.type, math.floor, math.tointeger
local count, spec = view.count, view.spec

local methods = {}
view.install(methods)
tables.install(methods)
math_ops.install(methods)
reduce.install(methods)

local METATABLES = {}  -- by class name

-- A new tensor of class sp with tensor t's shape and elements (converted to sp).
local function converted(t, sp)
  local data = view.gather(t)
  if view.SPECS[getmetatable(t)] ~= sp then
    local convert = sp.convert
    for i = 1, #data do data[i] = convert(data[i]) end
  end
  return view.new(METATABLES[sp.name], table.move(t._shape, 1, #t._shape, 1, {}), data)
end

for _, sp in ipairs(types.ORDER) do
  methods[sp.method] = function(self)
    spec(self, sp.method)
    return converted(self, sp)
  end
end

function methods:clone()
  return converted(self, spec(self, 'clone'))
end

-- A tensor of class sp and shape filled with value.
local function filled(sp, shape, value)
  local data, v = {}, sp.convert(value)
  for i = 1, count(shape) do data[i] = v end
  return view.new(METATABLES[sp.name], shape, data)
end

-- The tensor of {range = r}, or nil and why not.
local function from_range(sp, r)
  if type(r) ~= 'table' or #r < 1 or #r > 3 then
    return nil, 'range must be {to}, {from, to} or {from, to, step}'
  end
  for i = 1, #r do
    if mtype(r[i]) == nil then return nil, 'range values must be numbers, got ' .. type(r[i]) end
  end
  local conv = sp.convert
  local from, to, step = conv(#r == 1 and 1 or r[1]), conv(r[#r == 1 and 1 or 2]), conv(r[3] or 1)
  if step == 0 then return nil, 'the step must not be zero' end
  local n = floor((to - from) / step)
  if n ~= n or n < 0 then
    return nil, ('no values from %s to %s in steps of %s'):format(
        tostring(from), tostring(to), tostring(step))
  end
  if n >= view.MAX_ELEMENTS then return nil, ('more than %d values'):format(view.MAX_ELEMENTS) end
  local data = {}
  for k = 0, tointeger(n) do data[k + 1] = conv(from + k * step) end
  return view.new(METATABLES[sp.name], {#data}, data)
end

-- The tensor a class's constructor makes from one table argument, or nil and why not.
local function from_table(sp, t)
  if view.SPECS[getmetatable(t)] then return converted(t, sp) end
  local key, keys = nil, 0
  for k in pairs(t) do
    if type(k) == 'string' then key, keys = k, keys + 1 end
  end
  if keys > 1 or keys == 1 and key ~= 'range' and key ~= 'file' then
    return nil, 'the only named constructor is range = {...}'
  elseif key == 'file' then
    return nil, 'file = {...}: the sandbox reads no files'
  elseif key == 'range' then
    return from_range(sp, t.range)
  end
  local shape, data = tables.flatten(t, sp.convert)
  if not shape then return nil, data end
  return view.new(METATABLES[sp.name], shape, data)
end

for _, sp in ipairs(types.ORDER) do
  local mt = {__index = methods, __name = 'tensor.' .. sp.name, __jaxlab_tensor = sp.dtype,
              __tostring = tables.tostring, __eq = reduce.equal, __call = view.call}
  METATABLES[sp.name] = mt
  view.SPECS[mt] = sp
  local what = 'tensor.' .. sp.name

  local class = {}
  --- Zeros (ones) of the given dimensions (arguments or one table).
  function class.zeros(...) return filled(sp, view.dims(what .. '.zeros', ...), 0) end
  function class.ones(...) return filled(sp, view.dims(what .. '.ones', ...), 1) end

  tensor[sp.name] = setmetatable(class, {__call = function(_, ...)
    local nargs, first = select('#', ...), ...
    if type(first) == 'table' then
      if nargs ~= 1 then
        error(('%s{...}: takes one table, got %d arguments'):format(what, nargs), 2)
      end
      local t, err = from_table(sp, first)
      if not t then error(('%s{...}: %s'):format(what, err), 2) end
      return t
    end
    return (filled(sp, view.dims(what .. '(...)', ...), 0))
  end})
end
tensor.Tensor = tensor.DoubleTensor

return tensor
