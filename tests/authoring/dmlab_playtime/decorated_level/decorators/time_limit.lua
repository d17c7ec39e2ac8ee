-- Ends the episode after `seconds`, around the api's own hasEpisodeFinished, which it keeps in a local of
-- the same name (as DeepMind Lab's decorators do).
local time_limit = {}

function time_limit.decorate(api, seconds)
  local hasEpisodeFinished = api.hasEpisodeFinished
  function api:hasEpisodeFinished(time)
    return hasEpisodeFinished(api, time) or time >= seconds
  end
end

return time_limit
