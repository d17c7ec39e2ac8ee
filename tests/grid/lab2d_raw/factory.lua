-- A script that returns a function making the api, as Lab2D allows: the level name's `:<argument>`
-- suffix (`factory:double`) is the function's argument ('' without one).
-- Exercises: the factory form, an argument that changes the level, a per-frame reward that ends
-- the episode after 5 frames. Reward per frame: 2 with the argument 'double', else 1.
return function(argument)
  local multiplier = (argument == 'double') and 2 or 1
  local api = {}

  function api:observationSpec()
    return {{name = 'MULTIPLIER', type = 'tensor.Int32Tensor', shape = {}}}
  end

  function api:start(episode, seed)
    self.frames = 0
  end

  function api:advance(frame)
    self.frames = self.frames + 1
    return self.frames < 5, multiplier
  end

  function api:observation(index)
    return multiplier
  end

  return api
end
