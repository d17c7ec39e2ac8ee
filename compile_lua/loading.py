"""A level script loaded once in its sandbox: the run that decides its kind and that both compilers continue.

``load_script(path)`` runs the script's main chunk (its top level) once, in a
fresh :class:`compile_lua.sandbox.Sandbox`, and keeps the sandbox and what the
chunk returned. Its ``kind`` is then read off the api table:

- ``"lab2d"``: the api declares ``world`` and no ``nextMap`` (a Lab2D-style
  grid level, compiled by ``compile_lua.lab2d.compiler``);
- ``"lab2d_raw"``: no ``world`` and no ``nextMap``, but an ``advance`` function (a level
  written against Lab2D's raw level API, compiled by ``compile_lua.lab2d.raw``);
- ``"dmlab"``: anything else (a DMLab first-person level, compiled by
  ``compile_lua.dmlab.compiler``, which reports a script that is neither).

A Lab2D script may return a function that makes its api (a level factory, as
dmlab2d allows); that function is called once, in the same sandbox, with the
level name's ``:<argument>`` (``''`` without one, as dmlab2d passes it), to look
at the api it makes. Nothing here runs the script a second time.
"""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

from lupa.lua54 import lua_type

from compile_lua import engine
from compile_lua.sandbox import Sandbox

TIME_LIMIT_S = 10.0   # per call into the script (main chunk, each callback), before it is called runaway
_UNSET = object()


@dataclasses.dataclass
class LoadedScript:
    """A script whose main chunk has run once.

    ``path``: the script; ``sandbox``: its Lua runtime (callbacks are called
    in it); ``returned``: what the main chunk returned (usually the api table;
    None if nothing); ``argument``: what a level factory is called with (the
    level name's ``:<argument>``).
    """

    path: Path
    sandbox: Sandbox
    returned: Any
    argument: str = ""
    _made: Any = dataclasses.field(default=_UNSET, repr=False)

    def lab2d_api(self) -> Any:
        """The api as Lab2D sees it: ``returned``, or, when that is a function, the
        api it makes (called once with :attr:`argument`, then remembered). Raises LuaScriptError."""
        if lua_type(self.returned) != "function":
            return self.returned
        if self._made is _UNSET:
            self._made = self.sandbox.call("the function the script returned", self.returned, self.argument)
        return self._made

    @functools.cached_property
    def kind(self) -> str:
        """``"lab2d"`` when the api declares ``world`` and no ``nextMap``; ``"lab2d_raw"`` when it
        declares neither but has an ``advance`` function; else ``"dmlab"``."""
        api = self.lab2d_api()
        if lua_type(api) != "table" or api["nextMap"] is not None:
            return "dmlab"
        if api["world"] is not None:
            return "lab2d"
        return "lab2d_raw" if lua_type(api["advance"]) == "function" else "dmlab"


def checked_inputs(path, levels_dir=None) -> Path:
    """``path`` as a Path, once it is a file and ``levels_dir`` (when given) a folder: both are the
    caller's own paths, followed wherever their symlinks point. FileNotFoundError naming the path and
    what it is instead (missing, a folder, a file) otherwise."""
    path = Path(path)
    if path.is_dir():
        raise FileNotFoundError(f"{path} is a folder, not a level script")
    if not path.is_file():
        raise FileNotFoundError(f"no such level script: {path}")
    if levels_dir and not Path(levels_dir).is_dir():
        what = "is a file, not a folder" if Path(levels_dir).exists() else "does not exist"
        raise FileNotFoundError(f"the levels folder {levels_dir} (levels_dir, --levels-dir) {what}")
    return path


def load_script(path, levels_dir=None, print_fn=None, argument: str = "") -> LoadedScript:
    """Run the main chunk of the ``.lua`` script at ``path`` once, in a new sandbox.

    ``levels_dir``: an extra folder ``require`` (and a map name) searches after
    the script's own. ``print_fn``: where the script's ``print`` goes (default:
    stderr, prefixed with the script's name, control characters escaped). ``argument``: what a Lab2D
    level factory is called with (:attr:`LoadedScript.argument`). Raises FileNotFoundError
    for a missing script or levels folder (:func:`checked_inputs`), LuaScriptError (``file:line:
    message``) for an error in its main chunk.
    """
    path = checked_inputs(path, levels_dir)
    search = [Path(levels_dir)] if levels_dir else []
    sandbox = Sandbox(path, search, time_limit_s=TIME_LIMIT_S, print_fn=print_fn, host_functions=engine.FUNCTIONS)
    return LoadedScript(path, sandbox, sandbox.load_script(), str(argument))
