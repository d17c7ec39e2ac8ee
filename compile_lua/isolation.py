"""Compiles in a child process: a level script cannot hang, exhaust or outlive the caller's process.

Every compile that ``jaxlab.make("x.lua")``, the ``Lab2d`` host and the
``compile_lua`` command start runs through :func:`compile_in_child`: a fresh
Python (``python -m compile_lua.isolation``) in its own session, holding only
its three standard streams (stdin: the request as JSON; stdout: framed
replies; stderr: a temporary file), which caps its own address space
(``RLIMIT_AS``: its start-up plus ``memory_mb``), its CPU seconds (``RLIMIT_CPU``, the deadline's worth) and
core dumps and asks to be killed with its parent (Linux) before any Lua runs, compiles in-process
(``compile_lua.compiled.compile_in_process``) and leaves with ``os._exit``,
so a Lua ``__gc`` finalizer never runs anywhere. The caller waits until the
wall-clock deadline; past it, on Ctrl-C, or as soon as the answer is in, the
child is killed. Replies are decoded by an unpickler that admits plain data
and the grid spec's dataclasses only; a DMLab bank comes back as a
``.jaxlab`` file in a folder the caller made, read by the validating
``jaxlab.bank_file.load_bank``. POSIX only (``select`` on a pipe, resource
limits).

The in-Lua instruction budget (``compile_lua.loading.TIME_LIMIT_S`` per
callback, the calling process's value) still gives the located ``file:line`` message for a runaway loop;
the deadline here is for what it cannot stop: long C calls, error handlers
that loop, finalizers, and compiles that are merely slow.
"""
from __future__ import annotations

import ctypes
import dataclasses
import io
import json
import math
import os
import pickle
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, Mapping, Optional, Tuple

from compile_lua import loading
from compile_lua.sandbox import Sandbox
from compile_lua.errors import CompileLimitError, CompileWarning, LuaScriptError, printable
from jaxlab.errors import UnknownNameError
from jaxlab.levels.dmlab.map_parser import MapError
from jaxlab.levels.lab2d.spec import GridSpecError

_HEADER = 8                       # bytes of a reply frame's length (big-endian)
_BANK_FILE = "bank.jaxlab"
_PR_SET_PDEATHSIG = 1             # prctl option: the signal a child gets when its parent dies
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent
# errors the child reports as themselves; any other is a compiler failure (RuntimeError)
_ERRORS: Dict[str, Callable[..., Exception]] = {
    "LuaScriptError": LuaScriptError, "MapError": MapError, "UnknownNameError": UnknownNameError,
    "GridSpecError": GridSpecError, "FileNotFoundError": FileNotFoundError, "ValueError": ValueError,
    "TypeError": TypeError, "RuntimeError": RuntimeError, "CompileLimitError": CompileLimitError}


@dataclasses.dataclass(frozen=True)
class CompileLimits:
    """Limits of one compile's child process.

    ``timeout_s``: wall-clock seconds from the child's start (its Python start
    included, ~2-4 s) to its answer; ``memory_mb``: the address space in MiB
    the compile may take beyond the child's start-up (Python, numpy, JAX and
    lupa, ~1.6 GiB, and whatever JAX's plugins map: ``_start_up_bytes``); the
    Lua heap has its own 256 MiB cap inside.
    """

    timeout_s: float = 120.0
    memory_mb: int = 4096
    #: the range of each limit: (low, high)
    RANGES: ClassVar[Dict[str, Tuple[float, float]]] = {"timeout_s": (1.0, 7 * 86_400.0), "memory_mb": (256, 2 ** 30)}

    def __post_init__(self):
        for name, (low, high) in self.RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"compile limit {name} must be a number in [{low}, {high}], got {value!r}")


