--[[ common.pickups: the pickup type enum and the default pickup table.

`pickups.type` holds DeepMind Lab's pickup type numbers. `pickups.defaults`
maps a pickup class name to the table a level's `createPickup` callback would
return: {name, class_name, model_name, quantity, type}. REWARD pickups pay
`quantity` and disappear; GOAL pickups pay `quantity` and end the map.

    local pickups = require 'common.pickups'
    local apple = pickups.defaults.apple_reward   -- quantity 1, type REWARD
]]

local pickups = {}

--- Pickup type numbers (DeepMind Lab's values).
pickups.type = {
    INVALID = 0,
    WEAPON = 1,
    AMMO = 2,
    ARMOR = 3,
    HEALTH = 4,
    POWER_UP = 5,
    HOLDABLE = 6,
    PERSISTANT_POWERUP = 7,
    TEAM = 8,
    REWARD = 9,
    GOAL = 10,
}

local function entry(class_name, name, quantity, kind)
  return {
      name = name,
      class_name = class_name,
      model_name = 'models/' .. class_name .. '.md3',
      quantity = quantity,
      type = kind,
  }
end

local REWARD, GOAL = pickups.type.REWARD, pickups.type.GOAL

--- Default pickups keyed by class name.
pickups.defaults = {
    apple_reward = entry('apple_reward', 'Apple', 1, REWARD),
    lemon_reward = entry('lemon_reward', 'Lemon', -1, REWARD),
    strawberry_reward = entry('strawberry_reward', 'Strawberry', 2, REWARD),
    fungi_reward = entry('fungi_reward', 'Fungi', -10, REWARD),
    goal = entry('goal', 'Goal', 10, GOAL),
    watermelon_goal = entry('watermelon_goal', 'Watermelon Goal', 20, GOAL),
    mango_goal = entry('mango_goal', 'Mango Goal', 100, GOAL),
}

--- A fresh copy of the default pickup `class_name` (nil if there is none),
-- safe to modify, e.g. to change its quantity for one level.
function pickups.copy(class_name)
  local d = pickups.defaults[class_name]
  if d == nil then return nil end
  local c = {}
  for k, v in pairs(d) do c[k] = v end
  return c
end

return pickups
