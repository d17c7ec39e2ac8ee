-- factories.random_goal_factory: a maze whose goal and spawn point change
-- every episode.
--
--   local factory = require 'factories.random_goal_factory'
--   return factory.createLevelApi{mapName = 'my_maze', mapText = MAZE, episodeLengthSeconds = 60}
--
-- Every 'P' and 'G' cell of mapText is a candidate place. Each episode one
-- candidate gets the goal and another, chosen among the farthest half by
-- straight-line distance, the spawn point; the other candidates become floor.
-- kwargs: mapName, mapText, mapVariationsLayer, pickups (as makeMap),
-- episodeLengthSeconds (default 60).
local make_map = require 'common.make_map'
local episode_length = require 'factories._episode_length'
local random = require 'common.random'

local factory = {}

local function candidates(text)
  local cells, row = {}, 0
  for line in (text .. '\n'):gmatch('(.-)\n') do
    row = row + 1
    for col = 1, #line do
      local char = line:sub(col, col)
      if char == 'P' or char == 'G' then
        table.insert(cells, {row = row, col = col})
      end
    end
  end
  return cells
end

local function place(text, goal, spawn)
  local lines, row = {}, 0
  for line in (text .. '\n'):gmatch('(.-)\n') do
    row = row + 1
    local chars = {}
    for col = 1, #line do
      local char = line:sub(col, col)
      if char == 'P' or char == 'G' then char = ' ' end
      if row == goal.row and col == goal.col then char = 'G' end
      if row == spawn.row and col == spawn.col then char = 'P' end
      chars[col] = char
    end
    lines[row] = table.concat(chars)
  end
  return table.concat(lines, '\n')
end

function factory.createLevelApi(kwargs)
  assert(type(kwargs) == 'table', 'createLevelApi expects a table of options')
  assert(type(kwargs.mapText) == 'string', 'createLevelApi: mapText (the maze) is required')
  local places = candidates(kwargs.mapText)
  assert(#places >= 2, 'createLevelApi: mapText needs at least two P or G cells')
  local episode_seconds = episode_length.seconds(kwargs.episodeLengthSeconds or 60,
                                                'createLevelApi: episodeLengthSeconds', 2)
  local api = {}

  function api:init(settings)
    if settings.episodeLengthSeconds then
      episode_seconds = episode_length.seconds(settings.episodeLengthSeconds, 'setting episodeLengthSeconds', 1)
    end
  end

  function api:start(episode, seed)
    local goal = places[random:uniformInt(1, #places)]
    local far = {}
    for _, p in ipairs(places) do
      if p ~= goal then
        local d = (p.row - goal.row) ^ 2 + (p.col - goal.col) ^ 2
        table.insert(far, {place = p, d = d})
      end
    end
    table.sort(far, function(a, b) return a.d > b.d end)
    local spawn = far[random:uniformInt(1, math.max(1, #far // 2))].place
    self._text = place(kwargs.mapText, goal, spawn)
    self._name = kwargs.mapName .. '_' .. episode
  end

  function api:nextMap()
    return make_map.makeMap{
        mapName = self._name,
        mapEntityLayer = self._text,
        mapVariationsLayer = kwargs.mapVariationsLayer,
        pickups = kwargs.pickups,
    }
  end

  function api:hasEpisodeFinished(time_seconds)
    return time_seconds >= episode_seconds
  end

  return api
end

return factory
