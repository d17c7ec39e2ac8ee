-- State kept in tables of named fields: a player record {row, col, facing} set in start and written
-- field by field (in advance and in a helper function), two checkpoint records in a list that the
-- script declares with the api, and a table of booleans.
-- Exercises: records as play-time state and as constants, record fields in expressions and in a
-- tensor observation, a local function writing a field of the api's record.
-- Action `move` 0..4: 0 stay, 1 north, 2 east, 3 south, 4 west, in a 5x5 room (moves stop at its
-- walls); a move also turns the player (facing = the move). Reward +1 the first time each checkpoint
-- is reached; the episode ends when both are, or after 30 frames.
-- Observations: PLAYER Int32Tensor{3} (row, col, facing) and REACHED (checkpoints reached so far).
local tensor = require 'system.tensor'

local api = {checkpoints = {{row = 1, col = 5}, {row = 5, col = 2}}}
local DROW = {-1, 0, 1, 0}
local DCOL = {0, 1, 0, -1}

local function face(self, move)
  if move > 0 then
    self.player.facing = move
  end
end

function api:observationSpec()
  return {
      {name = 'PLAYER', type = 'tensor.Int32Tensor', shape = {3}},
      {name = 'REACHED', type = 'tensor.Int32Tensor', shape = {}},
  }
end

function api:discreteActionSpec()
  return {{name = 'move', min = 0, max = 4}}
end

function api:discreteActions(actions)
  self.move = actions[1]
end

function api:start(episode, seed)
  self.player = {row = 3, col = 3, facing = 1}
  self.reached = {false, false}
  self.frames = 0
  self.move = 0
end

function api:advance(frame)
  self.frames = self.frames + 1
  face(self, self.move)
  if self.move > 0 then
    self.player.row = math.max(1, math.min(5, self.player.row + DROW[self.move]))
    self.player.col = math.max(1, math.min(5, self.player.col + DCOL[self.move]))
  end
  local reward = 0
  for i = 1, 2 do
    local checkpoint = self.checkpoints[i]
    if not self.reached[i] and checkpoint.row == self.player.row and checkpoint.col == self.player.col then
      self.reached[i] = true
      reward = reward + 1
    end
  end
  local done = self.reached[1] and self.reached[2]
  return not done and self.frames < 30, reward
end

function api:observation(index)
  if index == 1 then
    return tensor.Int32Tensor{self.player.row, self.player.col, self.player.facing}
  end
  local count = 0
  for i = 1, 2 do
    if self.reached[i] then
      count = count + 1
    end
  end
  return count
end

return api
