--[[ dmlab.system._tensor_math: dmlab.system.tensor's in-place element-wise methods
(private). Each changes the tensor's elements (and so every view of its storage) and
returns the tensor.

  fill/add/sub/mul/div(v)     v a number, or a table with one number per index of the
                              last dimension (applied to t:select(#shape, i)).
  cadd/csub/cmul/cdiv/copy(u) u a tensor of the same class and number of elements (any
                              shape): element by element in layout order.
  floor/ceil/round()          round (halves away from zero); integer classes unchanged.
  clamp([lo], [hi])           nil leaves that side open.
  apply(f), applyIndexed(f)   f(value) / f(value, {i1, ..., ik}) in layout order; a number
                              returned replaces the element, nil keeps it, and a second
                              result false stops the walk.

Results are converted to the class (dmlab.system._tensor_types). Integer classes divide
by cdiv as integers, truncating toward zero; dividing them by zero is an error.
]]

local view = require 'dmlab.system._tensor_view'

local math_ops = {}

local mtype, floor, ceil = math.type, math.floor, math.ceil
local each_run, gather, spec = view.each_run, view.gather, view.spec

-- Kernels over one run (see view.each_run): v a number, conv nil or a converter.
local SCALAR = {
  fill = function(S, p, step, n, _, v)
    for _ = 1, n do S[p] = v; p = p + step end
  end,
  add = function(S, p, step, n, _, v, conv)
    if conv then for _ = 1, n do S[p] = conv(S[p] + v); p = p + step end
    else for _ = 1, n do S[p] = S[p] + v; p = p + step end end
  end,
  sub = function(S, p, step, n, _, v, conv)
    if conv then for _ = 1, n do S[p] = conv(S[p] - v); p = p + step end
    else for _ = 1, n do S[p] = S[p] - v; p = p + step end end
  end,
  mul = function(S, p, step, n, _, v, conv)
    if conv then for _ = 1, n do S[p] = conv(S[p] * v); p = p + step end
    else for _ = 1, n do S[p] = S[p] * v; p = p + step end end
  end,
  div = function(S, p, step, n, _, v, conv)
    if conv then for _ = 1, n do S[p] = conv(S[p] / v); p = p + step end
    else for _ = 1, n do S[p] = S[p] / v; p = p + step end end
  end,
}

-- a // b truncated toward zero (b ~= 0), for integer classes.
local function quotient(a, b)
  local q = a // b
  if q < 0 and q * b ~= a then q = q + 1 end
  return q
end

-- Kernels with the other tensor's elements in src (j: how many were used so far).
local COMPONENT = {
  copy = function(S, p, step, n, j, src)
    for i = j + 1, j + n do S[p] = src[i]; p = p + step end
    return j + n
  end,
  cadd = function(S, p, step, n, j, src, conv)
    for i = j + 1, j + n do S[p] = conv(S[p] + src[i]); p = p + step end
    return j + n
  end,
  csub = function(S, p, step, n, j, src, conv)
    for i = j + 1, j + n do S[p] = conv(S[p] - src[i]); p = p + step end
    return j + n
  end,
  cmul = function(S, p, step, n, j, src, conv)
    for i = j + 1, j + n do S[p] = conv(S[p] * src[i]); p = p + step end
    return j + n
  end,
  cdiv = function(S, p, step, n, j, src, conv)
    for i = j + 1, j + n do S[p] = conv(S[p] / src[i]); p = p + step end
    return j + n
  end,
  icdiv = function(S, p, step, n, j, src, conv)
    for i = j + 1, j + n do S[p] = conv(quotient(S[p], src[i])); p = p + step end
    return j + n
  end,
}

local function round(v)
  if v >= 0 then
    local f = floor(v)
    if v - f >= 0.5 then f = f + 1 end
    return f + 0.0
  end
  local c = ceil(v)
  if c - v >= 0.5 then c = c - 1 end
  return c + 0.0
end

local function unary_run(S, p, step, n, _, f, conv)
  for _ = 1, n do S[p] = conv(f(S[p])); p = p + step end
end

local function clamp_run(S, p, step, n, _, lo, hi)
  for _ = 1, n do
    local v = S[p]
    if v < lo then S[p] = lo elseif v > hi then S[p] = hi end
    p = p + step
  end
end

-- The element that replaces an element when f returns r (nil: keep it).
local function result(sp, method, r)
  if mtype(r) == nil then
    error(('tensor.%s:%s: the function returned a %s, not a number or nil'):format(
        sp.name, method, type(r)), 0)
  end
  return sp.convert(r)
end

local function apply_run(S, p, step, n, sp, f)
  for _ = 1, n do
    local r, go = f(S[p])
    if r ~= nil then S[p] = result(sp, 'apply', r) end
    if go == false then return sp, true end
    p = p + step
  end
  return sp
end

-- A number argument of a method, or an error at the method's caller.
local function number_arg(v, sp, method, what)
  if mtype(v) == nil then
    error(('tensor.%s:%s: %s must be a number, got %s'):format(sp.name, method, what, type(v)), 3)
  end
  return v
end

--- Installs the element-wise methods in `methods`.
function math_ops.install(methods)
  for name, kernel in pairs(SCALAR) do
    methods[name] = function(self, value)
      local sp = spec(self, name)
      local conv = not sp.exact and sp.convert or nil
      local shape = self._shape
      local values = value
      if type(value) ~= 'table' then values = {number_arg(value, sp, name, 'the value')} end
      if #values == 0 or type(value) == 'table' and #values ~= shape[#shape] then
        error(('tensor.%s:%s: a table needs one number per index of the last dimension ' ..
               '(%d), got %d'):format(sp.name, name, shape[#shape] or 0, #values), 2)
      end
      for i = 1, #values do
        local v = number_arg(values[i], sp, name, 'each value')
        if name == 'fill' then v = sp.convert(v) end
        if name == 'div' and sp.integer and v == 0 then
          error(('tensor.%s:div: division by zero'):format(sp.name), 2)
        end
        local target = type(value) == 'table' and view.select(self, #shape, i) or self
        each_run(target, kernel, nil, v, conv)
      end
      return self
    end
  end

  for name in pairs{copy = 1, cadd = 1, csub = 1, cmul = 1, cdiv = 1} do
    methods[name] = function(self, other)
      local sp = spec(self, name)
      view.same_class(self, other, sp, name)
      local n, m = view.count(self._shape), view.count(other._shape)
      if n ~= m then
        error(('tensor.%s:%s: the tensors have %d and %d elements'):format(sp.name, name, n, m), 2)
      end
      local src = gather(other)
      local kernel = COMPONENT[name]
      if name == 'cdiv' and sp.integer then
        for i = 1, m do
          if src[i] == 0 then error(('tensor.%s:cdiv: division by zero'):format(sp.name), 2) end
        end
        kernel = COMPONENT.icdiv
      end
      each_run(self, kernel, 0, src, sp.convert)
      return self
    end
  end

  for name, f in pairs{floor = floor, ceil = ceil, round = round} do
    methods[name] = function(self)
      local sp = spec(self, name)
      if not sp.integer then each_run(self, unary_run, nil, f, sp.convert) end
      return self
    end
  end

  function methods:clamp(lo, hi)
    local sp = spec(self, 'clamp')
    if lo ~= nil then number_arg(lo, sp, 'clamp', 'the minimum') end
    if hi ~= nil then number_arg(hi, sp, 'clamp', 'the maximum') end
    if lo ~= lo or hi ~= hi or (lo and hi and hi < lo) then
      error(('tensor.%s:clamp: need minimum <= maximum, got %s and %s'):format(
          sp.name, tostring(lo), tostring(hi)), 2)
    end
    lo, hi = lo or -math.huge, hi or math.huge
    if sp.integer then  -- whole bounds within the class's range
      lo = math.max(math.min(ceil(lo), sp.hi), sp.lo)
      hi = math.max(math.min(floor(hi), sp.hi), sp.lo)
    end
    each_run(self, clamp_run, nil, sp.convert(lo), sp.convert(hi))
    return self
  end

  function methods:apply(f)
    local sp = spec(self, 'apply')
    if type(f) ~= 'function' then
      error(('tensor.%s:apply: expected a function, got %s'):format(sp.name, type(f)), 2)
    end
    each_run(self, apply_run, sp, f)
    return self
  end

  function methods:applyIndexed(f)
    local sp = spec(self, 'applyIndexed')
    if type(f) ~= 'function' then
      error(('tensor.%s:applyIndexed: expected a function, got %s'):format(sp.name, type(f)), 2)
    end
    local shape, stride, S = self._shape, self._stride, self._storage
    local rank, n = #shape, view.count(shape)
    local idx, pos = {}, self._offset
    for d = 1, rank do idx[d] = 1 end
    for _ = 1, n do
      local r, go = f(S[pos], table.move(idx, 1, rank, 1, {}))
      if r ~= nil then S[pos] = result(sp, 'applyIndexed', r) end
      if go == false then break end
      local d = rank
      while d > 1 and idx[d] == shape[d] do
        pos = pos - stride[d] * (shape[d] - 1)
        idx[d] = 1
        d = d - 1
      end
      idx[d] = idx[d] + 1
      pos = pos + stride[d]
    end
    return self
  end
end

return math_ops
