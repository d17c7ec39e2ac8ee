"""Play-time callbacks turned into tables, with checks that they can be.

DMLab calls ``canPickup``, ``pickup``, ``hasEpisodeFinished``,
``customObservation`` and ``screenMessages`` while the game runs. jaxlab calls
each once per entity / observation / episode at compile time and stores the
results as arrays. That is only right when the results depend on what the
script set up in ``init``/``start``/``nextMap`` and on the arguments, not on
what happened during play. ``Tabulator`` checks this two ways: every callback
is called twice (the second pass in reverse order) and must answer the same,
and the script's ``api`` table must hold the same data before and after.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, List, Optional, Sequence

import numpy as np
from lupa.lua54 import lua_type

from compile_lua.errors import LuaScriptError
from compile_lua.lua_values import show_lua
from jaxlab.levels.dmlab.units import EYE_HEIGHT

# A Lua function (run in the sandbox's runtime) that renders every non-function
# value reachable from a table as text, keys sorted, cycles and depth bounded.
_SNAPSHOT_LUA = """
function(root)
  local seen, out = {}, {}
  local function walk(value, path, depth)
    local kind = type(value)
    if kind == 'function' or kind == 'thread' or kind == 'userdata' then return end
    if kind ~= 'table' then
      out[#out + 1] = path .. '=' .. kind .. ':' .. tostring(value)
      return
    end
    if seen[value] or depth > 8 then return end
    seen[value] = true
    local keys = {}
    for k in next, value do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do walk(rawget(value, k), path .. '.' .. tostring(k), depth + 1) end
  end
  walk(root, 'api', 0)
  return table.concat(out, '\\n')
end
"""

SUPPORTED = ("results that depend only on the arguments (the entity id, the observation name, "
             "the time) and on state the script sets in init, start or nextMap")


class Tabulator:
    """Calls play-time callbacks of one script's ``api`` and checks they can be tabulated.

    Args:
      sandbox: the compile's ``Sandbox``.
      api: the script's api table.
      path: the script path, for error messages.
      defined_at: callback name -> line where it is defined (or None).
    """

    def __init__(self, sandbox, api, path: str, defined_at: Callable[[str], Optional[int]]):
        self.sandbox, self.api, self.path, self.defined_at = sandbox, api, path, defined_at
        self._snapshot_fn = sandbox.lua.eval(_SNAPSHOT_LUA)
        self._game = sandbox.require("dmlab.system.game")

    def has(self, name: str) -> bool:
        """Whether the script defines callback ``name``."""
        return self.api[name] is not None

    def call(self, name: str, *args) -> Any:
        """``api:name(*args)`` in the sandbox (errors become LuaScriptError)."""
        return self.sandbox.call(f"api:{name}", self.api[name], self.api, *args)

    def call_recorded(self, name: str, *args):
        """``api:name(*args)`` with the game module's record reset first.

        Returns (result, score added with game:addScore, whether game:finishMap
        was called, console commands sent with game:console).
        """
        self.sandbox.call("game._reset", self._game["_reset"])
        result = self.call(name, *args)
        record = self._game["_record"]
        console = self.sandbox.to_python(record["console"]) or []
        return result, float(record["score"]), bool(record["finished"]), list(console)

    def stateless(self, name: str, keys: Sequence[Any], evaluate: Callable[[Any], Any]) -> List[Any]:
        """``[evaluate(k) for k in keys]``, checked to be repeatable.

        ``evaluate`` calls the callback ``name`` for one key and returns a
        comparable Python value. The keys are evaluated again in reverse order;
        a different answer, or a change in the api table's data, raises a
        LuaScriptError naming the callback.
        """
        before = self._snapshot()
        first = [evaluate(k) for k in keys]
        second = [evaluate(k) for k in reversed(keys)][::-1]
        for key, a, b in zip(keys, first, second):
            if not _same(a, b):
                self._reject(name, f"it answered {_show(a)} and then {_show(b)} for the same "
                                   f"argument {key!r}, so its result depends on game state")
        after = self._snapshot()
        if before != after:
            changed = _first_difference(before, after)
            self._reject(name, f"it changes the script's state ({changed})")
        return first

    def wrong_answer(self, name: str, expected: str, value: Any) -> LuaScriptError:
        """The error for callback ``name`` answering ``value`` where DMLab's API expects ``expected``
        (e.g. ``"a boolean (true or false)"``), located where the callback is defined."""
        return LuaScriptError(self.path, self.defined_at(name),
                              f"api:{name} must return {expected}, got {show_lua(value)}")

    def _snapshot(self) -> str:
        return self._snapshot_fn(self.api)

    def _reject(self, name: str, why: str) -> None:
        raise LuaScriptError(self.path, self.defined_at(name),
                             f"api:{name} cannot be compiled: {why}. jaxlab calls play-time callbacks "
                             f"once per entity at compile time; supported: {SUPPORTED}")


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and a.dtype == b.dtype and np.array_equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _show(value) -> str:
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) < 60 else text[:57] + "..."


def _first_difference(before: str, after: str) -> str:
    old, new = dict(_lines(before)), dict(_lines(after))
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            return f"{key}: {old.get(key, 'nil')} -> {new.get(key, 'nil')}"
    return "its data"


def _lines(snapshot: str) -> List[tuple]:
    pairs = []
    for line in snapshot.splitlines():
        key, _, value = line.partition("=")
        pairs.append((key, value.split(":", 1)[-1]))
    return pairs


def episode_seconds(tab: Tabulator, fps: int = 60, max_seconds: int = 3600, checked: bool = True) -> tuple:
    """The first frame time t = k/fps (k >= 1) at which ``hasEpisodeFinished(t)``
    is true, in seconds, found with a 1-second scan then a per-frame scan.

    Returns (seconds, capped): capped is True when it never returned true
    within ``max_seconds`` (the episode then lasts max_seconds). Raises
    LuaScriptError when it answers anything but a boolean (DMLab's rule: not
    nil, not a string, however Lua would read its truth). ``checked``: also
    check that the answer is repeatable and leaves the script's state alone
    (a tabulated callback must).
    """
    def finished(frames: int) -> bool:
        answer = tab.call("hasEpisodeFinished", frames / fps)
        if not isinstance(answer, bool):
            raise tab.wrong_answer("hasEpisodeFinished", "a boolean (true or false)", answer)
        return answer

    second = next((s for s in range(1, max_seconds + 1) if finished(s * fps)), None)
    if second is None:
        return float(max_seconds), True
    frames = next(k for k in range((second - 1) * fps + 1, second * fps + 1) if finished(k))
    if checked:
        tab.stateless("hasEpisodeFinished", [frames - 1, frames], finished)
    return frames / fps, False


@contextlib.contextmanager
def _compiled_answers_false(sandbox: Any, api: Any, name: str, path: str) -> Iterator[None]:
    """Within the block, the live callback ``name`` of ``api`` (a decorator's wrapper, in DMLab's style: each
    wrapper keeps the callback it wraps in an upvalue of the callback's name) calls, instead of the callback
    written in ``path`` (the one compiled onto the device), a function answering false: the host then asks
    what the decorators add alone, and the compiled callback's objects are not touched. The live callback is
    called as it is when no chain of such upvalues reaches ``path``."""
    p = sandbox._p
    wrapper = api[name]
    while wrapper is not None:
        inner = sandbox.upvalues(wrapper).get(name)
        at = sandbox.defined_at(inner) if lua_type(inner) == "function" else None
        if at is None:
            wrapper = None
        elif at[0] == path:
            break
        else:
            wrapper = inner
    if wrapper is None:
        yield
        return
    old, _ = p.set_upvalue(wrapper, name, p.answers_false)
    try:
        yield
    finally:
        p.set_upvalue(wrapper, name, old)


@contextlib.contextmanager
def _standing(tab: Tabulator, spawn: Optional[Sequence[Any]]) -> Iterator[None]:
    """Within it, ``game:playerInfo()`` on the host answers the player as the episode starts: standing still
    at ``spawn`` (x, y units, (yaw degrees, its range)), or at the origin facing east when there is none."""
    x, y, (yaw, _) = spawn if spawn is not None else (0.0, 0.0, (0.0, 0.0))
    info = {"pos": [x, y, 0.0], "vel": [0.0, 0.0, 0.0], "angles": [0.0, yaw, 0.0], "anglesVel": [0.0, 0.0, 0.0],
            "eyePos": [x, y, EYE_HEIGHT], "height": EYE_HEIGHT, "teleported": False, "score": 0.0}
    tab._game["_player"] = tab.sandbox.table(info)
    try:
        yield
    finally:
        tab._game["_player"] = None


def decorator_seconds(tab: Tabulator, compiled_path: str, spawn: Optional[Sequence[Any]], fps: int,
                      max_seconds: int) -> tuple:
    """(seconds, capped) of :func:`episode_seconds` for the time limit decorators add around a compiled
    ``hasEpisodeFinished`` (DMLab's ``decorators.timeout``: the wrapped callback, or the episode's length is
    up): the first frame the live callback answers true at the episode's start, asked on the host with the
    compiled callback (written in ``compiled_path``) answering false and the player standing at ``spawn``; the
    api's fields it set meanwhile (the clock a level keeps) are put back."""
    api = tab.api
    saved = dict(api.items())
    with _standing(tab, spawn), _compiled_answers_false(tab.sandbox, api, "hasEpisodeFinished", compiled_path):
        seconds, capped = episode_seconds(tab, fps, max_seconds, checked=False)
    for key in [k for k in api.keys() if k not in saved]:
        api[key] = None
    for key, value in saved.items():
        api[key] = value
    return seconds, capped
