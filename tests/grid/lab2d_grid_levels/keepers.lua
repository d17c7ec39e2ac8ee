--[[ Pieces that keep their own tables: Lab2D's per-piece user state (grid:setUserState, grid:userState).

Two players walk a walled room. Each player's piece holds a table that start gives it with setUserState: its
reward, coins, a bonus (a float in odd episodes), its index, the actions discreteActions writes into it (a
table inside the table) and a row of a matrix made on the host (a tensor view). Its update reads the actions
there and moves (and zaps a beam). Walking onto a coin adds the bonus to the player's reward; every third coin
the player's table is replaced by a new one (+5 at once). A zapped player loses its bonus and the zapper 1,
and the zapped player's row counts who zapped it. Each step's reward is what the tables hold, which advance
then sets back to 0. Observations: the grid's text and layers, the matrix, each player's reward and coins.
]]
local grid_world = require 'system.grid_world'
local random = require 'system.random'
local tensor = require 'system.tensor'

local COMPASS = {'N', 'E', 'S', 'W'}
local MAP = [[
#######
#c  c #
# c  c#
#  cc #
#c   c#
#######
]]

local api = {}

function api:init(kwargs)
  self._world = grid_world.World{
      renderOrder = {'items', 'pieces', 'beams'},
      updateOrder = {{name = 'move1', func = 'move'}, {name = 'move2', func = 'move'}},
      hits = {zap = {layer = 'beams', sprite = 'Zap'}},
      states = {
          wall = {layer = 'pieces', sprite = 'Wall'},
          coin = {layer = 'items', sprite = 'Coin'},
          spent = {layer = 'items'},
          ['player.1'] = {layer = 'pieces', sprite = 'P1', groups = {'p1'}, contact = 'avatar'},
          ['player.2'] = {layer = 'pieces', sprite = 'P2', groups = {'p2'}, contact = 'avatar'},
      },
  }
  self._view = self._world:createView{left = 0, right = 6, forward = 0, backward = 5}
  self._zaps = tensor.Int32Tensor(2, 2)
end

function api:observationSpec()
  return {
      {name = 'WORLD.TEXT', type = 'String', shape = {0}},
      {name = 'WORLD.LAYER', type = 'tensor.Int32Tensor', shape = {6, 7, 3}},
      {name = 'ZAPS', type = 'tensor.Int32Tensor', shape = {2, 2}},
      {name = '1.REWARD', type = 'Doubles', shape = {}},
      {name = '2.REWARD', type = 'Doubles', shape = {}},
      {name = 'COINS', type = 'tensor.Int32Tensor', shape = {2}},
  }
end

function api:observation(index)
  local grid = self._grid
  if index == 1 then
    return tostring(grid)
  elseif index == 2 then
    return self._view:observation{grid = grid}
  elseif index == 3 then
    return self._zaps
  elseif index == 6 then
    return tensor.Int32Tensor{grid:userState(self._players[1]).coins, grid:userState(self._players[2]).coins}
  end
  return grid:userState(self._players[index - 3]).reward
end

function api:discreteActionSpec()
  return {{name = '1.move', min = 0, max = 4}, {name = '1.zap', min = 0, max = 1},
          {name = '2.move', min = 0, max = 4}, {name = '2.zap', min = 0, max = 1}}
end

function api:discreteActions(actions)
  for i = 1, 2 do
    local acts = self._grid:userState(self._players[i]).actions
    acts.move = actions[2 * i - 1]
    acts.zap = actions[2 * i]
  end
end

local function callbacks()
  local player = {onUpdate = {}, onHit = {}}
  function player.onUpdate.move(grid, piece)
    local state = grid:userState(piece)
    local actions = state.actions
    if actions.move ~= 0 then
      grid:setOrientation(piece, COMPASS[actions.move])
      grid:moveRel(piece, 'N')
    end
    if actions.zap == 1 then
      grid:hitBeam(piece, 'zap', 3, 0)
    end
  end
  function player.onHit.zap(grid, target, zapper)
    local zapperState, targetState = grid:userState(zapper), grid:userState(target)
    zapperState.reward = zapperState.reward - 1
    targetState.reward = targetState.reward - targetState.bonus
    targetState.zappedBy(zapperState.index):add(1)
    return true
  end
  local coin = {onContact = {avatar = {}}}
  function coin.onContact.avatar.enter(grid, coinPiece, avatarPiece)
    local state = grid:userState(avatarPiece)
    if grid:userState(coinPiece) == nil then   -- a coin holds no table
      state.reward = state.reward + state.bonus
      state.coins = state.coins + 1
    end
    grid:setState(coinPiece, 'spent')
    if state.coins == 3 then
      grid:setUserState(avatarPiece, {
          reward = state.reward + 5, coins = 0, bonus = state.bonus, index = state.index,
          actions = {move = 0, zap = 0}, zappedBy = state.zappedBy,
      })
    end
  end
  return {wall = {onHit = true}, coin = coin, ['player.1'] = player, ['player.2'] = player}
end

function api:start(episode, seed)
  if self._grid then
    self._grid:destroy()
  end
  self._zaps:fill(0)
  self._grid = self._world:createGrid{layout = MAP, stateMap = {['#'] = 'wall', c = 'coin'},
                                      stateCallbacks = callbacks()}
  local grid, zaps = self._grid, self._zaps
  local function player(i)
    local piece = grid:createPiece('player.' .. i, {pos = {3, 3 * i - 2}, orientation = COMPASS[i + 1]})
    grid:setUserState(piece, {
        reward = 0, coins = 0, bonus = 1 + (episode % 2) * 0.5, index = i,
        actions = {move = 0, zap = 0}, zappedBy = zaps(i),
    })
    return piece
  end
  self._players = {player(1), player(2)}
  self._grid:setUpdater{update = 'move1', group = 'p1'}
  self._grid:setUpdater{update = 'move2', group = 'p2'}
end

function api:advance(steps)
  for i = 1, 2 do
    self._grid:userState(self._players[i]).reward = 0
  end
  self._grid:update(random)
  local reward = 0
  for _, piece in ipairs(self._players) do
    reward = reward + self._grid:userState(piece).reward
  end
  return steps < 14, reward
end

return api
