"""The property callbacks of a Lab2D raw-API script (``readProperty``, ``writeProperty``,
``listProperty``), translated onto the device one key at a time.

Lab2D calls them with strings the host gives: ``key``, and ``value`` for a write. Each call is
translated with those as strings known at translation time (as DMLab's ``customObservation`` name),
so ``key == 'params.bonus'`` is decided then: once per key (per key and value for a write), then
kept. The translation runs in the caller's process, on demand (no Lua runs: the script's outline
and state layout are enough). What the callbacks return follows dmlab2d (checked against it):

- a number whose value is a whole 0..3 is that ``PROPERTY_RESULT`` (``require 'system.properties'``:
  SUCCESS 0, NOT_FOUND 1, PERMISSION_DENIED 2, INVALID_ARGUMENT 3); ``readProperty`` may return a
  string instead, the property's value (SUCCESS); anything else (nil, a boolean, a table, another
  number, several values) is PERMISSION_DENIED. ``tostring`` of a number that play changes is a
  string the host writes from the number (:class:`compile_lua.device.values.NumText`).
- ``listProperty(key, callback)``: each ``callback(key, mode)`` lists one property, ``mode`` any of
  ``r``, ``w`` and ``l`` (an empty mode lists nothing). The calls are recorded when the call is
  translated, so a call under a condition known only at play time is refused; a key or mode that is
  not a string, or a mode with another letter, is a Lua error in dmlab2d, and the listing is then
  PERMISSION_DENIED.
- ``readProperty`` and ``listProperty`` may read play-time state but not change it (jaxlab reads
  properties without a new state); ``writeProperty`` may change it, within the kinds of values the
  state holds (a write that would make an integer variable a float, or give a string variable a
  string it never held, is refused).

A refusal is a :class:`~compile_lua.device.DeviceRejection` at the callback's line, raised when the
key is first used.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import jax
import jax.numpy as jnp

from compile_lua.device.interp import Interpreter
from compile_lua.device.source import reject
from compile_lua.device.translate import Translation
from compile_lua.device.values import NumText, Str, as_num, is_traced, lua_type, tostring

SUCCESS, PERMISSION_DENIED = 0, 2
#: the property callbacks of Lab2D's level API
NAMES = ("readProperty", "writeProperty", "listProperty")
#: the letters of a listed property's mode
MODES = "rwl"


class _Watched(Interpreter):
    """An Interpreter that knows how many branches on traced conditions it is inside (``depth``) and
    which state it began with, to tell what a callback changed."""

    def __init__(self, outline, env):
        super().__init__(outline, env)
        self.depth, self.began, self.began_key = 0, dict(env.state), env.key

    def branch(self, c, then, otherwise, statements: bool = False) -> None:
        self.depth += 1
        try:
            super().branch(c, then, otherwise, statements)
        finally:
            self.depth -= 1

    def changed(self) -> List[str]:
        """The state keys some path of the callback wrote (``random`` for a draw)."""
        keys = [k for k, v in self.env.state.items() if v is not self.began.get(k)]
        return keys + (["random"] if self.env.key is not self.began_key else [])


def result_code(values: List[Any]) -> jax.Array:
    """The PROPERTY_RESULT (int32[]) that a callback's return ``values`` stand for: one number whose value
    is a whole 0..3 is that code; anything else is PERMISSION_DENIED."""
    if len(values) != 1 or lua_type(values[0]) != "number":
        return jnp.int32(PERMISSION_DENIED)
    x = as_num(values[0])
    whole = True if x.is_int else x.x == jnp.floor(x.x)
    return jnp.where(whole & (x.x >= 0) & (x.x <= 3), x.x, PERMISSION_DENIED).astype(jnp.int32)


class PropertyCallbacks:
    """The property callbacks of ``tr`` (a rebuilt raw-API translation) as ``RawEnv`` takes them (see
    ``jaxlab.kernels.lab2d_raw``); the script's state ``lua`` is one episode's ``{"key", "vars"}``."""

    def __init__(self, tr: Translation):
        self.tr, self.inputs = tr, tr.inputs()
        self._reads: Dict[str, Tuple[Callable, Dict[str, Callable]]] = {}
        self._lists: Dict[str, Tuple[Callable, List[Tuple[str, str]]]] = {}

    def callbacks(self) -> Dict[str, Callable]:
        """name -> callback for each property callback the script defines."""
        made = {"readProperty": self.read, "writeProperty": self.write, "listProperty": self.listing}
        graph = self.tr.host
        return {name: made[name] for name in NAMES if name in self.tr.outline.methods
                or (graph is not None and graph.field(graph.root, name) is not None)}

    def read(self, lua: Any, key: str) -> Tuple[int, str]:
        """``api:readProperty(key)`` on ``lua`` (run on the host's device now): ``(code, text)``, the
        PROPERTY_RESULT and, for SUCCESS, the value's text (``''`` when the callback returned SUCCESS)."""
        if key not in self._reads:
            self._reads[key] = self._compile_read(key)
        fn, shown = self._reads[key]
        out = jax.device_get(fn(lua))
        return shown["decode"](out)

    def write(self, lua: Any, key: str, value: str) -> Tuple[Any, jax.Array]:
        """``api:writeProperty(key, value)`` on ``lua``: ``(lua, code int32[])``, a JAX function of ``lua``
        (``key`` and ``value`` are strings known when it is traced)."""
        new, values, _ = self._run("writeProperty", lua, [key, value], read_only=False)
        return new, result_code(values)

    def listing(self, lua: Any, key: str) -> Tuple[int, List[Tuple[str, str]]]:
        """``api:listProperty(key, callback)`` on ``lua``: ``(code, [(key, mode)])``, the properties listed in
        the order of the callback's calls (none unless the code is SUCCESS)."""
        if key not in self._lists:
            self._lists[key] = self._compile_list(key)
        fn, listed = self._lists[key]
        code = int(fn(lua))
        return code, (list(listed) if code == SUCCESS else [])

    def _run(self, name: str, lua: Any, args: List[Any], read_only: bool):
        """Trace ``name`` on ``lua`` with ``args``; refuse a new kind of value in the state, or (``read_only``)
        any change of it."""
        tr, before = self.tr, dict(self.tr.layout)
        new, values, it = tr.run(name, lua, self.inputs, args, _Watched)
        call = f"api:{name}({', '.join(repr(a) for a in args if isinstance(a, str))})"
        line = getattr(tr.outline.methods.get(name), "line", None)   # None: a method of the host's api
        widened = sorted(k for k in tr.layout if tr.layout[k] != before[k])
        if widened:
            tr.layout.update(before)
            reject(tr.outline.path, line, f"{call} storing a new kind of value in {widened[0]}",
                   "play-time state keeps the kinds of values it holds when the level is made (an integer "
                   "stays an integer, a string one of the strings the script gives it)")
        if read_only and it.changed():
            reject(tr.outline.path, line, f"{call} changing {it.changed()[0]}", "jaxlab reads and lists "
                   "properties without changing play-time state; change it in writeProperty or advance")
        return new, values, it

    def _compile_read(self, key: str) -> Tuple[Callable, Dict[str, Callable]]:
        """A jitted ``fn(lua) -> arrays`` for ``readProperty(key)`` and ``shown["decode"](arrays) -> (code,
        text)``, set when ``fn`` is traced (by what the callback returns)."""
        shown: Dict[str, Callable] = {}

        def fn(lua):
            _, values, _ = self._run("readProperty", lua, [key], read_only=True)
            value = values[0] if len(values) == 1 else None
            if isinstance(value, str):
                shown["decode"] = lambda _: (SUCCESS, value)
                return ()
            if isinstance(value, Str):
                shown["decode"] = lambda gid: (SUCCESS, self.tr.strings[int(gid)])
                return value.gid
            if isinstance(value, NumText):
                number = int if value.num.is_int else float
                shown["decode"] = lambda x: (SUCCESS, tostring(number(x)))
                return value.num.x
            shown["decode"] = lambda code: (int(code), "")
            return result_code(values)
        return jax.jit(fn), shown

    def _compile_list(self, key: str) -> Tuple[Callable, List[Tuple[str, str]]]:
        """A jitted ``fn(lua) -> code int32[]`` for ``listProperty(key, callback)`` and the ``[(key, mode)]``
        its callback lists, filled when ``fn`` is traced."""
        listed: List[Tuple[str, str]] = []
        broken: List[bool] = []

        def callback(it: Any, args: List[Any], node: Any) -> List[Any]:
            if it.depth or it.live() is not True:
                it.fail("listProperty's callback under a condition known only at play time", "the properties "
                        "a key lists are found when the call is translated, so each call must happen whatever "
                        "the state", node)
            name, mode = (list(args) + [None, None])[:2]
            if is_traced(name) or is_traced(mode):
                it.fail("listProperty's callback with a key or mode known only at play time", "the listed "
                        "keys and modes are strings the script spells out", node)
            if not isinstance(name, str) or not isinstance(mode, str) or set(mode) - set(MODES):
                broken.append(True)   # a Lua error in dmlab2d's callback
            elif mode:
                listed.append((name, mode))
            return []

        def fn(lua):
            listed.clear()
            broken.clear()
            _, values, _ = self._run("listProperty", lua, [key, callback], read_only=True)
            return jnp.int32(PERMISSION_DENIED) if broken else result_code(values)
        return jax.jit(fn), listed
