-- Wraps an api's hasEpisodeFinished with a time limit (a decorator, as DeepMind Lab's levels use).
local stop_watch = {}

function stop_watch.decorate(api, seconds)
  local finished = api.hasEpisodeFinished
  function api:hasEpisodeFinished(time)
    return time >= seconds or (finished ~= nil and finished(self, time))
  end
end

return stop_watch
