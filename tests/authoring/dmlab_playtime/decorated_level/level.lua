local factory = require 'factories.clock_factory'
return factory.createLevelApi{apples = 2, grace = 0.04, seconds = 100}
