"""A sandboxed Lua 5.4 runtime (lupa) that runs a DMLab level script once.

Scripts and their modules get a restricted global environment (no os, io, debug, dofile/loadfile,
package.loadlib, string.dump, binary chunks, nor any Python object), a ``require`` confined to the script's
folder, extra search folders and the jaxlab Lua library (:data:`LIBRARY_DIR`; a file whose symlinks lead out of
its folder counts as absent), a wall-clock budget per callback and a memory cap. Every Lua error comes out as
:class:`compile_lua.errors.LuaScriptError` located at ``file:line`` in the script or its modules. The Lua side
lives in ``_sandbox_prelude.lua``.

Limits worth knowing: the time budget is checked by a Lua count hook, which makes pure-Lua loops about 2-3x slower
while a callback runs, and cannot stop a single long C call (e.g. a pathological string.find pattern), an error
handler that swallows its error, or a finalizer (Lua runs those without hooks): what stops those is the deadline
of the child process every user-facing compile runs in (``compile_lua.isolation``); a tail call (``return
f(x)``) removes the caller's frame, so an error raised below it is located at the innermost remaining frame
(possibly a library file).

    sb = Sandbox("levels/my_level.lua")
    api = sb.load_script()
    sb.seed(1)
    sb.call_method(api, "start", 0, 1)          # api:start(0, 1)
    text = sb.call("api:nextMap", api.nextMap, api)
"""
from __future__ import annotations

import hashlib
import importlib.resources
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import lupa.lua54 as lupa

from compile_lua.errors import HostError, LuaScriptError, printable
from compile_lua.lua_values import to_lua, to_python

PathLike = Union[str, Path]

HOOK_COUNT = 10_000   # Lua instructions between two looks at the clock
SANDBOX_NOTE = ("level scripts run sandboxed (no os, io, debug, package.loadlib, "
                "dofile/loadfile)")
#: compile_lua's Lua library (package data): dmlab.system.*, common.*, factories.*, and the sandbox prelude
LIBRARY_DIR = Path(str(importlib.resources.files("compile_lua") / "lua"))
_PRELUDE = LIBRARY_DIR / "_sandbox_prelude.lua"
_LOCATION = re.compile(r"^(.*?):(\d+): (.*)$", re.S)
_PLAIN_FILE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")   # no folder, no leading dot


def _inside(root: Path, relative: str) -> Optional[Path]:
    """The real path of the file ``root / relative`` when it exists and, after every symlink is resolved,
    lies inside ``root`` (itself resolved); None otherwise. The rule for every name written in a level
    script (a module, a map): a symlink out of its folder is a file that is not there."""
    candidate = root / relative
    if not candidate.is_file():
        return None
    real = candidate.resolve()
    return real if real.is_relative_to(root.resolve()) else None


def _refuse_attribute(obj: Any, name: Any, is_setting: bool) -> Any:
    raise AttributeError(f"Python objects are not accessible: {SANDBOX_NOTE}")


