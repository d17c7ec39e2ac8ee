-- An absolute map name.
local api = {}
function api:nextMap() return '/etc/hostname' end
return api
