local factory = require 'factories.counting_factory'
return factory.createLevelApi{bonusAt = 2, finishAfter = 3, seconds = 100}
