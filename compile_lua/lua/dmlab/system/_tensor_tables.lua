--[[ dmlab.system._tensor_tables: dmlab.system.tensor's tensors to and from Lua tables and
text (private).

The shape of nested tables is #t, #t[1], #t[1][1], ... down to the first number (at most
20 dimensions), and every table must have the length of its dimension (else "ragged"). Methods: val, toTable, __tostring and tostring.
]]

local view = require 'dmlab.system._tensor_view'

local tables = {}

local mtype, sformat, srep, concat = math.type, string.format, string.rep, table.concat
local MAX_RANK = 20

--- Shape and row-major elements (converted by `convert`) of nested table t (the empty
-- shape for {}); nil and a message when t is not a rectangular nest of numbers.
function tables.flatten(t, convert)
  local shape, level = {}, t
  while type(level) == 'table' do
    if #shape == MAX_RANK then return nil, 'more than 20 levels of tables' end
    shape[#shape + 1] = #level
    if #level == 0 then break end
    level = level[1]
  end
  local data, n, rank = {}, 0, #shape
  local function walk(v, depth)
    if #v ~= shape[depth] then
      return ('ragged: tables at depth %d have lengths %d and %d'):format(depth, shape[depth], #v)
    end
    for i = 1, #v do
      local x = v[i]
      if depth == rank then
        if mtype(x) == nil then
          return ('expected numbers, got a %s'):format(type(x))
        end
        n = n + 1
        data[n] = convert(x)
      elseif type(x) ~= 'table' then
        return ('ragged: a %s where a table was expected'):format(type(x))
      else
        local err = walk(x, depth + 1)
        if err then return err end
      end
    end
    return nil
  end
  if rank == 1 and shape[1] == 0 then return {}, {} end
  if shape[rank] == 0 then return nil, 'ragged: an empty table inside a table' end
  local err = walk(t, 1)
  if err then return nil, err end
  return shape, data
end

--- t's elements as nested tables of its shape ({} for a tensor without dimensions).
function tables.to_table(t)
  local shape, stride, S = t._shape, t._stride, t._storage
  local rank = #shape
  local function build(depth, pos)
    local out, step = {}, stride[depth]
    for i = 1, shape[depth] do
      out[i] = depth == rank and S[pos] or build(depth + 1, pos)
      pos = pos + step
    end
    return out
  end
  return rank == 0 and {} or build(1, t._offset)
end

local function same_shape(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return true
end

local function write_run(S, p, step, n, m, src)
  for i = m + 1, m + n do
    S[p] = src[i]
    p = p + step
  end
  return m + n
end

-- Text of one element, of the shown ones at each dimension when the tensor is elided.
local function text(t, sp, max_elements)
  local shape, stride, S = t._shape, t._stride, t._storage
  local rank, n = #shape, view.count(shape)
  local head = ('[dmlab.system.tensor.%s]\nShape: [%s]'):format(sp.name, concat(shape, ', '))
  if n == 0 then return head .. ' Empty' end
  if n == 1 then return head .. '\n' .. sformat(sp.format, S[t._offset]) end
  local elide = n > max_elements
  local function shown(depth, i)
    return not elide or shape[depth] < 7 or i <= 3 or i > shape[depth] - 3
  end
  local cells, width = {}, 0
  local function collect(depth, pos)
    for i = 1, shape[depth] do
      if shown(depth, i) then
        if depth == rank then
          local s = sformat(sp.format, S[pos])
          cells[#cells + 1] = s
          if #s > width then width = #s end
        else
          collect(depth + 1, pos)
        end
      end
      pos = pos + stride[depth]
    end
  end
  collect(1, t._offset)
  local k = 0
  local function build(depth)
    local parts = {}
    for i = 1, shape[depth] do
      if shown(depth, i) then
        if depth == rank then
          k = k + 1
          parts[#parts + 1] = srep(' ', width - #cells[k]) .. cells[k]
        else
          parts[#parts + 1] = build(depth + 1)
        end
      elseif i == 4 then
        parts[#parts + 1] = '...'
      end
    end
    local sep = depth == rank and ', ' or ',' .. srep('\n', rank - depth) .. srep(' ', depth)
    return '[' .. concat(parts, sep) .. ']'
  end
  return head .. '\n' .. build(1)
end

--- Installs val, toTable, tostring and the __tostring metamethod (tables.tostring).
function tables.install(methods)
  local spec = view.spec

  --- val(): the value of a tensor of shape {1}, else nested tables. val(v): sets that
  -- value, or all values from nested tables of the tensor's shape; returns the tensor.
  function methods:val(v)
    local sp = spec(self, 'val')
    local shape = self._shape
    local single = #shape == 1 and shape[1] == 1
    if v == nil then
      return single and self._storage[self._offset] or tables.to_table(self)
    end
    if single and mtype(v) then
      self._storage[self._offset] = sp.convert(v)
      return self
    end
    if type(v) ~= 'table' then
      error(('tensor.%s:val: expected %s, got %s'):format(
          sp.name, single and 'a number' or 'a table of the tensor\'s shape', type(v)), 2)
    end
    local vshape, data = tables.flatten(v, sp.convert)
    if vshape and not same_shape(vshape, shape) then
      data = ('the table has shape {%s}, the tensor {%s}'):format(
          concat(vshape, ', '), concat(shape, ', '))
      vshape = nil
    end
    if not vshape then error(('tensor.%s:val: %s'):format(sp.name, data), 2) end
    view.each_run(self, write_run, 0, data)
    return self
  end

  function methods:toTable()
    spec(self, 'toTable')
    return tables.to_table(self)
  end

  --- Text of the tensor, eliding the middle of long dimensions when it has more than
  -- max_elements (default 1024; negative: never) elements.
  function methods:tostring(max_elements)
    local sp = spec(self, 'tostring')
    if max_elements ~= nil and mtype(max_elements) == nil then
      error(('tensor.%s:tostring: max_elements must be a number, got %s'):format(
          sp.name, type(max_elements)), 2)
    end
    max_elements = max_elements or 1024
    return text(self, sp, max_elements < 0 and math.huge or max_elements)
  end

  function tables.tostring(self)
    return text(self, spec(self, '__tostring'), 1024)
  end
end

return tables
