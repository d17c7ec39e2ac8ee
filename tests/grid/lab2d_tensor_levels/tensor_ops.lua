-- A raw-API Lab2D level whose state and observations are tensors changed every frame through views,
-- scalar, table and component operations, conversions and reductions (jaxlab's tests/grid).
local tensor = require 'system.tensor'

local api = {}

function api:observationSpec()
  return {
      {name = 'GRID', type = 'tensor.ByteTensor', shape = {3, 4}},
      {name = 'COUNTS', type = 'tensor.Int32Tensor', shape = {4}},
      {name = 'WIDE', type = 'tensor.Int64Tensor', shape = {2, 3}},
      {name = 'FIELD', type = 'tensor.DoubleTensor', shape = {3, 2}},
      {name = 'TOTAL', type = 'tensor.DoubleTensor', shape = {}},
      {name = 'COLUMN_MAX', type = 'tensor.DoubleTensor', shape = {2}},
  }
end

function api:start(episode, seed)
  self.frame = 0
  self.grid = tensor.ByteTensor(3, 4)
  self.counts = tensor.Int32Tensor{range = {4}}
  self.field = tensor.DoubleTensor{{0.5, 1}, {1.5, 2}, {2.5, 3}}
end

function api:advance(frame)
  self.frame = self.frame + 1
  self.grid(self.frame % 3 + 1):add(60)
  self.grid:select(2, self.frame % 4 + 1):fill(self.frame * 7)
  self.counts:mul(-2):add(self.frame + 0.5)
  self.field:transpose(1, 2):narrow(2, 2, 2):div{2, -4}
  self.field:reverse(1)(1):add{self.frame, 1}
  return self.frame < 10, 0
end

function api:observation(idx)
  if idx == 1 then return self.grid end
  if idx == 2 then return self.counts end
  if idx == 3 then
    local wide = tensor.Int64Tensor(2, 3)
    wide(1):copy(self.counts:narrow(1, 2, 3):int64())
    wide(2):fill{self.frame, -self.frame, 7}
    return wide:cmul(tensor.Int64Tensor{{1, 2, 3}, {4, 5, 6}})
  end
  if idx == 4 then return self.field end
  if idx == 5 then return self.grid:sum() + self.field:clone():round():product() end
  return self.field:max(1)
end

return api
