--[[ system.tensor, Lab2D's tensor library, as the compile's host sandbox sees it: the same tensors as
dmlab.system.tensor (Lab2D's and DMLab's tensor libraries share their API).

On the host a level makes tensors in its main chunk and init (a tile set's sprites, constant tables);
what a level makes and changes during play (in api:start, advance, observation and the *Actions
callbacks) is compiled onto the device (compile_lua.device.tensors).
]]
return require 'dmlab.system.tensor'
