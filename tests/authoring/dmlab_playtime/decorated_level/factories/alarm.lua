-- A clock kept as an object, a class instance whose methods sit behind its metatable: it rings every
-- `every` seconds of the time it is told, and asserts that time never runs backwards.
local Alarm = {}
local AlarmMT = {__index = Alarm}

function Alarm.new(every)
  return setmetatable({_now = 0, _every = every, _next = every, _rings = 0, _notes = {}}, AlarmMT)
end

function Alarm:tick(now)
  assert(self._now <= now, 'time runs forwards')
  self._now = now
  for _, note in pairs(self._notes) do
    note.seen = note.seen + 1
  end
  if now >= self._next then
    self._rings = self._rings + 1
    self._next = self._next + self._every
  end
end

function Alarm:rings()
  return self._rings
end

return Alarm