def compile_in_child(path, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1, seed: int = 0,
                     levels_dir=None, *, limits: CompileLimits = CompileLimits(),
                     print_fn: Optional[Callable[[str], None]] = None, argument: str = ""):
    """``compile_lua.compiled.compile_in_process(...)`` run in a child process under ``limits``.

    ``print_fn`` receives each line the script prints (default: stderr as
    ``[script.lua] text``, control characters escaped). CompileWarnings are
    re-issued here. Returns a ``CompiledScript`` (``cached`` False). Raises
    what the compile raises (LuaScriptError, MapError, UnknownNameError,
    GridSpecError, FileNotFoundError, ValueError), CompileLimitError when the
    deadline passes or the child dies (e.g. at the memory cap), and
    KeyboardInterrupt on Ctrl-C (the child killed first).
    """
    from compile_lua.compiled import CompiledScript
    from jaxlab.bank_file import BankFileError, load_bank
    from jaxlab.levels.dmlab.level import Level

    path = Path(path)
    name = path.name
    print_fn = print_fn or (lambda text: print(f"[{name}] {printable(text)}", file=sys.stderr))
    folder = tempfile.mkdtemp(prefix="jaxlab-compile-")
    request = {"path": str(path), "settings": dict(settings) if settings is not None else None,
               "episodes": int(episodes), "seed": int(seed),
               "levels_dir": str(levels_dir) if levels_dir is not None else None, "argument": str(argument),
               "bank_path": os.path.join(folder, _BANK_FILE), "memory_mb": int(limits.memory_mb),
               "timeout_s": float(limits.timeout_s), "parent_pid": os.getpid(),
               "call_limit_s": float(loading.TIME_LIMIT_S)}
    try:
        kind, payload = _run_child(str(path), request, limits, print_fn)
        if kind == "error":
            raise _rebuilt_error(*payload) from None
        if kind == "lab2d":
            return CompiledScript("lab2d", grid=payload)
        if kind == "lab2d_raw":
            return CompiledScript("lab2d_raw", raw=payload)
        try:
            bank, meta = load_bank(request["bank_path"], Level)
        except BankFileError as err:
            raise LuaScriptError(str(path), None, "the compiled level is refused: "
                                 + str(err)[len(err.path) + 2:]) from None
        return CompiledScript("dmlab", bank=bank, meta=meta)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_child(script: str, request: Dict[str, Any], limits: CompileLimits,
               print_fn: Callable[[str], None]) -> Tuple[str, Any]:
    """(kind, payload) of the child's final reply; CompileLimitError past the deadline or on a death."""
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(_PACKAGE_ROOT)] + [p for p in os.environ.get(
                   "PYTHONPATH", "").split(os.pathsep) if p]))
    deadline = time.monotonic() + limits.timeout_s
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "compile_lua.isolation"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=stderr, close_fds=True,
                                start_new_session=True, env=env)
        try:
            proc.stdin.write(json.dumps(request).encode())
            proc.stdin.close()
            reply = _read_replies(proc.stdout.fileno(), deadline, print_fn)
        except BrokenPipeError:
            reply = None
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()
        if reply == "timeout":
            raise CompileLimitError(script, None, f"compile exceeded {limits.timeout_s:g} s, its deadline "
                                                  "(--timeout, compile_timeout_s); the compile was stopped")
        if reply is None:
            stderr.seek(0)
            said = stderr.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
            died = proc.returncode
            how = f"signal {signal.Signals(-died).name}" if died < 0 else f"exit status {died}"
            # one line: the last its stderr holds (a traceback's exception), never the whole traceback
            cap = f"its memory cap is {limits.memory_mb} MB (--memory-mb, compile_memory_mb)"
            raise CompileLimitError(script, None, f"the compile process died ({how}) without an answer; {cap}"
                                                  + (f"; it said: {said[-1].strip()}" if said else ""))
        return reply


def _read_replies(fd: int, deadline: float, print_fn: Callable[[str], None]):
    """Reads reply frames from ``fd`` until the final one: (kind, payload); "timeout"; None at EOF.
    Prints are passed to ``print_fn`` and CompileWarnings re-issued as they arrive."""
    buffer = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "timeout"
        if not select.select([fd], [], [], left)[0]:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None
        buffer += chunk
        while len(buffer) >= _HEADER:
            size = int.from_bytes(buffer[:_HEADER], "big")
            if len(buffer) < _HEADER + size:
                break
            kind, payload = _ReplyUnpickler(io.BytesIO(bytes(buffer[_HEADER:_HEADER + size]))).load()
            del buffer[:_HEADER + size]
            if kind == "print":
                print_fn(str(payload))
            elif kind == "warning":
                warnings.warn(CompileWarning(str(payload)), stacklevel=4)
            else:
                return kind, payload


