-- A finalizer that loops, run by a collection the script asks for (Lua runs finalizers without hooks).
setmetatable({}, {__gc = function() while true do end end})
collectgarbage()
collectgarbage()
return {}
