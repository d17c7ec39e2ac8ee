local factory = require 'factories.quest_factory'
local judges = require 'factories.judges'
return factory.createLevelApi{judges = {judges.counting{bonus = 10, needed = 2}, judges.generous()},
                              every = 2 / 60, seconds = 100}
