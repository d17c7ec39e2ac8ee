"""One entry point for a ``.lua`` level script of either kind: what ``jaxlab.make("x.lua")`` calls.

``compile_authored`` decides the script's kind and compiles it in ONE
sandboxed run of its main chunk (``compile_lua.loading.load_script``), in a
child process with a deadline and a memory cap (``compile_lua.isolation``): a
script whose api declares ``world`` (and no ``nextMap``) is a Lab2D-style grid
level, compiled into a ``GridSpec``; any other is a DMLab first-person level,
compiled into a level bank. DMLab banks are cached by content
(``compile_lua.cache``): on a hit no Lua runs at all, since only DMLab
results are ever stored; on a miss the one run compiles the script and, if
it is a DMLab script, stores its bank. The compile itself, in whichever process, is
``compile_lua.compiled.compile_in_process``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional

from compile_lua.cache import cache_entry
from compile_lua.compiled import KINDS, CompiledScript, compile_in_process
from compile_lua.isolation import CompileLimits, compile_in_child

def compile_authored(path, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1, seed: int = 0,
                     levels_dir=None, *, cache_directory: Optional[Path] = None,
                     limits: CompileLimits = CompileLimits(), argument: str = "") -> CompiledScript:
    """Compile the ``.lua`` script at ``path``, of either kind, running its main chunk at most once,
    in a child process under ``limits`` (see ``compile_lua.isolation``).

    Args:
      path: the script.
      settings: level settings: a DMLab script's ``api:init`` settings
        (values become strings); a grid script's Lab2D settings (nested, or
        flat with dotted keys; see ``compile_grid_level``).
      episodes: DMLab episodes to compile (the bank's leading axis, >= 1);
        not used by a grid script (callers refuse it there).
      seed: seeds the episodes' ``start(episode, seed)`` (DMLab) or the one
        ``api:start(0, seed)`` (grid).
      levels_dir: an extra folder ``require`` searches after the script's own.
      cache_directory: where DMLab banks are cached (default
        ``compile_lua.cache.cache_dir()``).
      limits: the child's deadline and memory cap.
      argument: the Lab2D level name's ``:<argument>``, what a script that returns a function (a level
        factory) is called with (``''``: none; a DMLab script refuses one, and is then not cached).

    Returns a CompiledScript. Raises FileNotFoundError, LuaScriptError
    (``file:line: message``), MapError, UnknownNameError (unknown grid
    setting) and ValueError as the two compilers do, and CompileLimitError
    when the compile passes its deadline or its process dies.
    """
    if int(episodes) < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    entry = cache_entry(path, settings, episodes, seed, levels_dir, cache_directory)
    hit = None if argument else entry.load()
    if hit is not None:
        return CompiledScript("dmlab", bank=hit[0], meta=hit[1], cached=True)
    compiled = compile_in_child(path, settings, episodes, seed, levels_dir, limits=limits, argument=argument)
    if compiled.kind == "dmlab":
        entry.store(compiled.bank, compiled.meta)
    return compiled


__all__ = ["CompileLimits", "CompiledScript", "KINDS", "compile_authored", "compile_in_process"]
