-- A map name that exists nowhere.
local api = {}
function api:nextMap() return 'no_such_map_anywhere' end
return api
