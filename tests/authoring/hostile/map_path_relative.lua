-- A map name that climbs out of every allowed folder.
local api = {}
function api:nextMap() return '../../../../../../../../etc/hostname' end
return api
