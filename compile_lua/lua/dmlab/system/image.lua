--[[ dmlab.system.image: PNG images as ByteTensors of shape {height, width, C},
C = 1 (grayscale), 2 (grayscale and alpha), 3 (RGB) or 4 (RGBA).

    image.load(path)                    -- a PNG file (paths as game:loadFileToString
                                        -- reads them: see dmlab.system.game)
    image.load('content:.png', bytes)   -- a PNG file's bytes (a string)
    image.scale(img, height, width)     -- a new {height, width, C} ByteTensor
    image.scale(img, height, width, 'nearest')
    image.setHue(img, degrees)          -- changes img; returns it
    image.setMaskedPattern(img, pattern, color1, color2)  -- changes img; returns it

scale: as Lab2D's: along each axis, shrinking averages the pixels (and parts
of pixels) each new pixel covers, even with 'nearest' (Lab2D's tile sets pass
it and get the average); enlarging interpolates linearly with the first and
last pixels staying at the ends, or with 'nearest' takes the pixel under each
new pixel's centre; values round down.
setHue: `img` is a ByteTensor whose last dimension is 3 or 4; every pixel takes
the hue `degrees` in the HSL colour space, keeping its saturation and
lightness (and alpha).
setMaskedPattern: `img` is {H, W, 4}; `pattern` is {h, w, C} with h * w = H * W; its first
channel t (0..255) mixes the colour color2 (t = 0) into color1 (t = 255)
({R, G, B}, integers 0..255); each pixel of `img` then mixes its own colour
(alpha 0) into that colour (alpha 255), and its alpha becomes 255.

Images may be at most 4096 pixels on a side. The pixels are computed in Python
(compile_lua.engine.files).
]]
local tensor = require 'dmlab.system.tensor'
local _, _, host = ...

local image = {}

local CHUNK = 4096  -- bytes copied per string.byte call

-- The bytes of the string `pixels` into a new ByteTensor of shape {...} (row-major, as many bytes as
-- elements), written straight into its storage (`_storage` from `_offset`, dmlab.system._tensor_view's
-- layout of a new tensor): the public constructors would take a table of every byte.
local function new_from_bytes(pixels, ...)
  local t = tensor.ByteTensor.zeros(...)
  local storage, offset = rawget(t, '_storage'), rawget(t, '_offset')
  if type(storage) ~= 'table' or t:size() ~= #pixels then
    error(('image: %d bytes do not fill a tensor of %d elements'):format(#pixels, t:size()), 3)
  end
  local move, byte, min = table.move, string.byte, math.min
  for i = 1, #pixels, CHUNK do
    local j = min(i + CHUNK - 1, #pixels)
    move({byte(pixels, i, j)}, 1, j - i + 1, offset + i - 1, storage)
  end
  return t
end

-- Overwrites the elements of ByteTensor `t` (any view), in row-major order, with the bytes of `pixels`.
local function write_bytes(t, pixels)
  t:copy(new_from_bytes(pixels, table.unpack(t:shape())))
end

--- A new ByteTensor of shape {...} holding the bytes of the string `pixels`
-- (row-major; as many bytes as elements).
function image._fromBytes(pixels, ...)
  return new_from_bytes(pixels, ...)
end

--- The PNG file `path` (or, when `path` is 'content:.png', the PNG file whose
-- bytes are the string `content`) as a ByteTensor {H, W, C}.
function image.load(path, content)
  local result = host('image_load', {path = path, content = content})
  local img = image._fromBytes(result[1], result[2], result[3], result[4])
  return img
end

--- `img` ({H, W, C} ByteTensor) scaled to a new {height, width, C} ByteTensor;
-- `mode` nil or 'nearest' (see above).
function image.scale(img, height, width, mode)
  local result = host('image_scale', {image = img, height = height, width = width, mode = mode})
  local scaled = image._fromBytes(result[1], result[2], result[3], result[4])
  return scaled
end

--- Sets the HSL hue of every pixel of `img` (ByteTensor, last dimension 3 or 4)
-- to `hue` degrees, in place; returns `img`.
function image.setHue(img, hue)
  local pixels = host('image_set_hue', {image = img, hue = hue})
  write_bytes(img, pixels)
  return img
end

--- Lays `pattern` ({h, w, C}, h * w = H * W) coloured from `color2` to
-- `color1` over `img` ({H, W, 4}) where it is opaque, in place; returns `img`.
function image.setMaskedPattern(img, pattern, color1, color2)
  local pixels = host('image_set_masked_pattern',
                      {image = img, pattern = pattern, color1 = color1, color2 = color2})
  write_bytes(img, pixels)
  return img
end

return image
