local tally = require 'factories.tally_level'
return tally.createLevelApi()
