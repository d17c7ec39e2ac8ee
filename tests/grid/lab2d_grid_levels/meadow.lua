--[[ A meadow on a torus: walkers, grass that flowers, flowers that walkers eat.

Walkers step forward every frame (wrapping round the torus) and turn clockwise when blocked. Grass
flowers with probability `growth` per frame once it has been grass for two frames (a `setUpdater`
with a probability and a start frame); a flower that a walker steps on is removed (its ground stays
bare: the grass put back at once finds the flower still there), and `onAdd`/`onRemove` keep the
count of flowers. One rock is removed and one walker made before the first update. Every seventh
frame the first walker is teleported to (0, 5) and turned south. Observations: the text, the count
of flowers, the walkers, and area queries (a disc and a rectangle of ground pieces, a shuffled group
with a count, a position). Settings: `walkers` (1 to 4) and `growth`.
]]
local grid_world = require 'system.grid_world'
local random = require 'system.random'
local tensor = require 'system.tensor'

local LAYOUT = [[
GGGGGGGG
GRGGGGRG
GGGGGGGG
GGGRGGGG
GGGGGGGG
GGGGGGRG
]]
local WALKERS = {
    {pos = {0, 0}, orientation = 'E'},
    {pos = {4, 2}, orientation = 'W'},
    {pos = {2, 4}, orientation = 'N'},
    {pos = {5, 4}, orientation = 'S'},
}
local ORIENTATION_INDEX = {N = 0, E = 1, S = 2, W = 3}

local api = {_walkers = 1, _growth = 0.0, _flowers = 0, _reward = 0, _steps = 30}

function api:init(kwargs)
  self._walkers = tonumber(kwargs.walkers or '1')
  self._growth = tonumber(kwargs.growth or '0')
  self._world = grid_world.World{
      renderOrder = {'ground', 'pieces'},
      updateOrder = {'walk', 'grow'},
      states = {
          walker = {layer = 'pieces', sprite = 'Walker', groups = {'walkers'}, contact = 'walker'},
          rock = {layer = 'pieces', sprite = 'Rock'},
          grass = {layer = 'ground', sprite = 'Grass', groups = {'grass'}},
          flower = {layer = 'ground', sprite = 'Flower'},
      },
  }
end

function api:observationSpec()
  return {
      {name = 'WORLD.TEXT', type = 'String', shape = {0}},
      {name = 'FLOWERS', type = 'tensor.Int32Tensor', shape = {1}},
      {name = 'WALKERS', type = 'tensor.Int32Tensor', shape = {4, 3}},
      {name = 'AREA', type = 'tensor.Int32Tensor', shape = {4}},
  }
end

function api:observation(index)
  if index == 1 then
    return tostring(self._grid)
  elseif index == 2 then
    return tensor.Int32Tensor{self._flowers}
  elseif index == 4 then
    local grid = self._grid
    local disc, rectangle = 0, 0
    for _ in pairs(grid:queryDisc('ground', grid:position(self._pieces[1]), 2)) do
      disc = disc + 1
    end
    for _ in pairs(grid:queryRectangle('ground', {1, 1}, {4, 3})) do
      rectangle = rectangle + 1
    end
    local shuffled = #grid:groupShuffledWithCount(random, 'grass', 5)
    local occupied = grid:queryPosition('pieces', {0, 5}) and 1 or 0
    return tensor.Int32Tensor{disc, rectangle, shuffled, occupied}
  end
  local out = tensor.Int32Tensor(4, 3):fill(-1)
  for k, piece in ipairs(self._pieces) do
    local transform = self._grid:transform(piece)
    out(k, 1):val(transform.pos[1])
    out(k, 2):val(transform.pos[2])
    out(k, 3):val(ORIENTATION_INDEX[transform.orientation])
  end
  return out
end

function api:discreteActionSpec()
  return {{name = 'NOTHING', min = 0, max = 0}}
end

function api:discreteActions(actions)
end

function api:_callbacks()
  local level = self
  return {
      walker = {
          onUpdate = {walk = function(grid, piece) grid:moveRel(piece, 'N') end},
          onBlocked = function(grid, piece, blocker)
            grid:turn(piece, 1)
            level._reward = level._reward - 0.5
          end,
      },
      grass = {
          onUpdate = {grow = function(grid, piece) grid:setState(piece, 'flower') end},
      },
      flower = {
          onAdd = function(grid, piece) level._flowers = level._flowers + 1 end,
          onRemove = function(grid, piece)
            level._flowers = level._flowers - 1
            level._reward = level._reward + 1
          end,
          onContact = {
              walker = {
                  enter = function(grid, flower, walker)
                    grid:removePiece(flower)
                    grid:createPiece('grass', grid:transform(flower))
                  end,
              },
          },
      },
  }
end

function api:start(episode, seed)
  random:seed(seed)
  if self._grid then
    self._grid:destroy()
  end
  self._flowers = 0
  self._grid = self._world:createGrid{
      stateCallbacks = self:_callbacks(),
      size = {width = 8, height = 6},
      topology = grid_world.TOPOLOGY.TORUS,
  }
  local made = self._grid:createLayout{layout = LAYOUT, stateMap = {G = 'grass', R = 'rock'}}
  self._grid:removePiece(made[10])
  self._pieces = {}
  for k = 1, self._walkers do
    self._pieces[k] = self._grid:createPiece('walker', WALKERS[k])
  end
  self._grid:setUpdater{update = 'walk', group = 'walkers'}
  self._grid:setUpdater{update = 'grow', group = 'grass', probability = self._growth, startFrame = 2}
  self._reward = 0
  self._grid:update(random)
end

function api:advance(steps)
  self._reward = 0
  if steps % 7 == 0 then
    self._grid:teleport(self._pieces[1], {0, 5}, grid_world.TELEPORT_ORIENTATION.KEEP_ORIGINAL)
    self._grid:setOrientation(self._pieces[1], 'S')
  end
  self._grid:update(random)
  return steps < self._steps, self._reward
end

return api
