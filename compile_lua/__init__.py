"""compile_lua: DMLab Lua level scripts compiled ahead of time into jaxlab level banks.

``compile_level(path, settings=None, episodes=1, seed=0)`` returns a
``jaxlab.Bank`` of Levels; ``compile_script`` returns it with its metadata; the ``compile_lua``
command writes a ``.jaxlab`` file. ``compile_lua.authoring.compile_authored``
takes a script of either kind (DMLab or Lab2D-style grid), deciding which in
the one run that compiles it. See docs/authoring_lua.md and docs/grid_lua.md.
"""
from compile_lua.dmlab.compiler import CompiledLevel, compile_level, compile_script
from compile_lua.errors import CompileWarning, LuaScriptError

__all__ = ["CompiledLevel", "CompileWarning", "LuaScriptError", "compile_level", "compile_script"]
