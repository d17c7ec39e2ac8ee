"""The play-time variables' values in a script's sandbox, as Python data: the start state a translation reads."""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np
from lupa.lua54 import lua_type as lupa_type

from compile_lua.device.host_objects import data_part
from compile_lua.device.layouts import layout_kind
from compile_lua.device.source import ENGINE_MODULES, Outline
from compile_lua.device.upvalues import written_cells
from compile_lua.loading import LoadedScript


def read_host_state(loaded: LoadedScript, out: Outline, table: Any = None,
                    objects: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The play-time variables' values in the script's sandbox now, as Python data: ``local.<name>`` for
    top-level locals the api's functions use (read as their upvalues), ``api.<field>`` for api fields
    that are not functions (of ``table``, the host table the outline's api stands for, when it is not
    the script's api), ``upvalue.<variable>`` for the variables the api's functions written elsewhere assign
    (``compile_lua.device.upvalues``). A table that is not data as a whole (an object: ``host_objects``) gives its
    data fields, and is itself put in ``objects`` (state key -> the Lua table) when that is given, as are an api
    field holding a function the outline does not define and a library module (not an engine module) that a
    top-level local holds (read on the host: ``common.log``'s functions). Values
    that cannot be state are left out (a callback that uses one is rejected at its line). The functions of
    ``out``'s file in a table a function holds (a decorator's table of the functions a level registers) are
    followed too."""
    sb, api = loaded.sandbox, (loaded.returned if table is None else table)
    found: Dict[str, Any] = {}
    seen = set()
    todo = [api[k] for k in out.methods if lupa_type(api[k]) == "function"] if lupa_type(api) == "table" else []
    while todo:
        f = todo.pop()
        if sb._p.ident(f) in seen:
            continue
        seen.add(sb._p.ident(f))
        for name, value in sb.upvalues(f).items():
            if lupa_type(value) == "function":
                todo.append(value)
            elif name in out.modules and out.modules[name] not in ENGINE_MODULES.values() and \
                    objects is not None and lupa_type(value) == "table":
                objects[f"local.{name}"] = value   # a library module play calls into: read on the host, no state
            elif name in out.modules or name == out.api:
                continue
            elif name in out.locals:
                found[f"local.{name}"] = value
            elif lupa_type(value) == "table":
                _, count, _, values, _ = sb._p.entries(value)
                todo.extend(values[i] for i in range(1, count + 1) if lupa_type(values[i]) == "function"
                            and (sb.defined_at(values[i]) or (None,))[0] == out.path)
    if lupa_type(api) == "table":
        _, count, keys, values, flags = sb._p.entries(api)
        for i in range(1, count + 1):
            if isinstance(keys[i], str) and not flags[i] and lupa_type(values[i]) != "function":
                found[f"api.{keys[i]}"] = values[i]
            elif isinstance(keys[i], str) and objects is not None and (keys[i] not in out.methods or (
                    sb.defined_at(values[i]) or (out.path,))[0] != out.path):
                objects[f"api.{keys[i]}"] = values[i]   # a function set elsewhere (a decorator's): read on the host
        found.update(written_cells(sb, api, out.methods))
    state = {}
    for key, value in found.items():
        try:
            plain = sb.to_python(value)
        except ValueError:   # a table inside itself
            plain = None
        methods = lupa_type(value) == "table" and lupa_type(sb._p.meta(value)) == "table"   # a class instance
        if plain is not None and layout_kind(plain) is not None and not (methods and isinstance(plain, dict)):
            state[key] = plain
        elif lupa_type(value) == "table" and not isinstance(plain, np.ndarray):
            data = data_part(sb, value)
            if data:
                state[key] = data
            if objects is not None:
                objects[key] = value
    return state
