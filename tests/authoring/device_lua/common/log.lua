-- A logger with the API of DeepMind Lab's common.log (info, warn, error), written for these tests: each message
-- is written to io.stdout with its level's letter.
local log = {INFO = 0, WARN = -1, ERROR = -2}

local function emit(letter, ...)
  io.write(letter, ' ')
  for _, part in ipairs{...} do
    io.write(tostring(part))
  end
  io.write('\n')
end

function log.info(...) emit('I', ...) end
function log.warn(...) emit('W', ...) end
function log.error(...) emit('E', ...) end

return log
