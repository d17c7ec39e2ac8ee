"""Play-time Lua on the device: DMLab-style callbacks translated into pure JAX functions.

:func:`translate` takes a script whose main chunk has run in jaxlab's sandbox
(:func:`compile_lua.loading.load_script`) and the api callbacks to translate, each with example
arguments, and returns a :class:`Translation` whose ``callbacks[name]`` is::

    step(state, inputs, *args) -> (state, result, effects)

- ``state``: ``{"key": uint32[2] PRNG key, "vars": {name: array}}``: the script's play-time
  variables, ``local.<name>`` for top-level locals the callbacks use, ``api.<field>`` for fields
  of the api table (``self``). Numbers are int32 (Lua integers) or float32 (floats; a variable that
  ever holds a float is carried as float32), booleans bool, strings int32 ids into
  ``Translation.strings``, tables of numbers/booleans (n,) arrays. ``Translation.initial_state(seed)``
  gives the values the script's top level and ``init`` left, read on the host.
- ``inputs``: what the engine supplies (``Translation.inputs(...)``, the first-person kernel's
  ``script_inputs``): ``episode_time`` (float32 seconds, for ``game:episodeTimeSeconds()``), ``player``
  (``pos``/``vel``/``angles``/``anglesVel``/``eyePos`` float32[3], ``height``, ``score`` float32,
  ``teleported`` bool, for ``game:playerInfo()``) and ``walls`` (the level's solid cells, for
  ``game:raycast``; :mod:`compile_lua.device.engine_reads`).
- ``effects``: what the callback asked of the engine: ``score`` (float32, the sum of its
  ``game:addScore`` calls) and ``finish`` (bool, ``game:finishMap()`` was called).
- ``result``: the callback's return value as a pytree (None, one value, or a tuple of values;
  strings as ids, records as dicts).

Everything else is rejected by :func:`translate` with one :class:`~compile_lua.errors.LuaScriptError`
(a :class:`DeviceRejection`): ``file:line: <construct> cannot run on the device: <why>``.
"""
from compile_lua.device.source import DeviceRejection
from compile_lua.device.translate import Translation, read_host_state, rebuild, translate

__all__ = ["DeviceRejection", "Translation", "read_host_state", "rebuild", "translate"]
