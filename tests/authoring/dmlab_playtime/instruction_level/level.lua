-- Four apples; taking one changes the instruction, through the decorator's setter, to the word the apple names
-- ('apple' and 'dax7' are words of this level's own, outside jaxlab's instruction vocabulary).
local make_map = require 'common.make_map'
local channel = require 'instruction_channel'

local api = {}
local WORDS = {'Pick the cow', 'Pick the dax7', 'Pick the tree', 'Pick the car'}

function api:start(episode, seed)
  self._taken = 0
end

function api:nextMap()
  self.setInstruction('Pick the apple')
  return make_map.makeMap{mapName = 'instruction', mapEntityLayer = '*******\n*PAAAA*\n*******'}
end

function api:updateSpawnVars(spawnVars)
  if spawnVars.classname == 'info_player_start' then
    spawnVars.angle = '0'   -- facing the apples
    spawnVars.randomAngleRange = '0'
  end
  return spawnVars
end

function api:pickup(id)
  self._taken = self._taken + 1
  local word = WORDS[id]
  if word then
    self.setInstruction(word)
  end
end

channel.decorate(api)

return api
