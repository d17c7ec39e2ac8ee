--[[ dmlab.system.random: DeepMind Lab's engine random generator, as the compile's sandbox gives it.

It is the generator `common.random` is (one generator for the level, as in DeepMind Lab, where
`common.random` draws from this module): seeded by the compiler and by `random:seed(seed)` in the
script, with `uniformInt(a, b)`, `uniformReal(a, b)`, `normalDistribution(mean, stddev)`,
`discreteDistribution(weights)`. Its sequence is jaxlab's own (SplitMix64), not DeepMind Lab's.
At play time, in callbacks compiled onto the device, the same methods draw from the episode's key
instead (docs/authoring_lua.md).
]]
return require 'common.random'
