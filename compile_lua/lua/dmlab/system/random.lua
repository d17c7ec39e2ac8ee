--[[ dmlab.system.random: the engine's seeded pseudo-random generator, as DeepMind Lab's level scripts
know it (jaxlab's `common.random` is this module; DeepMind Lab's own `common.random` wraps it).

The module is itself a generator (use it with method calls) and independent of
math.random. The sequence depends only on the seed: the SplitMix64 generator
on Lua 5.4's 64-bit integers (wrapping arithmetic, logical shifts). The
compiler seeds it through Sandbox.seed; scripts usually reseed it in
api:start(episode, seed).

    local random = require 'dmlab.system.random'   -- or 'common.random'
    random:seed(7)
    local x = random:uniformInt(1, 6)        -- 1..6 inclusive
    local g = random.new(123)                -- an independent generator
]]

local Random = {}
Random.__index = Random

local GOLDEN = 0x9E3779B97F4A7C15  -- wraps to a negative integer; fine
local MIX1 = 0xBF58476D1CE4E5B9
local MIX2 = 0x94D049BB133111EB
local TWO53 = 1 << 53

local function to_seed(n)
  if type(n) == 'string' then n = tonumber(n) end
  if type(n) ~= 'number' then
    error('random:seed expects a number, got ' .. type(n), 3)
  end
  local i = math.tointeger(n)
  if i == nil then
    if n ~= n or n == math.huge or n == -math.huge then
      error('random:seed expects a finite number', 3)
    end
    -- Non-integral or outside the integer range: keep the integral part
    -- modulo 2^64 so that every number gives some fixed seed.
    i = math.tointeger(math.fmod(math.floor(n), 2.0 ^ 63)) or 0
  end
  return i
end

--- The next 64-bit output (an integer, any sign).
function Random:next64()
  local s = self._state + GOLDEN
  self._state = s
  local z = (s ~ (s >> 30)) * MIX1
  z = (z ~ (z >> 27)) * MIX2
  return z ~ (z >> 31)
end

--- Reseeds this generator; the same seed gives the same sequence.
function Random:seed(n)
  self._state = to_seed(n)
end

--- A float uniform in [0, 1) with 53 random bits.
local function unit(self)
  return (self:next64() >> 11) / TWO53
end

local function integer_arg(v, what)
  local i = math.tointeger(v)
  if i == nil then
    error(('random:%s expects integers, got %s'):format(what, tostring(v)), 3)
  end
  return i
end

--- An integer uniform in [a, b] (both inclusive); b - a must be below 2^53.
function Random:uniformInt(a, b)
  a, b = integer_arg(a, 'uniformInt'), integer_arg(b, 'uniformInt')
  if b < a then
    error(('random:uniformInt(%d, %d): empty range'):format(a, b), 2)
  end
  local n = b - a + 1
  if n <= 0 or n > TWO53 then
    error(('random:uniformInt(%d, %d): range too large'):format(a, b), 2)
  end
  local limit = TWO53 - TWO53 % n  -- rejection keeps the result unbiased
  local r
  repeat
    r = self:next64() >> 11
  until r < limit
  return a + r % n
end

--- A float uniform in [a, b).
function Random:uniformReal(a, b)
  return a + (b - a) * unit(self)
end

--- A normally distributed float (Box-Muller; two draws per call).
function Random:normalDistribution(mean, stddev)
  local u1 = 1.0 - unit(self)  -- in (0, 1]: log is finite
  local u2 = unit(self)
  local z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
  return (mean or 0) + (stddev or 1) * z
end

--- An index 1..#weights drawn with probability proportional to its weight.
function Random:discreteDistribution(weights)
  local total = 0
  for i = 1, #weights do
    if weights[i] < 0 then
      error('random:discreteDistribution: negative weight', 2)
    end
    total = total + weights[i]
  end
  if total <= 0 then
    error('random:discreteDistribution: weights sum to zero', 2)
  end
  local x = unit(self) * total
  for i = 1, #weights do
    x = x - weights[i]
    if x < 0 then return i end
  end
  for i = #weights, 1, -1 do  -- rounding: the last positive weight
    if weights[i] > 0 then return i end
  end
end

--- A uniformly chosen element of `array` (nil when it is empty).
function Random:choice(array)
  local n = #array
  if n == 0 then return nil end
  return array[self:uniformInt(1, n)]
end

--- Shuffles `array` in place (Fisher-Yates) and returns it.
function Random:shuffle(array)
  for i = #array, 2, -1 do
    local j = self:uniformInt(1, i)
    array[i], array[j] = array[j], array[i]
  end
  return array
end

--- The generator itself (DeepMind Lab's common.random wraps an engine generator and gives it back).
function Random:generator()
  return self
end

--- A new independent generator seeded with `n` (default 0).
function Random.new(n)
  local g = setmetatable({}, Random)
  g:seed(n or 0)
  return g
end

return Random.new(0)