class _ReplyUnpickler(pickle.Unpickler):
    """Admits the dataclasses of a compiled grid or raw-API script and nothing else by name."""

    def find_class(self, module: str, name: str) -> Any:
        from compile_lua.device import host_graph
        from compile_lua.lab2d import compiler as lab2d_compiler, raw as lab2d_raw
        from jaxlab.levels.lab2d import grid_world, raw as raw_spec, spec as grid_spec

        # classes a reply may hold (dataclasses only); everything else in a reply is plain data
        reply_modules = {m.__name__: m for m in (grid_spec, lab2d_compiler, raw_spec, lab2d_raw, host_graph,
                                                 grid_world)}
        if module in reply_modules:
            found = getattr(reply_modules[module], name, None)
            if isinstance(found, type) and dataclasses.is_dataclass(found):
                return found
        raise pickle.UnpicklingError(f"a compile reply may not hold {module}.{name}")


def _rebuilt_error(name: str, args: tuple) -> Exception:
    """The child's error as the caller's exception of the same type."""
    return _ERRORS.get(name, RuntimeError)(*args)


def _error_reply(err: BaseException, script: str, memory_mb: int) -> Tuple[str, tuple]:
    """(type name, constructor args) of a compile error, for :func:`_rebuilt_error`."""
    if isinstance(err, LuaScriptError):
        return "LuaScriptError", (err.path, err.line, err.message)
    if isinstance(err, MapError):
        where = f"{err.source}:{err.line}:{err.column}: "
        return "MapError", (err.source, err.line, err.column, str(err)[len(where):])
    if isinstance(err, MemoryError):
        return "CompileLimitError", (script, None, f"the compile ran out of memory: its memory cap is {memory_mb} MB "
                                                   "(--memory-mb, compile_memory_mb)")
    name = type(err).__name__
    if name in _ERRORS and name != "RuntimeError":
        return name, (str(err),)
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    return "RuntimeError", (f"{script}: the compiler failed: {printable(text)}",)


def _outlive_nothing(parent_pid: int, timeout_s: float) -> None:
    """Bounds the child without its parent's help: killed when its parent dies (Linux), and after
    its deadline's worth of CPU seconds (``RLIMIT_CPU``) whatever happens to the parent."""
    seconds = int(math.ceil(timeout_s)) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:   # the parent died before the line above
        os._exit(1)


def _start_up_bytes() -> int:
    """Bytes of address space the child holds once the compiler is imported and JAX's CPU backend has
    started: Python, numpy, JAX and lupa (~1.6 GiB) and whatever JAX's plugins map (a GPU plugin's
    libraries take gigabytes although the child computes on the CPU). The memory cap counts from here.
    0 where ``/proc`` is missing (there ``RLIMIT_AS`` is not enforced either)."""
    import jax

    import compile_lua.compiled  # noqa: F401 - what the compile needs is loaded before the count
    import jaxlab.bank_file  # noqa: F401
    jax.devices()
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except OSError:
        return 0


def _child_main() -> None:
    """The child: limits itself, compiles the request read from stdin, replies on the saved stdout."""
    request = json.loads(sys.stdin.buffer.read())
    _outlive_nothing(request["parent_pid"], request["timeout_s"])
    Sandbox.kept_open = []   # every Lua state stays open until os._exit: no finalizer of a script runs
    cap = _start_up_bytes() + int(request["memory_mb"]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)   # a stray write to stdout cannot break the frames

    def send(kind: str, payload: Any) -> None:
        data = pickle.dumps((kind, payload), protocol=pickle.HIGHEST_PROTOCOL)
        replies.write(len(data).to_bytes(_HEADER, "big") + data)
        replies.flush()

    with warnings.catch_warnings():
        warnings.simplefilter("always", CompileWarning)
        warnings.showwarning = lambda message, category, *_: (
            send("warning", str(message)) if issubclass(category, CompileWarning) else None)
        try:
            from compile_lua.compiled import compile_in_process
            from jaxlab.bank_file import save_bank

            loading.TIME_LIMIT_S = request["call_limit_s"]

            compiled = compile_in_process(request["path"], request["settings"], request["episodes"],
                                          request["seed"], request["levels_dir"],
                                          print_fn=lambda text: send("print", text), argument=request["argument"])
            if compiled.kind == "dmlab":
                save_bank(request["bank_path"], compiled.bank, compiled.meta)
                send("dmlab", None)
            elif compiled.kind == "lab2d_raw":
                send("lab2d_raw", compiled.raw)
            else:
                send("lab2d", compiled.grid)
        except Exception as err:   # noqa: BLE001 - every failure is reported to the caller
            send("error", _error_reply(err, request["path"], request["memory_mb"]))
    replies.close()
    os._exit(0)   # no interpreter teardown: a Lua finalizer must not run


if __name__ == "__main__":
    _child_main()
