--[[ A workshop of Lab2D's grid engine, played the same in dmlab2d and in jaxlab's grid kernel.

One player pushes boxes onto goals (connected pieces move together), turns and steps forward,
zaps a beam (saplings let it through and start growing again, trees absorb it and fall, walls
absorb it), plants saplings in front of itself (they become trees after three frames), springs
traps (a trap rises onto the pieces' layer once the player has left its cell) and takes the
teleporter to the exit; every eighth step the saplings of the upper rows become trees (+10 each: a loop
over a query's pieces, which breaks off at once on every 16th step). Observations: the grid's text, the player's place and facing, how many
pieces stand within two steps, a ray cast ahead, and layer views (of the whole grid, of a window
ahead of the player, of a centered window) with the whole grid's and the player's window painted
by a tile set whose sprites are a colour per sprite and facing (some see-through).
]]
local grid_world = require 'system.grid_world'
local random = require 'system.random'
local tensor = require 'system.tensor'
local tile = require 'system.tile'

local COMPASS = {'N', 'E', 'S', 'W'}
local ORIENTATION_INDEX = {N = 0, E = 1, S = 2, W = 3}
local FORWARD = {N = {0, -1}, E = {1, 0}, S = {0, 1}, W = {-1, 0}}

local LAYOUT = [[
*********
*P  B  X*
* ~ BB  *
* s  B  *
*T  X  E*
*  X  s *
*********
]]

local api = {
    _move = 0, _turn = 0, _forward = 0, _zap = 0, _plant = 0,
    _reward = 0, _steps = 40,
}

function api:init(kwargs)
  self._world = grid_world.World{
      renderOrder = {'logic', 'pieces', 'beams'},
      updateOrder = {'move', {name = 'grow', func = 'growUp'}},
      hits = {zap = {layer = 'beams', sprite = '=Zap'}},
      states = {
          wall = {layer = 'pieces', sprite = '*Wall'},
          spawn = {layer = 'invisible', groups = {'spawns'}},
          player = {layer = 'pieces', sprite = 'Player', groups = {'movers'}, contact = 'avatar'},
          box = {layer = 'pieces', sprite = 'Box', contact = 'box'},
          goal = {layer = 'logic', sprite = 'XGoal', groups = {'emptyGoals'}, contact = 'goal'},
          boxGoal = {layer = 'logic', sprite = '&BoxGoal', contact = 'goal'},
          sapling = {layer = 'pieces', sprite = 'sSapling', groups = {'growers'}},
          tree = {layer = 'pieces', sprite = 'tTree'},
          trap = {layer = 'logic', sprite = '~Trap', contact = 'trap'},
          sprung = {layer = 'pieces', sprite = '#Sprung'},
          teleporter = {layer = 'logic', sprite = 'TTeleporter', contact = 'teleporter'},
          exit = {layer = 'logic', sprite = 'EExit', groups = {'exits'}},
      },
      outOfBoundsSprite = 'OutOfBounds',
      outOfViewSprite = 'OutOfView',
  }
  self._worldView = self._world:createView{left = 0, right = 8, forward = 0, backward = 6}
  self._playerView = self._world:createView{left = 2, right = 1, forward = 3, backward = 1}
  self._centeredView = self._world:createView{left = 1, right = 2, forward = 2, backward = 0, centered = true}
  local names = self._world:spriteNames()
  local set = tile.Set{names = names, shape = {width = 2, height = 2}}
  for k = 2, #names do
    local id = k - 1
    local alpha = 255
    if names[k]:sub(1, 1) == '=' then
      alpha = 128
    elseif names[k]:sub(1, 1) == 'X' then
      alpha = 200
    end
    local image = tensor.ByteTensor(2, 2, 4)
    image:fill{(37 * id) % 256, (91 * id + 11) % 256, (53 * id + 7) % 256, alpha}
    image:select(1, 1):select(1, 1):fill{255, 255, 255, alpha}
    set:setSprite{name = names[k], image = image}
  end
  self._worldScene = tile.Scene{shape = self._worldView:gridSize(), set = set}
  self._playerScene = tile.Scene{shape = self._playerView:gridSize(), set = set}
end

function api:observationSpec()
  return {
      {name = 'WORLD.TEXT', type = 'String', shape = {0}},
      {name = 'PLAYER', type = 'tensor.Int32Tensor', shape = {3}},
      {name = 'NEAR', type = 'tensor.Int32Tensor', shape = {1}},
      {name = 'RAY', type = 'tensor.Int32Tensor', shape = {3}},
      {name = 'WORLD.LAYER', type = 'tensor.Int32Tensor', shape = {7, 9, 3}},
      {name = 'WORLD.RGB', type = 'tensor.ByteTensor', shape = {14, 18, 3}},
      {name = 'PLAYER.LAYER', type = 'tensor.Int32Tensor', shape = {5, 4, 3}},
      {name = 'PLAYER.RGB', type = 'tensor.ByteTensor', shape = {10, 8, 3}},
      {name = 'CENTERED.LAYER', type = 'tensor.Int32Tensor', shape = {5, 5, 3}},
  }
end

function api:observation(index)
  local grid = self._grid
  if index == 1 then
    return tostring(grid)
  elseif index == 5 then
    return self._worldView:observation{grid = grid}
  elseif index == 6 then
    return self._worldScene:render(self._worldView:observation{grid = grid})
  elseif index == 7 then
    return self._playerView:observation{grid = grid, piece = self._player}
  elseif index == 8 then
    return self._playerScene:render(self._playerView:observation{grid = grid, piece = self._player})
  elseif index == 9 then
    return self._centeredView:observation{grid = grid, piece = self._player, orientation = 'N'}
  end
  local transform = grid:transform(self._player)
  local x, y = transform.pos[1], transform.pos[2]
  if index == 2 then
    return tensor.Int32Tensor{x, y, ORIENTATION_INDEX[transform.orientation]}
  elseif index == 3 then
    local near = 0
    for _, _ in pairs(grid:queryDiamond('pieces', {x, y}, 2)) do
      near = near + 1
    end
    return tensor.Int32Tensor{near}
  end
  local ahead = FORWARD[transform.orientation]
  local hit, _, offset = grid:rayCastDirection('pieces', {x, y}, {3 * ahead[1], 3 * ahead[2]})
  return tensor.Int32Tensor{hit and 1 or 0, offset[1], offset[2]}
end

function api:discreteActionSpec()
  return {
      {name = 'MOVE', min = 0, max = 4},
      {name = 'TURN', min = 0, max = 2},
      {name = 'FORWARD', min = 0, max = 1},
      {name = 'ZAP', min = 0, max = 1},
      {name = 'PLANT', min = 0, max = 1},
  }
end

function api:discreteActions(actions)
  self._move, self._turn, self._forward, self._zap, self._plant =
      actions[1], actions[2], actions[3], actions[4], actions[5]
end

function api:_callbacks()
  local level = self
  return {
      wall = {onHit = true},
      player = {
          onBlocked = function(grid, piece, blocker)
            level._reward = level._reward - 0.25
          end,
          onUpdate = {
              move = function(grid, piece)
                if level._move ~= 0 then
                  local compass = COMPASS[level._move]
                  local hit, block = grid:rayCastDirection('pieces', grid:position(piece), FORWARD[compass])
                  local push = hit and block ~= nil and grid:state(block) == 'box'
                  if push then
                    grid:connect(piece, block)
                  end
                  grid:moveAbs(piece, compass)
                  if push then
                    grid:disconnect(piece)
                  end
                end
                if level._turn == 1 then
                  grid:turn(piece, 3)
                elseif level._turn == 2 then
                  grid:turn(piece, 1)
                end
                if level._forward == 1 then
                  grid:moveRel(piece, 'N')
                end
                if level._zap == 1 then
                  grid:hitBeam(piece, 'zap', 3, 1)
                end
                if level._plant == 1 then
                  local transform = grid:transform(piece)
                  local ahead = FORWARD[transform.orientation]
                  grid:createPiece('sapling', {pos = {transform.pos[1] + ahead[1], transform.pos[2] + ahead[2]},
                                               orientation = 'N'})
                end
              end,
          },
          onContact = {
              teleporter = {
                  enter = function(grid, piece, other)
                    grid:teleportToGroup(piece, 'exits', nil, grid_world.TELEPORT_ORIENTATION.KEEP_ORIGINAL)
                  end,
              },
          },
      },
      box = {
          onContact = {
              goal = {
                  enter = function(grid, box, goal)
                    if grid:state(goal) == 'goal' then
                      grid:setState(goal, 'boxGoal')
                      level._reward = level._reward + 2
                    end
                  end,
                  leave = function(grid, box, goal)
                    if grid:state(goal) == 'boxGoal' then
                      grid:setState(goal, 'goal')
                      level._reward = level._reward - 2
                    end
                  end,
              },
          },
      },
      trap = {
          onContact = {
              avatar = {
                  enter = function(grid, trap, player)
                    grid:setState(trap, 'sprung')
                  end,
              },
          },
      },
      sapling = {
          onUpdate = {
              growUp = function(grid, piece, frames)
                grid:setState(piece, 'tree')
              end,
          },
          onHit = {
              zap = function(grid, piece, hitter)
                grid:setState(piece, 'sapling')
                return false
              end,
          },
      },
      tree = {
          onHit = {
              zap = function(grid, piece, hitter)
                grid:removePiece(piece)
                level._reward = level._reward + 1
                return true
              end,
          },
      },
  }
end

function api:start(episode, seed)
  random:seed(seed)
  if self._grid then
    self._grid:destroy()
  end
  self._grid = self._world:createGrid{stateCallbacks = self:_callbacks(), size = {width = 9, height = 7}}
  self._grid:createLayout{
      layout = LAYOUT,
      stateMap = {['*'] = 'wall', P = 'spawn', B = 'box', X = 'goal', s = 'sapling', ['~'] = 'trap',
                  T = 'teleporter', E = 'exit'},
  }
  local spawn = self._grid:groupRandom(random, 'spawns')
  self._player = self._grid:createPiece('player', self._grid:transform(spawn))
  self._grid:setUpdater{update = 'move', group = 'movers'}
  self._grid:setUpdater{update = 'grow', group = 'growers', startFrame = 3}
  self._reward = 0
  self._grid:update(random)
end

function api:advance(steps)
  self._reward = 0
  self._grid:update(random)
  if steps % 8 == 0 then   -- the saplings of the upper rows grow at once, +10 each (not on every 16th step)
    local grown = 0
    for piece, _ in pairs(self._grid:queryRectangle('pieces', {0, 0}, {8, 3})) do
      if steps % 16 == 0 then
        break
      end
      if self._grid:state(piece) == 'sapling' then
        self._grid:setState(piece, 'tree')
        grown = grown + 1
      end
    end
    self._reward = self._reward + 10 * grown
  end
  return steps < self._steps, self._reward
end

return api
