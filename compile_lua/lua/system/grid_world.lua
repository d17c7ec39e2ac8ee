--[[ system.grid_world, Lab2D's grid engine, as the compile's host sandbox sees it.

A Lab2D level declares its world on the host (grid_world.World{...} in init) and plays its grids on
the device: createGrid and every grid method run in the callbacks compiled onto the device (start,
advance, observation, the *Actions callbacks and the grid's own state callbacks), where
compile_lua.device.grids gives them jaxlab's Lab2D grid kernel. What the host makes here is data the
compile reads: a World keeps its config (checked and numbered as Lab2D numbers it), a LayerView its
window. Each carries a `__jaxlab` field naming its kind.
]]
local _, _, host = ...

local grid_world = {
    TOPOLOGY = {BOUNDED = 0, TORUS = 1},
    TELEPORT_ORIENTATION = {MATCH_TARGET = 0, KEEP_ORIGINAL = 1, PICK_RANDOM = 2},
}

local function copy(value)
  if type(value) ~= 'table' then return value end
  local out = {}
  for k, v in pairs(value) do out[k] = copy(v) end
  return out
end

local function integer(kwargs, key)
  local v = kwargs[key]
  if math.type(v) ~= 'integer' or v < 0 then
    error(("world:createView: '%s' must be an integer >= 0, got %s"):format(key, tostring(v)), 3)
  end
  return v
end

local LayerView = {}
LayerView.__index = LayerView

--- The spec of this view's observation: an Int32 tensor {height, width, render layers}.
function LayerView:observationSpec(name)
  if type(name) ~= 'string' then error('observationSpec expects a name (a string)', 2) end
  return {name = name, type = 'tensor.Int32Tensor', shape = {self.height, self.width, self.renderLayers}}
end

--- {width = ..., height = ...}: the cells the view shows.
function LayerView:gridSize()
  return {width = self.width, height = self.height}
end

function LayerView:observation()
  error('view:observation runs at play time (in api:observation), on a grid made in api:start', 2)
end

local World = {}
World.__index = World

--- Lab2D's sprite names: '' then name.N, name.E, name.S, name.W for each sprite, sorted by name.
function World:spriteNames()
  return copy(self.sprites)
end

--- A layer view: kwargs left, right, forward, backward (cells to each side of the selected cell)
-- or layout (a text whose whole extent the view shows from (0, 0)), centered, spriteMap.
function World:createView(kwargs)
  if type(kwargs) ~= 'table' then error('world:createView expects a table', 2) end
  local view = {__jaxlab = 'grid_world.LayerView', renderLayers = self.renderLayers, centered = false}
  if kwargs.layout ~= nil then
    if type(kwargs.layout) ~= 'string' then error("world:createView: 'layout' must be a string", 2) end
    local size = host('lab2d_text_size', kwargs.layout)
    view.left, view.forward, view.right, view.backward = 0, 0, size[1] - 1, size[2] - 1
  else
    view.left, view.right = integer(kwargs, 'left'), integer(kwargs, 'right')
    view.forward, view.backward = integer(kwargs, 'forward'), integer(kwargs, 'backward')
  end
  if kwargs.centered ~= nil then
    if type(kwargs.centered) ~= 'boolean' then error("world:createView: 'centered' must be a boolean", 2) end
    view.centered = kwargs.centered
  end
  view.spriteMap = host('lab2d_sprite_map', {sprites = self.sprites, map = kwargs.spriteMap or {}})
  local m = math.max(view.left, view.right, view.forward, view.backward)
  if view.centered then
    view.width, view.height = 2 * m + 1, 2 * m + 1
  else
    view.width, view.height = view.left + view.right + 1, view.forward + view.backward + 1
  end
  return setmetatable(view, LayerView)
end

function World:createGrid()
  error('world:createGrid runs at play time: make grids in api:start (compiled onto the device)', 2)
end

--- A world: `config` as Lab2D's grid_world.World takes it (states, renderOrder, updateOrder, hits,
-- customSprites, outOfBoundsSprite, outOfViewSprite), checked now.
function grid_world.World(config)
  if type(config) ~= 'table' then error('grid_world.World expects a table', 2) end
  local info = host('lab2d_world', config)
  return setmetatable({__jaxlab = 'grid_world.World', config = copy(config), sprites = info[1],
                       renderLayers = info[2]}, World)
end

return grid_world
