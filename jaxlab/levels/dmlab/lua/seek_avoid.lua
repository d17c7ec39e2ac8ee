-- A level in two lines: the seek-avoid factory on the built-in arena map.
local factory = require 'factories.seek_avoid_factory'
return factory.createLevelApi{mapName = 'seekavoid_arena_01', episodeLengthSeconds = 20}
