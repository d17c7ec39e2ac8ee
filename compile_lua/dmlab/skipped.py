"""Engine calls a callback translated onto the device skips, each with the warning the compile gives.

``events:add`` (``require 'dmlab.system.events'``) raises an event for the host API, whose ``events()``
holds none after a step: the translation skips it (``compile_lua.device``), and the compile warns at
each call's line.
"""
from __future__ import annotations

from typing import List, Tuple

from luaparser import ast as lua_ast
from luaparser import astnodes as n

from compile_lua.device.source import FunctionDef, Outline

_WHY = ("raises an event during play; jaxlab's events() holds those of the episode's start only, so the "
        "compiled callback skips it")


def skipped_calls(out: Outline, fdefs: List[FunctionDef]) -> List[Tuple[str, int, str]]:
    """Sorted ``(file, line, warning)`` of each engine call in ``fdefs`` (functions of ``out``) that the
    translation skips."""
    found = set()
    for f in fdefs:
        for node in lua_ast.walk(f.body):
            if not isinstance(node, n.Invoke) or not isinstance(node.func, n.Name) \
                    or not isinstance(node.source, n.Name):
                continue
            kind = out.modules.get(node.source.id)
            if kind == "events":
                found.add((out.path, node.line, f"{kind}:{node.func.id} {_WHY}"))
    return sorted(found)
