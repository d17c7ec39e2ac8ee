"""A compiled ``.lua`` script of either kind (``CompiledScript``) and the compile itself, in this
process (``compile_in_process``): what the isolated child of ``compile_lua.isolation`` runs."""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Mapping, Optional

from compile_lua.dmlab.compiler import compile_loaded
from compile_lua.dmlab.playtime import DeviceCallbacks
from compile_lua.lab2d.compiler import CompiledGridScript, compile_loaded_grid
from compile_lua.lab2d.raw import RawScript, compile_loaded_raw
from compile_lua.loading import load_script
from jaxlab.bank import Bank

KINDS = ("dmlab", "lab2d", "lab2d_raw")


@dataclasses.dataclass
class CompiledScript:
    """A compiled ``.lua`` script.

    ``kind``: ``"dmlab"`` or ``"lab2d"``. For ``"dmlab"``: ``bank`` (a
    ``jaxlab.bank.Bank`` of first-person Levels, one per episode, leading axis
    = episodes) and ``meta`` (the compile's JSON-able metadata, see
    ``compile_lua.dmlab.compiler.CompiledLevel``). For ``"lab2d"``: ``grid``
    (the CompiledGridScript), with ``spec`` and ``env_observations()``. For ``"lab2d_raw"`` (a
    Lab2D raw-API script): ``raw`` (the RawScript; ``raw.env_parts()`` makes its env's parts).
    ``cached``: whether the bank came from the cache (no Lua ran).
    """

    kind: str
    bank: Optional[Bank] = None
    meta: Optional[Dict[str, Any]] = None
    grid: Optional[CompiledGridScript] = None
    raw: Optional[RawScript] = None
    cached: bool = False

    @property
    def spec(self):
        """The GridSpec of a ``"lab2d"`` script (ValueError for a DMLab one)."""
        if self.grid is None:
            raise ValueError(f"a {self.kind} script has no GridSpec (only Lab2D-style grid scripts do)")
        return self.grid.spec

    def device_callbacks(self) -> Optional[DeviceCallbacks]:
        """A ``"dmlab"`` script's callbacks compiled onto the device (the first-person kernel's
        ``ScriptHooks``, rebuilt from ``meta["device"]`` without running Lua), or None when every
        callback is tabulated."""
        if self.kind != "dmlab" or "device" not in (self.meta or {}):
            return None
        levels = self.bank.levels
        return DeviceCallbacks(self.meta["device"], str(self.meta["source"]), int(levels.pickup_valid.shape[1]),
                               int(levels.door_valid.shape[1]), self.meta.get("instruction_words", ()))

    def env_observations(self) -> Optional[List[str]]:
        """The observation names to give ``GridEnv`` (see ``CompiledGridScript.env_observations``;
        None: GridEnv's default). ValueError for a DMLab script."""
        if self.grid is None:
            raise ValueError(f"a {self.kind} script has no grid observations (only Lab2D-style grid scripts do)")
        return self.grid.env_observations()


def compile_in_process(path, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1, seed: int = 0,
                       levels_dir=None, print_fn=None, argument: str = "") -> CompiledScript:
    """Compile the script at ``path`` (either kind, one run of its main chunk) in THIS process, without
    the cache: what the isolated child runs. ``print_fn`` receives the script's printed lines.
    Arguments and errors as ``compile_lua.authoring.compile_authored``'s."""
    loaded = load_script(path, levels_dir, print_fn=print_fn, argument=argument)
    if loaded.kind == "lab2d":
        return CompiledScript("lab2d", grid=compile_loaded_grid(loaded, settings, seed=seed))
    if loaded.kind == "lab2d_raw":
        return CompiledScript("lab2d_raw", raw=compile_loaded_raw(loaded, settings, seed=seed))
    if argument:
        raise ValueError(f"{path}: the level name's argument {argument!r} is for a Lab2D script that returns a "
                         "function (a level factory); this is a DMLab script")
    compiled = compile_loaded(loaded, settings, episodes, seed)
    return CompiledScript("dmlab", bank=compiled.bank, meta=compiled.meta)
