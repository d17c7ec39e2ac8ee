-- One long C call: a pattern whose backtracking grows as n^5 over a 30,000-character subject.
local api = {}
function api:nextMap()
  return tostring(('a'):rep(30000):find('.-.-.-.-.-b'))
end
return api
