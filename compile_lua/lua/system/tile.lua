--[[ system.tile, Lab2D's sprite renderer, as the compile's host sandbox sees it.

A tile Set names its sprites (usually world:spriteNames()) and holds an image per name; a Scene
paints the sprite ids of a layer view with a set's images. Both are made on the host (in init); a
scene paints at play time, compiled onto the device (jaxlab.render.grid.tile_scene). Each carries a
`__jaxlab` field naming its kind; a set keeps its images as RGBA bytes (hex) by sprite id.
]]
local _, _, host = ...

local tile = {}

local function size(shape, what)
  if type(shape) ~= 'table' or math.type(shape.width) ~= 'integer' or math.type(shape.height) ~= 'integer'
      or shape.width < 1 or shape.height < 1 then
    error(what .. ": 'shape' must be {width = <integer>, height = <integer>}", 3)
  end
  return shape.width, shape.height
end

local Set = {}
Set.__index = Set

--- Sets the image of every sprite named `name` or `name.<suffix>`: `image` a ByteTensor {h, w, 3 or 4}
-- (each such sprite) or {count, h, w, 3 or 4} (one per sprite, in the set's order). Returns how many.
function Set:setSprite(kwargs)
  if type(kwargs) ~= 'table' or type(kwargs.name) ~= 'string' then
    error("set:setSprite expects {name = <string>, image = <ByteTensor>}", 2)
  end
  local set = host('lab2d_set_sprite', {names = self.names, name = kwargs.name, image = kwargs.image,
                                         width = self.width, height = self.height})
  for i = 1, #set, 2 do self.images[set[i]] = set[i + 1] end
  return #set // 2
end

function Set:shape()
  return {width = self.width, height = self.height}
end

function Set:names()
  local out = {}
  for i, name in ipairs(self.names) do out[i] = name end
  return out
end

--- tile.Set{names = <list of strings>, shape = {width = , height = }}
function tile.Set(kwargs)
  if type(kwargs) ~= 'table' or type(kwargs.names) ~= 'table' then
    error("tile.Set expects {names = <list of strings>, shape = {width = , height = }}", 2)
  end
  local width, height = size(kwargs.shape, 'tile.Set')
  local names = {}
  for i, name in ipairs(kwargs.names) do
    if type(name) ~= 'string' then error('tile.Set: names must be strings', 2) end
    names[i] = name
  end
  return setmetatable({__jaxlab = 'tile.Set', names = names, width = width, height = height, images = {}}, Set)
end

local Scene = {}
Scene.__index = Scene

--- {height, width, 3}: the shape of the ByteTensor render gives.
function Scene:shape()
  return {self.height * self.set.height, self.width * self.set.width, 3}
end

function Scene:render()
  error('scene:render runs at play time (in api:observation)', 2)
end

--- tile.Scene{shape = {width = , height = } (in cells), set = <tile.Set>}
function tile.Scene(kwargs)
  if type(kwargs) ~= 'table' or type(kwargs.set) ~= 'table' or kwargs.set.__jaxlab ~= 'tile.Set' then
    error('tile.Scene expects {shape = {width = , height = }, set = <tile.Set>}', 2)
  end
  local width, height = size(kwargs.shape, 'tile.Scene')
  return setmetatable({__jaxlab = 'tile.Scene', width = width, height = height, set = kwargs.set}, Scene)
end

return tile
