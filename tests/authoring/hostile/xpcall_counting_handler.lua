-- A loop of xpcall whose function loops and whose handler counts: the budget's error is caught each time.
local handled = 0
while true do
  xpcall(function() while true do end end, function() handled = handled + 1 end)
end
