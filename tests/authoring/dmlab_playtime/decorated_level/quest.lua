local factory = require 'factories.quest_factory'
local judges = require 'factories.judges'
return factory.createLevelApi{judges = {judges.counting{bonus = 10, needed = 2}}, every = 2 / 60, seconds = 100}
