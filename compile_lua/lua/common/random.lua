--[[ common.random: the level's seeded pseudo-random generator, the engine's own
(`dmlab.system.random`: uniformInt, uniformReal, normalDistribution,
discreteDistribution, choice, shuffle, new). The compiler seeds it; scripts
usually reseed it in api:start(episode, seed).
]]
return require 'dmlab.system.random'
