--[[ system.random, Lab2D's random generator, as the compile's host sandbox sees it.

A Lab2D raw-API level draws at play time, in the callbacks compiled onto the device, from the key
each episode carries (random:seed(seed) in api:start makes the draws follow start's seed; see
docs/grid_lua.md). The host runs only the main chunk and init, before any episode, so a draw there
is an error that says where to draw instead.
]]
local random = {}

local METHODS = {'seed', 'uniformInt', 'uniformReal', 'normalDistribution', 'poissonDistribution',
                 'discreteDistribution', 'choice', 'shuffle', 'shuffleInPlace'}

for _, name in ipairs(METHODS) do
  random[name] = function()
    error('random:' .. name .. ' runs at play time in a compiled Lab2D level: call it in api:start ' ..
          '(or advance, the *Actions callbacks), not in the main chunk or init', 2)
  end
end

return random
