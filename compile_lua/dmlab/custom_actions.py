"""DMLab's custom discrete actions: ``customDiscreteActionSpec()`` read once when the level compiles, and
``customDiscreteActions(actions)`` compiled onto the device (``compile_lua.dmlab.hooks``).

DeepMind Lab asks ``api:customDiscreteActionSpec()`` once, after ``init``, for a list of
``{name = <string>, min = <integer>, max = <integer>}``; each entry is an action appended, in order, to
the seven built-in ones (``LOOK_LEFT_RIGHT_PIXELS_PER_FRAME`` ... ``CROUCH``) of the level's action spec.
At every agent step, before the step's frames run, the engine calls ``api:customDiscreteActions(actions)``
with ``actions`` the Lua array of the agent's values for them (integers, as the agent gave them: DMLab does
not clip them into ``min..max``); its answer is ignored. A spec without the callback stops DMLab at its
first step, so it is refused here; a callback without a spec is never called.

Play never sees the variables only ``customDiscreteActions`` sets as nil (the call comes before any frame),
but their layout must be known when the callbacks are translated: :func:`seed_state` calls it once on the
host with every value 0, and those variables start every episode as that call leaves them.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from compile_lua.device import read_host_state
from compile_lua.device.keyed import to_host
from compile_lua.device.source import Outline, reject
from compile_lua.errors import LuaScriptError
from compile_lua.loading import LoadedScript
from jaxlab.levels.dmlab.actions import ACTION_NAMES

SPEC = "customDiscreteActionSpec"
HOOK = "customDiscreteActions"
#: DMLab passes the values as C ints
INT_RANGE = (-2 ** 31, 2 ** 31 - 1)


def _integer(value: Any) -> Optional[int]:
    """``value`` as an int32 when it is an integral Lua number (DMLab reads ``min``/``max`` as ints), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or int(value) != value:
        return None
    return int(value) if INT_RANGE[0] <= value <= INT_RANGE[1] else None


def read_spec(raw: Any, path: str, line: Optional[int]) -> List[Dict[str, Any]]:
    """The custom actions of ``raw`` (``customDiscreteActionSpec()``'s answer as Python data, None for nil):
    ``[{"name": str, "min": int, "max": int}, ...]`` in the script's order.

    Raises LuaScriptError at ``path:line`` naming the entry for an answer that is not a list of tables, an
    entry without a string ``name`` or without integer ``min``/``max`` (in the int32 range), ``min > max``,
    a name listed twice or one of DMLab's seven built-in action names."""
    def refuse(message: str):
        raise LuaScriptError(path, line, f"api:{SPEC}: {message}")

    entries = [] if raw is None or raw == {} else raw
    if not isinstance(entries, list):
        refuse(f"must return a list of {{name = <string>, min = <integer>, max = <integer>}}, got {raw!r}")
    out: List[Dict[str, Any]] = []
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            refuse(f"entry {i} must be a table {{name = <string>, min = <integer>, max = <integer>}}, got {entry!r}")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            refuse(f"entry {i} is missing 'name = <string>' (got {entry!r})")
        low, high = _integer(entry.get("min")), _integer(entry.get("max"))
        for key, value in (("min", low), ("max", high)):
            if value is None:
                refuse(f"action {name!r} (entry {i}) needs '{key} = <integer>' in the int32 range, "
                       f"got {entry.get(key)!r}")
        if low > high:
            refuse(f"action {name!r} (entry {i}) has min {low} > max {high}")
        if name in ACTION_NAMES or any(a["name"] == name for a in out):
            refuse(f"action {name!r} (entry {i}) is listed twice" if name not in ACTION_NAMES else
                   f"action {name!r} (entry {i}) is one of DMLab's built-in actions ({', '.join(ACTION_NAMES)})")
        out.append({"name": name, "min": low, "max": high})
    return out


def spec_tuples(spec: Sequence[Dict[str, Any]]) -> Tuple[Tuple[str, int, int], ...]:
    """``((name, min, max), ...)`` of a :func:`read_spec` list (or its JSON copy in a compile's meta)."""
    return tuple((str(a["name"]), int(a["min"]), int(a["max"])) for a in spec)


def example(spec: Sequence[Dict[str, Any]]) -> tuple:
    """The arguments ``customDiscreteActions`` is first translated with: the array of each action's value,
    all 0 (Lua integers)."""
    return ([0] * len(spec),)


def _shown(value: Any) -> str:
    """``value`` (host state as Python data) as text, arrays in full: what tells a change."""
    with np.printoptions(threshold=sys.maxsize):
        return repr(value)


def seed_state(loaded: LoadedScript, out: Outline, table: Any, spec: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Call ``api:customDiscreteActions`` once on the host with every action of ``spec`` 0 and return the
    play-time variables it gave a value that were nil before (state key -> start value, as a compile's
    meta carries them). ``out``: the play source's outline; ``table``: the host table its api stands for.
    Raises DeviceRejection at the callback's line when the call changes a variable that held a value (a
    counter it bumps at every call): its start value would then be off by that call."""
    before = read_host_state(loaded, out, table)
    api = loaded.returned
    loaded.sandbox.call_method(api, HOOK, loaded.sandbox.table(example(spec)[0]))
    after = read_host_state(loaded, out, table)
    changed = sorted(k for k in before if k in after and _shown(before[k]) != _shown(after[k]))
    if changed:
        method = out.methods.get(HOOK)
        reject(out.path, method.line if method else None, f"api:{HOOK} changing {changed[0]} when every action is 0",
               "jaxlab calls it once with every action 0 when the level compiles, to learn the kind of what it "
               "stores; change play-time state there only when an action is pressed (not 0)")
    return {k: to_host(v) for k, v in after.items() if k not in before}
