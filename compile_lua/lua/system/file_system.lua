--[[ system.file_system, Lab2D's files, as the compile's host sandbox sees it.

file_system:runFiles() is '<runfiles>', a name and not a folder: a path that starts with
'<runfiles>/dmlab2d/lib/game_scripts/' reads the rest in the search folders (pass the dmlab2d
package's game_scripts folder as the levels folder). file_system:loadFileToString(path) reads a file
by the rules of dmlab.system.game (compile_lua.engine.files): inside the script's folder and the search
folders only.
]]
local _, _, host = ...

local file_system = {}

function file_system:runFiles()
  return '<runfiles>'
end

function file_system:loadFileToString(path)
  return host('file_read', {path = path, what = 'file_system:loadFileToString'})
end

return file_system
