--[[ common.screen_message: alignment constants and builders for the tables
that a level's `screenMessages(args)` callback returns.

Each message is {message = text, x = x, y = y, alignment = ALIGN_*} on a
virtual screen of args.width x args.height (640 x 480) pixels, y down.

    local screen_message = require 'common.screen_message'
    function api:screenMessages(args)
      return {screen_message.centered(args, 'Find an apple!')}
    end
]]

local screen_message = {
    ALIGN_LEFT = 0,
    ALIGN_RIGHT = 1,
    ALIGN_CENTER = 2,
}

--- A message table: `text` at (`x`, `y`), `alignment` defaulting to ALIGN_LEFT.
function screen_message.message(text, x, y, alignment)
  return {
      message = tostring(text),
      x = x or 0,
      y = y or 0,
      alignment = alignment or screen_message.ALIGN_LEFT,
  }
end

--- A message centred on the screen described by `args` (the table passed to
-- screenMessages: width, height, line_height, max_string_length), moved down
-- by `line_offset` lines (default 0). Text longer than max_string_length is cut.
function screen_message.centered(args, text, line_offset)
  local width, height = args.width or 640, args.height or 480
  local line_height = args.line_height or 20
  text = tostring(text)
  if args.max_string_length and #text > args.max_string_length then
    text = text:sub(1, args.max_string_length)
  end
  local y = (height - line_height) / 2 + (line_offset or 0) * line_height
  return screen_message.message(text, width / 2, y, screen_message.ALIGN_CENTER)
end

return screen_message
