-- factories._episode_length: the episode length a factory is given, checked (shared by the factories).
local episode_length = {}

-- `value` (a number, or a string as settings pass it) as a number of seconds. An error unless it is
-- a finite number > 0; `what` names it in the message, and `level` says whom the error blames:
-- 1 the function calling this one, 2 that function's caller.
function episode_length.seconds(value, what, level)
  local seconds = tonumber(value)
  if seconds == nil or seconds ~= seconds or seconds <= 0 or seconds == math.huge then
    error(what .. ' must be a finite number of seconds > 0, got ' .. tostring(value) ..
          ' (a ' .. type(value) .. ')', level + 1)
  end
  return seconds
end

return episode_length
