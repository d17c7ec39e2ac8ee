--[[ dmlab.system.tensor: the part of DeepMind Lab's tensor library that level
scripts need for custom observations.

Classes: tensor.DoubleTensor (float64; tensor.Tensor is the same class) and
tensor.ByteTensor (uint8). Construction:

    tensor.Tensor{{1, 2}, {3, 4}}         -- from a (nested, rectangular) table
    tensor.ByteTensor{1, 2, 3}            -- 1-D from a list of numbers
    tensor.ByteTensor(('abc'):byte(1, -1))-- ByteTensor: number arguments are VALUES
    tensor.DoubleTensor(3, 2)             -- DoubleTensor: number arguments are
                                          -- DIMENSIONS (zeros)
    tensor.ByteTensor.zeros(72, 96, 3)    -- zeros of either class, any shape
    tensor.DoubleTensor(other_tensor)     -- a converted copy

ByteTensor values are truncated toward zero and then wrapped modulo 256, as a
C cast to an unsigned byte does: 256 -> 0, -1 -> 255, 3.7 -> 3.

Methods: t:shape() (a new table of dimensions), t:size() (number of
elements), t:type() ('tensor.DoubleTensor' or 'tensor.ByteTensor'),
t:val() / t:val(v) (get / set the value of a one-element tensor),
t:fill(v) (set every element; returns t), t:toTable() (nested table),
t:clone(), t:reshape(dims) (a copy with another shape, same size).

Storage contract (read by compile_lua.sandbox.Sandbox.to_python): a tensor is
a table whose metatable has `__jaxlab_tensor` = 'float64' | 'uint8'; its raw
field `_shape` is an array of dimensions and `_data` a flat row-major array of
numbers.
]]

local tensor = {}

local MAX_ELEMENTS = 1 << 27
local tointeger, floor, ceil = math.tointeger, math.floor, math.ceil

local function to_double(v)
  if type(v) ~= 'number' then
    error('tensor values must be numbers, got ' .. type(v), 0)
  end
  return v + 0.0
end

local function to_byte(v)
  if type(v) ~= 'number' then
    error('tensor values must be numbers, got ' .. type(v), 0)
  end
  local i = tointeger(v)
  if i == nil then
    if v ~= v or v == math.huge or v == -math.huge then
      error('ByteTensor values must be finite, got ' .. tostring(v), 0)
    end
    i = tointeger(v >= 0 and floor(v) or ceil(v))
    if i == nil then  -- beyond the integer range: wrap the float itself
      i = tointeger(math.fmod(v >= 0 and floor(v) or ceil(v), 256.0))
    end
  end
  return i % 256
end

local function count(shape)
  local n = 1
  for i = 1, #shape do n = n * shape[i] end
  return n
end

-- Dimensions from varargs or one table; errors are raised at `level`.
local function dims_of(level, ...)
  local dims = select('#', ...) == 1 and type(...) == 'table' and (...)
      or {...}
  local shape = {}
  for i = 1, #dims do
    local d = tointeger(dims[i])
    if d == nil or d < 0 then
      error(('tensor dimensions must be non-negative integers, got %s'):format(
          tostring(dims[i])), level)
    end
    shape[i] = d
  end
  if count(shape) > MAX_ELEMENTS then
    error(('tensor of shape {%s} is too large'):format(table.concat(shape, ', ')),
          level)
  end
  return shape
end

