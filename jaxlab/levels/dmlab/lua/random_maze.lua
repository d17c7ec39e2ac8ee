-- A new maze every episode: start(episode, seed) carves a random maze with
-- the seeded common.random module (a depth-first backtracker), places the
-- spawn point in one corner, a goal in the opposite one and a few apples.
-- Compile many episodes at once:  compile_lua random_maze.lua --episodes 100
local make_map = require 'common.make_map'
local random = require 'common.random'

local CELLS = 5          -- maze cells per side; the map is 2 * CELLS + 1 wide
local APPLES = 4

local api = {}

local function carve(size)
  local n = 2 * size + 1
  local grid = {}
  for r = 1, n do
    grid[r] = {}
    for c = 1, n do grid[r][c] = '*' end
  end
  local stack = {{1, 1}}
  grid[2][2] = ' '
  while #stack > 0 do
    local top = stack[#stack]
    local r, c = top[1], top[2]
    local options = {}
    for _, d in ipairs({{0, 1}, {1, 0}, {0, -1}, {-1, 0}}) do
      local nr, nc = r + d[1], c + d[2]
      if nr >= 1 and nr <= size and nc >= 1 and nc <= size and grid[2 * nr][2 * nc] == '*' then
        table.insert(options, {nr, nc})
      end
    end
    if #options == 0 then
      table.remove(stack)
    else
      local pick = options[random:uniformInt(1, #options)]
      grid[r + pick[1]][c + pick[2]] = ' '
      grid[2 * pick[1]][2 * pick[2]] = ' '
      table.insert(stack, pick)
    end
  end
  return grid, n
end

function api:start(episode, seed)
  local grid, n = carve(CELLS)
  grid[2][2] = 'P'
  grid[n - 1][n - 1] = 'G'
  local placed = 0
  while placed < APPLES do
    local r, c = 2 * random:uniformInt(1, CELLS), 2 * random:uniformInt(1, CELLS)
    if grid[r][c] == ' ' then
      grid[r][c] = 'A'
      placed = placed + 1
    end
  end
  local lines = {}
  for r = 1, n do lines[r] = table.concat(grid[r]) end
  self._text = table.concat(lines, '\n')
  self._name = 'random_maze_' .. episode
end

function api:nextMap()
  return make_map.makeMap(self._text, self._name)
end

function api:hasEpisodeFinished(time_seconds)
  return time_seconds >= 60
end

return api
