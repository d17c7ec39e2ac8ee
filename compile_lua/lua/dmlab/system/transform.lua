--[[ dmlab.system.transform: 4x4 homogeneous transformation matrices (column vectors) as
tensors, for level scripts.

    local transform = require 'dmlab.system.transform'
    transform.translate{x, y, z}           -- moves by (x, y, z)
    transform.rotate(degrees, {x, y, z})   -- turns counterclockwise about the axis
    transform.rotateX(degrees)             -- (and rotateY, rotateZ) about one axis
    transform.scale{sx, sy, sz}            -- scales each coordinate

Each returns a new 4x4 tensor.FloatTensor holding the matrix's coefficients column by
column (column-major, as DeepMind Lab's common.transform says): row i of the tensor is
column i of the matrix, so t(4) is {x, y, z, 1} for a translation. The tensor is the
matrix's transpose: for transforms a and b, a:mmul(b) holds the matrix B * A, the
transform that applies a first, then b. The rotation axis need not be of length 1 (it is
normalised); it must not be zero.
]]

local tensor = require 'dmlab.system.tensor'

local transform = {}

local mtype, rad, sin, cos, sqrt = math.type, math.rad, math.sin, math.cos, math.sqrt

-- A vector of three numbers, or an error at the caller of the public function.
local function vector(v, what)
  if type(v) ~= 'table' or mtype(v[1]) == nil or mtype(v[2]) == nil or mtype(v[3]) == nil then
    error(('transform.%s: expected a table of three numbers, got %s'):format(
        what, type(v) == 'table' and '{' .. table.concat({tostring(v[1]), tostring(v[2]),
                                                          tostring(v[3])}, ', ') .. '}'
        or type(v)), 3)
  end
  return v[1], v[2], v[3]
end

-- The tensor of the matrix whose upper 3x4 rows are given (the last row is 0, 0, 0, 1).
local function of_rows(m)
  m[4] = {0, 0, 0, 1}
  local columns = {}
  for i = 1, 4 do columns[i] = {m[1][i], m[2][i], m[3][i], m[4][i]} end
  return tensor.FloatTensor(columns)
end

function transform.translate(offset)
  local x, y, z = vector(offset, 'translate')
  return of_rows{{1, 0, 0, x}, {0, 1, 0, y}, {0, 0, 1, z}}
end

function transform.scale(factors)
  local x, y, z = vector(factors, 'scale')
  return of_rows{{x, 0, 0, 0}, {0, y, 0, 0}, {0, 0, z, 0}}
end

local function rotation(degrees, x, y, z, what)
  if mtype(degrees) == nil then
    error(('transform.%s: the angle (degrees) must be a number, got %s'):format(
        what, type(degrees)), 3)
  end
  local length = sqrt(x * x + y * y + z * z)
  if not (length > 0 and length < math.huge) then
    error(('transform.%s: the axis must be a finite non-zero vector'):format(what), 3)
  end
  x, y, z = x / length, y / length, z / length
  local c, s = cos(rad(degrees)), sin(rad(degrees))
  local t = 1 - c
  return of_rows{
    {c + x * x * t, x * y * t - z * s, x * z * t + y * s, 0},
    {y * x * t + z * s, c + y * y * t, y * z * t - x * s, 0},
    {z * x * t - y * s, z * y * t + x * s, c + z * z * t, 0},
  }
end

function transform.rotate(degrees, axis)
  local x, y, z = vector(axis, 'rotate')
  return (rotation(degrees, x, y, z, 'rotate'))
end

function transform.rotateX(degrees) return (rotation(degrees, 1, 0, 0, 'rotateX')) end
function transform.rotateY(degrees) return (rotation(degrees, 0, 1, 0, 'rotateY')) end
function transform.rotateZ(degrees) return (rotation(degrees, 0, 0, 1, 'rotateZ')) end

return transform