class Sandbox:
    """One level script in its own sandboxed Lua runtime.

    Attributes: ``lua`` (the lupa LuaRuntime), ``library_dir`` (the jaxlab
    Lua library), ``files`` (resolved path -> sha256 hex of every Lua file
    loaded: the script and each module required), ``script`` (the script path
    as given, used in messages), ``time_limit_s``, ``memory_limit_mb``,
    ``host_functions`` (name -> ``fn(sandbox, *args)``: what the library's
    engine modules reach through their ``host(name, ...)``; ``fn`` raises
    ``HostError`` to refuse, which becomes a Lua error in the module's caller).
    """

    #: when a list: every Lua state made from then on, kept open until the process ends (the isolated compile)
    kept_open: Optional[List[Any]] = None

    def __init__(self, script: PathLike, search_dirs: Sequence[PathLike] = (), *,
                 time_limit_s: float = 10.0, memory_limit_mb: int = 256,
                 print_fn: Optional[Callable[[str], None]] = None,
                 host_functions: Optional[Mapping[str, Callable[..., Any]]] = None):
        self.script = str(script)
        self._script_path = Path(script)
        self.time_limit_s = float(time_limit_s)
        self.memory_limit_mb = int(memory_limit_mb)
        self.library_dir = LIBRARY_DIR
        self.files: Dict[str, str] = {}
        self.host_functions = dict(host_functions or {})
        self._chunks: Dict[str, bool] = {}   # chunk name (display path) -> is library
        self._real_paths: Dict[str, Path] = {}   # chunk name (display path) -> the file read
        self._script_lines: List[str] = []
        script_dir = self._script_path.parent
        self._roots: List[Tuple[Path, str, bool]] = [
            (script_dir, "" if str(script_dir) == "." else str(script_dir), False)]
        self._roots += [(Path(d), str(d), False) for d in search_dirs]
        self._roots.append((self.library_dir, "", True))
        name = self._script_path.name
        self._print = print_fn or (lambda text: print(f"[{name}] {printable(text)}", file=sys.stderr))
        self.lua = lupa.LuaRuntime(
            register_eval=False, register_builtins=False, unpack_returned_tuples=True,
            attribute_filter=_refuse_attribute,
            max_memory=self.memory_limit_mb * 2**20)
        (Sandbox.kept_open if Sandbox.kept_open is not None else []).append(self.lua)   # never collected there
        callbacks = self.lua.table_from({
            "print": self._lua_print, "now": time.monotonic, "find": self._find_module, "host": self._host_call,
            "count": HOOK_COUNT, "note": SANDBOX_NOTE})
        self._p = self.lua.execute(_PRELUDE.read_text(encoding="utf-8"), callbacks)
        self._p.seed(0)   # Lua 5.4 seeds math.random from the clock otherwise

    # -- public API ------------------------------------------------------------

    def load_script(self) -> Any:
        """Runs the script's main chunk under the time budget and returns what
        it returned (usually the ``api`` table; None if it returned nothing).
        Raises LuaScriptError for syntax and runtime errors."""
        try:
            data = self._script_path.read_bytes()
        except OSError as e:
            raise LuaScriptError(self.script, None,
                                 f"cannot read the level script: {e.strerror or e}") from None
        self._record(self.script, self._script_path, data, library=False)
        self._script_lines = data.decode("utf-8", "replace").splitlines()
        fn, err = self._p.load_text(data, "@" + self.script)
        if fn is None:
            path, line, msg = self._split_location(str(err))
            raise LuaScriptError(path or self.script, line, msg)
        return self._run("main chunk", fn, ())

    def call(self, what: str, func: Any, *args: Any) -> Any:
        """Calls the Lua function ``func(*args)`` with a fresh time budget.

        ``what`` names the callback in messages (e.g. "api:nextMap"); for a
        method pass the table first: ``call("api:nextMap", api.nextMap, api)``.
        Python dicts/lists/tuples/numpy arrays among ``args`` are converted to
        Lua tables. Returns None, the single result, or a tuple of results
        (Lua tables stay lupa tables: see :meth:`to_python`; strings that are
        not UTF-8 come back as bytes). Raises LuaScriptError."""
        if func is None:
            raise LuaScriptError(self.script, None,
                                 f"in {what}: the script does not define {what}")
        if lupa.lua_type(func) is None:
            raise TypeError(f"{what}: expected a Lua function, got {type(func).__name__}")
        return self._run(what, func, tuple(to_lua(self.lua, a) for a in args))

    def call_method(self, obj: Any, name: str, *args: Any, what: Optional[str] = None) -> Any:
        """``obj:name(*args)`` via :meth:`call`; ``what`` defaults to "api:<name>"."""
        return self.call(what or f"api:{name}", obj[name], obj, *args)

    def require(self, name: str) -> Any:
        """The module ``name`` as the script's ``require`` loads it (cached in
        package.loaded; the file is recorded in :attr:`files`)."""
        return self._run(f"require '{name}'", self._p.require, (name,))

    @property
    def search_dirs(self) -> List[Path]:
        """The search folders given to the sandbox (``search_dirs``; e.g. the levels folder), in order."""
        return [root for root, _ in self.data_folders[1:]]

    @property
    def data_folders(self) -> List[Tuple[Path, str]]:
        """(folder, prefix of its display paths) of the folders a script's data files are read from: the
        script's folder, then ``search_dirs`` (never the jaxlab library)."""
        return [(root, prefix) for root, prefix, library in self._roots if not library]

    def read_data_file(self, file_name: str, extra_roots: Sequence[PathLike] = (), *, own_folders: bool = True,
                       max_bytes: Optional[int] = None) -> Optional[Tuple[str, bytes]]:
        """(display path, bytes) of the data file ``file_name`` (e.g. ``"my_map.txt"``) found in the
        script's folder, then ``search_dirs`` (both skipped when ``own_folders`` is False), then
        ``extra_roots`` (e.g. the built-in maps); None when
        ``file_name`` is not a plain file name (a folder, ``..``, an absolute path, a leading dot) or is
        in none of them (a file that resolves, after symlinks, outside the folder it is in counts as
        absent: :func:`_inside`): callers give one message for all of these, so a script learns nothing
        of files outside those folders. The file read is recorded in :attr:`files` (a compile's inputs
        and its cache key). ValueError naming the file when it is larger than ``max_bytes``."""
        if not _PLAIN_FILE_NAME.fullmatch(file_name) or ".." in file_name:
            return None
        roots = self.data_folders if own_folders else []
        return self.read_inside(file_name, roots + [(Path(root), str(root)) for root in extra_roots], max_bytes)

    def read_inside(self, relative: str, roots: Sequence[Tuple[Path, str]],
                    max_bytes: Optional[int] = None) -> Optional[Tuple[str, bytes]]:
        """(display path, bytes) of ``relative`` (a path checked by the caller) in the first of ``roots``
        ((folder, display prefix) pairs) that holds it inside itself after symlinks (:func:`_inside`), read
        and recorded in :attr:`files`; None when none does. ValueError naming the file when it is larger
        than ``max_bytes`` (at most ``max_bytes + 1`` bytes are read)."""
        for root, prefix in roots:
            real = _inside(root, relative)
            if real is None:
                continue
            display = f"{prefix}/{relative}" if prefix else relative
            with real.open("rb") as handle:
                data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
            if max_bytes is not None and len(data) > max_bytes:
                raise ValueError(f"{display} is larger than {max_bytes} bytes")
            self.files[str(real)] = hashlib.sha256(data).hexdigest()
            return display, data
        return None

    def seed(self, seed: int) -> None:
        """Re-seeds math.random and the level generator (dmlab.system.random, also common.random; now if it is
        loaded, else when first required) deterministically with ``seed``."""
        n = int(seed) & (2**64 - 1)
        if n >= 2**63:
            n -= 2**64
        self._run("seed", self._p.seed, (n,))

    def to_python(self, value: Any) -> Any:
        """Lua data as Python data (see :func:`compile_lua.lua_values.to_python`):
        tables -> dict, or list when the keys are exactly 1..n; numbers stay
        int/float; tensors -> numpy arrays of their dtype and shape."""
        try:
            return to_python(self._p, value)
        except lupa.LuaError as e:
            raise ValueError(f"cannot convert a Lua value: {e}") from None

    def upvalues(self, func: Any) -> Dict[str, Any]:
        """Name -> value (lupa objects) of Lua function ``func``'s upvalues (the outer locals it uses), no ``_ENV``."""
        names, values, count = self._p.upvalues(func)
        return {names[i]: values[i] for i in range(1, count + 1)}

    def same(self, a: Any, b: Any) -> bool:
        """Whether Lua values ``a`` and ``b`` are one object (``rawequal``: lupa's wrappers never are)."""
        return bool(self._p.same(a, b))

    def field(self, table: Any, key: Any) -> Any:
        """``table[key]`` with no metamethod run (``rawget``: engine modules refuse unknown fields)."""
        return self._p.field(table, key)

    def defined_at(self, func: Any) -> Optional[Tuple[str, Path, int, int]]:
        """Where Lua function ``func`` is written: (display path, real path, first line, last line) in a file
        the sandbox loaded (the script or a module), else None (a C function, a chunk ``load`` made)."""
        source, first, last = self._p.where(func)
        display = source[1:] if isinstance(source, str) and source.startswith("@") else None
        real = self._real_paths.get(display)
        return (display, real, int(first), int(last)) if real is not None else None

    def table(self, obj: Any) -> Any:
        """Python dicts/lists (nested) as Lua tables (see
        :func:`compile_lua.lua_values.to_lua`)."""
        return to_lua(self.lua, obj)

    # -- running -----------------------------------------------------------------

    def _run(self, what: str, func: Any, args: tuple) -> Any:
        deadline = time.monotonic() + self.time_limit_s
        try:
            r, expired, seen_src, seen_line, binary = self._p.run(deadline, func, *args)
        except lupa.LuaMemoryError:
            self._p.reset()
            raise self._memory_error(what, None, None) from None
        except lupa.LuaError as e:
            self._p.reset()
            path, line, msg = self._split_location(str(e).split("\nstack traceback:")[0])
            raise LuaScriptError(path or self.script, line, f"in {what}: {msg}") from None
        if expired is not None:
            path, line, _ = self._pick(self._frames(expired))
            raise LuaScriptError(path, line, f"script ran longer than {self.time_limit_s:g} s "
                                             f"(infinite loop?) in {what}")
        if r[1]:
            results = [r[i] for i in range(2, r["n"] + 1)]
            for i in (binary.keys() if binary is not None else ()):
                results[i - 2] = bytes.fromhex(results[i - 2])
            return None if not results else results[0] if len(results) == 1 else tuple(results)
        err = r[2]
        if lupa.lua_type(err) != "table":   # the handler did not run: out of memory
            self._p.collect()
            if err == "not enough memory":
                raise self._memory_error(what, seen_src, seen_line)
            raise LuaScriptError(self.script, None, f"in {what}: {err} (out of memory or "
                                                    "stack in an error handler?)")
        return self._raise_script_error(what, err)

    def _memory_error(self, what: str, src: Optional[str], line: Optional[int]) -> LuaScriptError:
        path = src if src in self._chunks else self.script
        return LuaScriptError(path, line if src in self._chunks else None,
                              f"in {what}: the script exceeded the memory limit of "
                              f"{self.memory_limit_mb} MB (memory_limit_mb)")

    def _raise_script_error(self, what: str, info: Any) -> Any:
        frames = self._frames(info["frames"])
        msg = info["msg"]
        if msg is None:
            msg = self._describe_error_value(info["kind"], info["value"])
        where_path, where_line, text = self._split_location(msg)
        if where_path is not None and not self._chunks[where_path]:
            path, line = where_path, where_line              # raised in user code
        else:
            path, line, note = self._pick(frames, where_path, where_line, main_chunk=what == "main chunk")
            if where_path is not None and (where_path, where_line) != (path, line):
                text += f" (raised in {where_path}:{where_line})"
            text += note
        raise LuaScriptError(path, line, f"in {what}: {text}")

    def _describe_error_value(self, kind: str, value: Any) -> str:
        if kind == "nil":
            return "error object is nil (error() called without a message)"
        if kind == "table":
            try:
                shown = repr(self.to_python(value))
            except (ValueError, lupa.LuaError):
                shown = "{...}"
            if len(shown) > 200:
                shown = shown[:200] + "..."
            return f"error object is a table: {shown}"
        return f"error object is a {kind}: {value!r}"

    def _frames(self, flat: Any) -> List[Tuple[str, int, bool]]:
        items = [flat[i] for i in range(1, len(flat) + 1)]
        return [(items[i], int(items[i + 1]), bool(items[i + 2]))
                for i in range(0, len(items) - 2, 3) if items[i] in self._chunks]

    def _pick(self, frames: List[Tuple[str, int, bool]], fallback_path: Optional[str] = None,
              fallback_line: Optional[int] = None, main_chunk: bool = False) -> Tuple[str, Optional[int], str]:
        """(path, line, note): the innermost frame in the script or a user
        module; else, when the script's main chunk tail-called the library
        (``return factory.createLevelApi{...}``), its last top-level ``return``,
        the one statement that can make that call; else the fallback (a library
        location); else the innermost library frame. ``note`` explains a
        location lost to a tail call."""
        for path, line, _ in frames:
            if not self._chunks[path]:
                return path, line, ""
        tail_call = any(tail for _, _, tail in frames)
        note = (" (reached through a tail call such as `return f(...)`, which hides the "
                "calling line)" if tail_call else "")
        returns = [n for n, text in enumerate(self._script_lines, 1) if text.startswith("return")]
        if main_chunk and tail_call and returns:
            return self.script, returns[-1], ""
        if fallback_path is not None:
            return fallback_path, fallback_line, note
        if frames:
            return frames[0][0], frames[0][1], note
        return self.script, None, note

    def _split_location(self, msg: str) -> Tuple[Optional[str], Optional[int], str]:
        """Splits "chunk:line: text" when chunk is a loaded file (Lua shortens
        long chunk names to "...<tail>"); else (None, None, msg)."""
        m = _LOCATION.match(msg)
        if m:
            chunk, line, text = m.group(1), int(m.group(2)), m.group(3)
            if chunk in self._chunks:
                return chunk, line, text
            if chunk.startswith("..."):
                for name in self._chunks:
                    if name.endswith(chunk[3:]):
                        return name, line, text
        return None, None, msg

    # -- callbacks from Lua ------------------------------------------------------

    def _lua_print(self, text: str) -> None:
        try:
            self._print(text)
        except Exception:   # noqa: BLE001 - a broken print_fn must not reach Lua
            pass

    def _record(self, display: str, path: Path, data: bytes, library: bool) -> None:
        self.files[str(path.resolve())] = hashlib.sha256(data).hexdigest()
        self._chunks[display] = library
        self._real_paths[display] = path.resolve()

    def _find_module(self, name: str) -> Tuple[Optional[str], Any]:
        """(display path, source bytes, in the jaxlab library) of module ``name``, or (None, message)."""
        try:
            return self._find_module_unchecked(name)
        except Exception as e:   # noqa: BLE001 - report, never raise into Lua
            return None, f"cannot load the module: {e}"

    def _host_call(self, name: str, *args: Any) -> Tuple[bool, Any]:
        """``host(name, ...)`` from a library module: (True, the result as Lua data) of the host function
        ``name`` (of :attr:`host_functions`) called with ``self`` and the arguments as Python data, or
        (False, its message) when it refuses them (``HostError``) or there is no such function."""
        fn = self.host_functions.get(name)
        if fn is None:
            return False, f"no host function {name!r}"
        try:
            return True, to_lua(self.lua, fn(self, *(self.to_python(a) for a in args)))
        except HostError as e:
            return False, str(e)

    def _find_module_unchecked(self, name: str) -> Tuple[Optional[str], Any]:
        parts = name.split(".")
        if (not name or ".." in name or "/" in name or "\\" in name or Path(name).is_absolute()
                or any(not p for p in parts)):
            return None, "invalid module name"
        rels = ["/".join(parts) + ".lua", "/".join(parts) + "/init.lua"]
        for root, prefix, library in self._roots:
            for rel in rels:
                real = _inside(root, rel)
                if real is None:
                    continue
                display = f"{prefix}/{rel}" if prefix else rel
                data = real.read_bytes()
                self._record(display, real, data, library)
                return display, data, library
        searched = ", ".join(str(root) if not library else f"{root} (jaxlab library)"
                             for root, _, library in self._roots)
        return None, f"module not found: looked for {' and '.join(rels)} in {searched}"
