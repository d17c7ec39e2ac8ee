-- Tensor observations: a 4x5 room as a ByteTensor, the player's position as an Int32Tensor{2}.
-- Exercises: a level as a folder (<name>/init.lua), tensor construction, fill, element reads and
-- writes with val, a numeric for loop with fixed bounds, moves blocked by walls.
-- Action `move`: 0 stay, 1 north, 2 east, 3 south, 4 west. Cells: 0 floor, 1 wall, 2 player,
-- 3 a visited floor cell. Reward 1 for each first visit to a cell.
local tensor = require 'system.tensor'

local ROWS, COLS = 4, 5
local DROW = {-1, 0, 1, 0}
local DCOL = {0, 1, 0, -1}

local api = {}

function api:observationSpec()
  return {
      {name = 'ROOM', type = 'tensor.ByteTensor', shape = {ROWS, COLS}},
      {name = 'POSITION', type = 'tensor.Int32Tensor', shape = {2}},
  }
end

function api:discreteActionSpec()
  return {{name = 'move', min = 0, max = 4}}
end

function api:discreteActions(actions)
  self.move = actions[1]
end

function api:start(episode, seed)
  self.room = tensor.ByteTensor(ROWS, COLS):fill(1)
  for row = 2, ROWS - 1 do
    for col = 2, COLS - 1 do
      self.room(row, col):val(0)
    end
  end
  self.position = tensor.Int32Tensor{2, 2}
  self.room(2, 2):val(2)
  self.move = 0
end

function api:advance(frame)
  if self.move == 0 then
    return true, 0
  end
  local row = self.position(1):val()
  local col = self.position(2):val()
  local nextRow = row + DROW[self.move]
  local nextCol = col + DCOL[self.move]
  local cell = self.room(nextRow, nextCol):val()
  if cell == 1 then
    return true, 0
  end
  self.room(row, col):val(3)
  self.room(nextRow, nextCol):val(2)
  self.position(1):val(nextRow)
  self.position(2):val(nextCol)
  if cell == 0 then
    return true, 1
  end
  return true, 0
end

function api:observation(index)
  if index == 1 then
    return self.room
  end
  return self.position
end

return api
