"""The Python side of DeepMind Lab's engine modules (``dmlab.system.*`` in the jaxlab Lua library).

DeepMind Lab implements some of the modules its level scripts require in C++. jaxlab writes them in
Lua (``compile_lua/lua/dmlab/system/``); where one needs what Lua cannot do in the sandbox (DMLab's
maze generator, reading a PNG), its Lua calls ``host(name, ...)``, which reaches the function of
that name in :data:`FUNCTIONS` (see :class:`compile_lua.sandbox.Sandbox`). Each function takes the
sandbox first, then the Lua arguments as Python data, and returns Python data for Lua (numpy arrays
become tensors' tables); it raises ``compile_lua.errors.HostError`` to refuse its arguments.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

#: host function name -> fn(sandbox, *args)
FUNCTIONS: Dict[str, Callable[..., Any]] = {}

from compile_lua.engine import files  # noqa: E402
from compile_lua.engine import lab2d_grid  # noqa: E402
from compile_lua.engine import mazes  # noqa: E402
FUNCTIONS.update(files.FUNCTIONS)
FUNCTIONS.update(mazes.FUNCTIONS)
FUNCTIONS.update(lab2d_grid.FUNCTIONS)