-- Shape and flat data of a nested table; nil plus message when malformed.
local function flatten(t, convert)
  local shape, level = {}, t
  while type(level) == 'table' do
    shape[#shape + 1] = #level
    if #level == 0 then break end
    level = level[1]
  end
  local data, n = {}, 0
  local function walk(v, depth)
    if depth > #shape then
      if type(v) == 'table' then return 'ragged (too deeply nested)' end
      n = n + 1
      local ok, x = pcall(convert, v)
      if not ok then return x end
      data[n] = x
      return nil
    end
    if type(v) ~= 'table' then return 'ragged (a number where a table was expected)' end
    if #v ~= shape[depth] then
      return ('ragged: dimension %d has lengths %d and %d'):format(depth, shape[depth], #v)
    end
    for i = 1, #v do
      local err = walk(v[i], depth + 1)
      if err then return err end
    end
    return nil
  end
  local err = walk(t, 1)
  if err then return nil, err end
  return shape, data
end

local function make_class(type_name, dtype, convert, varargs_are_values)
  local cls, methods = {}, {}
  local mt = {__index = methods, __name = type_name, __jaxlab_tensor = dtype}

  local function new(shape, data)
    return setmetatable({_shape = shape, _data = data}, mt)
  end

  local function zeros(shape)
    local data, zero = {}, convert(0)
    for i = 1, count(shape) do data[i] = zero end
    return new(shape, data)
  end

  --- Zeros of the given dimensions (varargs or one table).
  function cls.zeros(...)
    return zeros(dims_of(3, ...))
  end

  function methods:shape()
    local s = {}
    for i = 1, #self._shape do s[i] = self._shape[i] end
    return s
  end

  function methods:size()
    return #self._data
  end

  function methods:type()
    return type_name
  end

  function methods:val(v)
    if #self._data ~= 1 then
      error(('%s:val() needs a one-element tensor; this one has %d'):format(
          type_name, #self._data), 2)
    end
    if v == nil then return self._data[1] end
    self._data[1] = convert(v)
    return self
  end

  function methods:fill(v)
    local x = convert(v)
    for i = 1, #self._data do self._data[i] = x end
    return self
  end

  function methods:clone()
    local data = {}
    for i = 1, #self._data do data[i] = self._data[i] end
    return new(self:shape(), data)
  end

  function methods:reshape(...)
    local shape = dims_of(3, ...)
    if count(shape) ~= #self._data then
      error(('cannot reshape %d elements to {%s}'):format(
          #self._data, table.concat(shape, ', ')), 2)
    end
    local t = self:clone()
    t._shape = shape
    return t
  end

  function methods:toTable()
    local data, shape, pos = self._data, self._shape, 0
    if #shape == 0 then return data[1] end
    local function build(depth)
      local out = {}
      for i = 1, shape[depth] do
        if depth == #shape then
          pos = pos + 1
          out[i] = data[pos]
        else
          out[i] = build(depth + 1)
        end
      end
      return out
    end
    return build(1)
  end

  mt.__tostring = function(self)
    local parts = {}
    for i = 1, math.min(#self._data, 8) do parts[i] = tostring(self._data[i]) end
    if #self._data > 8 then parts[#parts + 1] = '...' end
    return ('%s shape {%s}: %s'):format(type_name, table.concat(self._shape, ', '),
                                       table.concat(parts, ' '))
  end

  mt.__eq = function(a, b)
    if getmetatable(a) ~= getmetatable(b) or #a._shape ~= #b._shape
        or #a._data ~= #b._data then
      return false
    end
    for i = 1, #a._shape do
      if a._shape[i] ~= b._shape[i] then return false end
    end
    for i = 1, #a._data do
      if a._data[i] ~= b._data[i] then return false end
    end
    return true
  end

  setmetatable(cls, {__call = function(_, ...)
    local nargs = select('#', ...)
    local first = ...
    if nargs == 0 then return new({0}, {}) end
    if nargs == 1 and type(first) == 'table' then
      local fmt = getmetatable(first)
      if type(fmt) == 'table' and rawget(fmt, '__jaxlab_tensor') then
        local data = {}
        for i = 1, #first._data do data[i] = convert(first._data[i]) end
        return new(first:shape(), data)
      end
      local shape, data = flatten(first, convert)
      if shape == nil then error(type_name .. '{...}: ' .. data, 2) end
      return new(shape, data)
    end
    if varargs_are_values then
      local data = {}
      for i = 1, nargs do
        local ok, x = pcall(convert, (select(i, ...)))
        if not ok then error(type_name .. '(...): ' .. x, 2) end
        data[i] = x
      end
      return new({nargs}, data)
    end
    return zeros(dims_of(3, ...))
  end})
  return cls
end

tensor.DoubleTensor = make_class('tensor.DoubleTensor', 'float64', to_double, false)
tensor.ByteTensor = make_class('tensor.ByteTensor', 'uint8', to_byte, true)
tensor.Tensor = tensor.DoubleTensor

return tensor
