-- dmlab.system.game: what a level script may ask of the game while it is
-- being compiled. Calls are recorded and turned into data: addScore inside
-- api:pickup becomes that pickup's reward, finishMap makes it end the map.
-- Functions that read live game state cannot be tabulated ahead of time and
-- raise an error that says what is supported.
local game = {}

local SUPPORTED = 'addScore, finishMap, console, playerId, screenShape'

-- Filled by the compiler around each tabulated callback.
game._record = {score = 0, finished = false, console = {}}

function game._reset()
  game._record = {score = 0, finished = false, console = {}}
end

-- addScore(score) or addScore(player_id, score): player 0 is the agent.
function game:addScore(a, b)
  local score = b ~= nil and b or a
  if type(score) ~= 'number' or score ~= score or score == math.huge or score == -math.huge then
    error('game:addScore expects a finite number, got ' .. tostring(score) .. ' (a ' .. type(score) .. ')', 2)
  end
  game._record.score = game._record.score + score
end

function game:finishMap()
  game._record.finished = true
end

-- Engine console commands are not modelled; the compiler warns about them.
function game:console(command)
  table.insert(game._record.console, tostring(command))
end

function game:playerId()
  return 1
end

-- The screen's size in pixels: DeepMind Lab's default 320 x 240 (jaxlab renders at the size an env asks
-- for; scripts read this for aspect ratios).
function game:screenShape()
  return {window = {width = 320, height = 240}, buffer = {width = 320, height = 240}}
end

return setmetatable(game, {
  __index = function(_, name)
    error('game:' .. tostring(name) .. ' is not supported: it would read game ' ..
          'state during play, and jaxlab compiles level scripts ahead of time. ' ..
          'Supported: ' .. SUPPORTED, 2)
  end,
})
