-- dmlab.system.game: what a level script may ask of the game while it is
-- being compiled. Calls are recorded and turned into data: addScore inside
-- api:pickup becomes that pickup's reward, finishMap makes it end the map.
-- Functions that read live game state cannot be tabulated ahead of time and
-- raise an error that says what is supported.
--
-- Files: game:runFiles() is '<runfiles>', a name and not a folder: a path
-- '<runfiles>/baselab/game_scripts/<rel>' reads <rel> in the search folders
-- (give DeepMind Lab's game_scripts folder as the levels folder); any other
-- relative path is read in the script's folder, then the search folders.
-- Absolute paths, '..' and links leading out of those folders are refused as
-- files that are not there. game:tempFolder() is '<tempfolder>', kept in
-- memory: game:copyFileToLocation(from, '<tempfolder>/<name>') stores the
-- bytes of `from` there (nothing is written to disk) for a later
-- loadFileToString, loadFileToByteTensor or image.load, and returns the name.
local _, _, host = ...
local game = {}

local SUPPORTED = 'addScore, finishMap, console, playerId, screenShape, runFiles, tempFolder, ' ..
    'loadFileToString, loadFileToByteTensor, copyFileToLocation, updateTexture'

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

-- The textures updateTexture set, name -> a copy of the ByteTensor (H x W x 4, RGBA), as DMLab copies the
-- pixels into its texture (jaxlab's screens show the play-time state the translated call writes).
game._textures = {}

function game:updateTexture(name, data)
  local mt = getmetatable(data)
  local shape = type(mt) == 'table' and rawget(mt, '__jaxlab_tensor') == 'uint8' and data:shape() or nil
  if type(name) ~= 'string' or shape == nil or #shape ~= 3 or shape[3] ~= 4 then
    error('game:updateTexture expects a texture name and a ByteTensor shaped H x W x 4', 2)
  end
  game._textures[name] = data:clone()
end

function game:playerId()
  return 1
end

-- The screen's size in pixels: DeepMind Lab's default 320 x 240 (jaxlab renders at the size an env asks
-- for; scripts read this for aspect ratios).
function game:screenShape()
  return {window = {width = 320, height = 240}, buffer = {width = 320, height = 240}}
end

-- The player as an episode starts: set by the compiler only while it asks a decorator's wrapper around a
-- compiled callback for its time limit (game._player); otherwise playerInfo would read play.
function game:playerInfo()
  local p = rawget(game, '_player')
  if p == nil then
    error('game:playerInfo is not supported here: it reads game state during play, which jaxlab reads only ' ..
          'in the callbacks it compiles onto the device', 2)
  end
  local info = {}
  for k, v in pairs(p) do
    info[k] = type(v) == 'table' and {v[1], v[2], v[3]} or v
  end
  return info
end

function game:runFiles()
  return '<runfiles>'
end

function game:tempFolder()
  return '<tempfolder>'
end

-- The bytes of a file, as a string.
function game:loadFileToString(file_name)
  local bytes = host('file_read', {path = file_name, what = 'game:loadFileToString'})
  return bytes
end

-- The bytes of a file, as a 1-D ByteTensor.
function game:loadFileToByteTensor(file_name)
  local bytes = host('file_read', {path = file_name, what = 'game:loadFileToByteTensor'})
  local t = require('dmlab.system.image')._fromBytes(bytes, #bytes)
  return t
end

-- Copies a file into game:tempFolder() (in memory); returns to_file_name.
function game:copyFileToLocation(from_file_name, to_file_name)
  local name = host('file_copy', {source = from_file_name, target = to_file_name})
  return name
end

return setmetatable(game, {
  __index = function(_, name)
    error('game:' .. tostring(name) .. ' is not supported: it would read game ' ..
          'state during play, and jaxlab compiles level scripts ahead of time. ' ..
          'Supported: ' .. SUPPORTED, 2)
  end,
})
