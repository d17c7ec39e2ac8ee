--[[ dmlab.system._tensor_view: how dmlab.system.tensor lays tensors out (private).

A tensor is a view of a storage, a flat Lua array of elements that views share:

    {_storage = S, _offset = o, _shape = {d1, ..., dk}, _stride = {s1, ..., sk}}

Element (i1, ..., ik) (1-based) is S[o + (i1 - 1) * s1 + ... + (ik - 1) * sk]. A new
tensor is row-major (sk = 1, s(j) = s(j+1) * d(j+1), o = 1); views (select, narrow,
transpose, reverse, reshape, t(i, ...)) change only o, shape and strides. A tensor with
an empty shape, or with an extent 0, has no elements. The metatable of a tensor names
its element type (`__jaxlab_tensor`, numpy's dtype name); the sandbox's Python side reads
the view through these raw fields (compile_lua/lua/_sandbox_prelude.lua, tensor_info).

This module holds the layout: making tensors, walking a view's elements in layout
(row-major) order, and the layout methods. Errors raised at level 3 are meant for the
caller of the public method that called the raising function directly.
]]

local view = {}

local mtype, tointeger = math.type, math.tointeger
local concat, tmove = table.concat, table.move

--- The most elements one tensor may have.
view.MAX_ELEMENTS = 1 << 27

--- Element type record (dmlab.system._tensor_types) by metatable; tensor.lua fills it.
view.SPECS = {}

--- Number of elements of a shape (0 for the empty shape).
function view.count(shape)
  local k = #shape
  if k == 0 then return 0 end
  local n = 1
  for i = 1, k do n = n * shape[i] end
  return n
end

--- A new row-major tensor of metatable mt over storage (a fresh array).
function view.new(mt, shape, storage)
  local stride, s = {}, 1
  for i = #shape, 1, -1 do
    stride[i] = s
    s = s * shape[i]
  end
  return setmetatable({_storage = storage, _offset = 1, _shape = shape, _stride = stride}, mt)
end

-- A view of t's storage with another offset, shape and strides.
local function derive(t, offset, shape, stride)
  return setmetatable({_storage = t._storage, _offset = offset, _shape = shape,
                       _stride = stride}, getmetatable(t))
end

local function copy(list)
  return tmove(list, 1, #list, 1, {})
end

--- The element type of tensor t; an error for anything else (`method` names the call).
function view.spec(t, method)
  local sp = type(t) == 'table' and view.SPECS[getmetatable(t)]
  if not sp then
    error(('tensor method %s called on %s, not a tensor (write t:%s(...))'):format(
        method, type(t), method), 3)
  end
  return sp
end

--- An error unless `other` is a tensor of self's class (sp), naming `method`.
function view.same_class(self, other, sp, method)
  if type(other) ~= 'table' or getmetatable(other) ~= getmetatable(self) then
    local osp = type(other) == 'table' and view.SPECS[getmetatable(other)]
    error(('tensor.%s:%s: expected a tensor.%s, got %s'):format(sp.name, method, sp.name,
        osp and 'a tensor.' .. osp.name or 'a ' .. type(other)), 3)
  end
end

--- A number as DMLab's engine reads an integer (lua_tointeger of Lua 5.1: truncated toward zero); nil for
--- anything else, an infinity or NaN.
function view.truncated(v)
  if mtype(v) == 'float' then
    if v ~= v or v == math.huge or v == -math.huge then return nil end
    v = v < 0 and math.ceil(v) or math.floor(v)
  end
  return mtype(v) and tointeger(v)
end

--- v as an integer in [lo, hi] (``truncated``); else an error naming `what` of `method`.
function view.integer(v, lo, hi, sp, method, what)
  local i = view.truncated(v)
  if i == nil or i < lo or i > hi then
    error(('tensor.%s:%s: %s must be an integer in [%d, %d], got %s'):format(
        sp.name, method, what, lo, hi, tostring(v)), 3)
  end
  return i
end

--- A shape from dimensions given as arguments or as one table.
function view.dims(what, ...)
  local dims = ...
  if select('#', ...) ~= 1 or type(dims) ~= 'table' then dims = {...} end
  local shape, n = {}, 1
  for i = 1, #dims do
    local d = view.truncated(dims[i])
    if d == nil or d < 0 then
      error(('%s: dimensions must be non-negative integers, got %s'):format(
          what, tostring(dims[i])), 3)
    end
    shape[i], n = d, n * d
  end
  if n > view.MAX_ELEMENTS then
    error(('%s: a tensor of shape {%s} has more than %d elements'):format(
        what, concat(shape, ', '), view.MAX_ELEMENTS), 3)
  end
  return shape
end

-- Extents and strides of t's elements with extents of 1 left out and neighbouring
-- dimensions merged where one steps over the whole of the next: one dimension for a
-- contiguous tensor. nil when t has no elements.
local function runs_of(t)
  local shape, stride = t._shape, t._stride
  if #shape == 0 then return nil end
  local cs, ct, k = {}, {}, 0
  for i = 1, #shape do
    local n = shape[i]
    if n == 0 then return nil end
    if n ~= 1 then
      if k > 0 and ct[k] == stride[i] * n then
        cs[k], ct[k] = cs[k] * n, stride[i]
      else
        k = k + 1
        cs[k], ct[k] = n, stride[i]
      end
    end
  end
  if k == 0 then return {1}, {1} end
  return cs, ct
end

--[[ Calls kernel(S, p, step, n, acc, a, b) for each run of t's elements in layout
order (n elements at S[p], S[p + step], ...), threading acc through the calls, and
returns the last acc. A kernel that returns a second value true stops the walk. ]]
function view.each_run(t, kernel, acc, a, b)
  local shape, stride = runs_of(t)
  if not shape then return acc end
  local k, S, pos = #shape, t._storage, t._offset
  local n, step = shape[k], stride[k]
  if k == 1 then return (kernel(S, pos, step, n, acc, a, b)) end
  local idx = {}
  for d = 1, k - 1 do idx[d] = 1 end
  while true do
    local stop
    acc, stop = kernel(S, pos, step, n, acc, a, b)
    if stop then return acc end
    local d = k - 1
    while idx[d] == shape[d] do
      pos = pos - stride[d] * (shape[d] - 1)
      idx[d] = 1
      d = d - 1
      if d == 0 then return acc end
    end
    idx[d] = idx[d] + 1
    pos = pos + stride[d]
  end
end

local function gather_run(S, p, step, n, m, out)
  if step == 1 then
    tmove(S, p, p + n - 1, m + 1, out)
    return m + n
  end
  for _ = 1, n do
    m = m + 1
    out[m] = S[p]
    p = p + step
  end
  return m
end

--- t's elements in layout order, as a new array.
function view.gather(t)
  local out = {}
  view.each_run(t, gather_run, 0, out)
  return out
end

--- The view of t at `index` of dimension `dim` (both checked): one dimension fewer,
-- or shape {1} when t has one dimension.
function view.select(t, dim, index)
  local shape, stride = t._shape, t._stride
  local offset = t._offset + (index - 1) * stride[dim]
  if #shape == 1 then return derive(t, offset, {1}, {stride[1]}) end
  local s, st = {}, {}
  for i = 1, #shape do
    if i ~= dim then
      s[#s + 1], st[#st + 1] = shape[i], stride[i]
    end
  end
  return derive(t, offset, s, st)
end

--- t(i1, i2, ...), the tensors' __call: t:select(1, i1):select(1, i2)...
function view.call(self, ...)
  local sp = view.spec(self, '__call')
  local t = self
  for k = 1, select('#', ...) do
    local i = view.integer((select(k, ...)), 1, t._shape[1] or 0, sp, '__call', 'index ' .. k)
    t = view.select(t, 1, i)
  end
  if t == self then t = derive(self, self._offset, copy(self._shape), copy(self._stride)) end
  return t
end

--- Installs the layout methods and metadata in `methods`.
function view.install(methods)
  local integer, count, spec = view.integer, view.count, view.spec

  function methods:shape() spec(self, 'shape'); return copy(self._shape) end
  function methods:size() spec(self, 'size'); return count(self._shape) end
  function methods:type() return 'tensor.' .. spec(self, 'type').name end
  function methods:ownsStorage() spec(self, 'ownsStorage'); return true end

  function methods:select(dim, index)
    local sp = spec(self, 'select')
    dim = integer(dim, 1, #self._shape, sp, 'select', 'dim')
    index = integer(index, 1, self._shape[dim], sp, 'select', 'index')
    return view.select(self, dim, index)
  end

  function methods:narrow(dim, index, size)
    local sp, shape = spec(self, 'narrow'), self._shape
    dim = integer(dim, 1, #shape, sp, 'narrow', 'dim')
    index = integer(index, 1, shape[dim], sp, 'narrow', 'index')
    size = integer(size, 0, shape[dim] - index + 1, sp, 'narrow', 'size')
    local s = copy(shape)
    s[dim] = size
    return derive(self, self._offset + (index - 1) * self._stride[dim], s, copy(self._stride))
  end

  function methods:transpose(dim1, dim2)
    local sp = spec(self, 'transpose')
    dim1 = integer(dim1, 1, #self._shape, sp, 'transpose', 'dim1')
    dim2 = integer(dim2, 1, #self._shape, sp, 'transpose', 'dim2')
    local s, st = copy(self._shape), copy(self._stride)
    s[dim1], s[dim2] = s[dim2], s[dim1]
    st[dim1], st[dim2] = st[dim2], st[dim1]
    return derive(self, self._offset, s, st)
  end

  function methods:reverse(dim)
    local sp = spec(self, 'reverse')
    dim = integer(dim, 1, #self._shape, sp, 'reverse', 'dim')
    local s, st = copy(self._shape), copy(self._stride)
    local offset = self._offset + math.max(s[dim] - 1, 0) * st[dim]
    st[dim] = -st[dim]
    return derive(self, offset, s, st)
  end

  --- A view with another shape (arguments or one table) of the same number of elements;
  -- the tensor must be contiguous (its elements evenly spaced in layout order).
  function methods:reshape(...)
    local sp = spec(self, 'reshape')
    local shape = view.dims('tensor.' .. sp.name .. ':reshape', ...)
    local n = count(self._shape)
    if count(shape) ~= n then
      error(('tensor.%s:reshape: {%s} holds %d elements, the tensor has %d'):format(
          sp.name, concat(shape, ', '), count(shape), n), 2)
    end
    local runs, steps = runs_of(self)
    if runs and #runs > 1 then
      error(('tensor.%s:reshape: the tensor is not contiguous (a view of shape {%s}); ' ..
             'reshape a clone() of it'):format(sp.name, concat(self._shape, ', ')), 2)
    end
    local t = view.new(getmetatable(self), shape, self._storage)
    local step = steps and steps[1] or 1
    for i = 1, #t._stride do t._stride[i] = t._stride[i] * step end
    t._offset = self._offset
    return t
  end
end

return view
