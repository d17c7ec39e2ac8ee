--[[ dmlab.system._tensor_reduce: dmlab.system.tensor's methods that combine elements
(private).

  sum(), product(), lengthSquared()   over all elements, as floats (0, 1, 0 when empty)
  dot(u)                              sum of products with u (same class and number of
                                      elements, any shape), as a float
  mmul(u)                             matrix product of two rank-2 tensors of the same
                                      class, as a new tensor
  shuffle(gen)                        permutes a rank-1 tensor in place with gen's
                                      uniformInt(a, b) (common.random or
                                      dmlab.system.random); returns the tensor
  __eq                                same class, same shape and equal elements
]]

local view = require 'dmlab.system._tensor_view'

local reduce = {}

local spec, each_run, gather, count = view.spec, view.each_run, view.gather, view.count

local function sum_run(S, p, step, n, acc)
  for _ = 1, n do acc = acc + S[p]; p = p + step end
  return acc
end

local function product_run(S, p, step, n, acc)
  for _ = 1, n do acc = acc * S[p]; p = p + step end
  return acc
end

local function squares_run(S, p, step, n, acc)
  for _ = 1, n do
    local v = S[p] + 0.0
    acc = acc + v * v
    p = p + step
  end
  return acc
end

local function dot_run(S, p, step, n, acc, src, j)
  for i = j[1] + 1, j[1] + n do
    acc = acc + (S[p] + 0.0) * src[i]
    p = p + step
  end
  j[1] = j[1] + n
  return acc
end

--- Whether tensors a and b have the same class, shape and elements.
function reduce.equal(a, b)
  local sp = view.SPECS[getmetatable(a)]
  if not sp or getmetatable(b) ~= getmetatable(a) then return false end
  local sa, sb = a._shape, b._shape
  if #sa ~= #sb then return false end
  for i = 1, #sa do
    if sa[i] ~= sb[i] then return false end
  end
  local x, y = gather(a), gather(b)
  for i = 1, #x do
    if x[i] ~= y[i] then return false end
  end
  return true
end

--- Installs the combining methods in `methods`.
function reduce.install(methods)
  function methods:sum()
    spec(self, 'sum')
    return each_run(self, sum_run, 0.0)
  end

  function methods:product()
    spec(self, 'product')
    return each_run(self, product_run, 1.0)
  end

  function methods:lengthSquared()
    spec(self, 'lengthSquared')
    return each_run(self, squares_run, 0.0)
  end

  function methods:dot(other)
    local sp = spec(self, 'dot')
    view.same_class(self, other, sp, 'dot')
    local n, m = count(self._shape), count(other._shape)
    if n ~= m then
      error(('tensor.%s:dot: the tensors have %d and %d elements'):format(sp.name, n, m), 2)
    end
    return each_run(self, dot_run, 0.0, gather(other), {0})
  end

  function methods:mmul(other)
    local sp = spec(self, 'mmul')
    view.same_class(self, other, sp, 'mmul')
    local a, b = self._shape, other._shape
    if #a ~= 2 or #b ~= 2 or a[2] ~= b[1] then
      error(('tensor.%s:mmul: needs matrices of shapes {m, k} and {k, n}, got {%s} and {%s}')
          :format(sp.name, table.concat(a, ', '), table.concat(b, ', ')), 2)
    end
    local m, k, n = a[1], a[2], b[2]
    local x, y, out, conv = gather(self), gather(other), {}, sp.convert
    for i = 0, m - 1 do
      for j = 1, n do
        local acc = 0
        for l = 1, k do acc = acc + x[i * k + l] * y[(l - 1) * n + j] end
        out[i * n + j] = conv(acc)
      end
    end
    return view.new(getmetatable(self), {m, n}, out)
  end

  function methods:shuffle(gen)
    local sp = spec(self, 'shuffle')
    if #self._shape ~= 1 then
      error(('tensor.%s:shuffle: needs a rank-1 tensor, got shape {%s}'):format(
          sp.name, table.concat(self._shape, ', ')), 2)
    end
    local ok, draw = pcall(function() return gen.uniformInt end)
    if not ok or type(draw) ~= 'function' then
      error(('tensor.%s:shuffle: expected a random generator (with uniformInt), got %s')
          :format(sp.name, type(gen)), 2)
    end
    local S, o, s = self._storage, self._offset, self._stride[1]
    for i = self._shape[1], 2, -1 do
      local j = draw(gen, 1, i)
      local pi, pj = o + (i - 1) * s, o + (j - 1) * s
      S[pi], S[pj] = S[pj], S[pi]
    end
    return self
  end
end

return reduce
