--[[ dmlab.system._tensor_types: the element types of dmlab.system.tensor (private).

One record per tensor class, in TYPES (by class name) and in ORDER:

    name     'ByteTensor', ...            method  'byte', ... (the conversion method)
    dtype    numpy's name for the type     integer true for the integer classes
    convert  number -> stored element      format  string.format pattern for __tostring
    exact    true for DoubleTensor: arithmetic on its elements needs no conversion
    lo, hi   the integer classes' smallest and largest elements

How a Lua number becomes an element:
  DoubleTensor  the number as a float.
  FloatTensor   the number rounded to the nearest float32 (as a Lua float); beyond
                float32's range it becomes +-inf.
  Integer classes (Byte uint8, Char int8, Int16, Int32, Int64): the number is truncated
                toward zero and wrapped modulo 2^bits into the class's range, as
                two's complement: Byte 256 -> 0, -1 -> 255, 3.7 -> 3; Char 200 -> -56.
                NaN and +-inf are errors. Elements are stored as Lua integers.
Anything but a number is an error.
]]

local types = {}

local mtype, floor, ceil, fmod = math.type, math.floor, math.ceil, math.fmod
local tointeger, spack, sunpack = math.tointeger, string.pack, string.unpack
local HUGE = math.huge
local TWO64 = 2.0 ^ 64

local function not_a_number(name, v)
  error(('tensor.%s values must be numbers, got %s'):format(name, type(v)), 0)
end

local function to_double(v)
  if mtype(v) == nil then not_a_number('DoubleTensor', v) end
  return v + 0.0
end

local function to_float(v)
  if mtype(v) == nil then not_a_number('FloatTensor', v) end
  return (sunpack('<f', spack('<f', v)))
end

-- A 64-bit integer from a finite float: truncated, then wrapped modulo 2^64.
local function wrap_float(name, v)
  if v ~= v or v == HUGE or v == -HUGE then
    error(('tensor.%s values must be finite, got %s'):format(name, tostring(v)), 0)
  end
  local i = tointeger(v >= 0 and floor(v) or ceil(v))
  if i then return i end
  local r = fmod(v >= 0 and floor(v) or ceil(v), TWO64)  -- |r| < 2^64, integral
  if r >= 2.0 ^ 63 then r = r - TWO64 elseif r < -2.0 ^ 63 then r = r + TWO64 end
  return tointeger(r)
end

local function integer_converter(name, bits, signed)
  local lo, hi, mask, span
  if bits == 64 then
    lo, hi = math.mininteger, math.maxinteger
  else
    span = 1 << bits
    mask = span - 1
    lo = signed and -(1 << (bits - 1)) or 0
    hi = lo + mask
  end
  return function(v)
    local kind = mtype(v)
    if kind == 'integer' and v >= lo and v <= hi then return v end
    if kind == nil then not_a_number(name, v) end
    local i = kind == 'float' and wrap_float(name, v) or v
    if mask then
      i = i & mask
      if i > hi then i = i - span end
    end
    return i
  end, lo, hi
end

local function class(name, method, dtype, convert, integer)
  local t = {name = name, method = method, dtype = dtype, convert = convert, integer = integer,
             format = integer and '%d' or '%g', exact = dtype == 'float64'}
  types[name] = t
  return t
end

local function integer_class(name, method, dtype, bits, signed)
  local convert, lo, hi = integer_converter(name, bits, signed)
  local t = class(name, method, dtype, convert, true)
  t.lo, t.hi = lo, hi
  return t
end

types.ORDER = {
  integer_class('ByteTensor', 'byte', 'uint8', 8, false),
  integer_class('CharTensor', 'char', 'int8', 8, true),
  integer_class('Int16Tensor', 'int16', 'int16', 16, true),
  integer_class('Int32Tensor', 'int32', 'int32', 32, true),
  integer_class('Int64Tensor', 'int64', 'int64', 64, true),
  class('FloatTensor', 'float', 'float32', to_float, false),
  class('DoubleTensor', 'double', 'float64', to_double, false),
}

return types
