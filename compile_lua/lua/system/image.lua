--[[ system.image, Lab2D's image library, as the compile's host sandbox sees it: the same functions as
dmlab.system.image (load, scale, setHue, setMaskedPattern) over the same tensors (system.tensor).
]]
return require 'dmlab.system.image'
