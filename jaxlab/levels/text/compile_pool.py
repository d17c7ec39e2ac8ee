"""Compile many text games at once, in worker processes.

Compiling a game (``compile_spec``) is pure Python and numpy: grounding the
rules over the world and writing the text tables take tens of milliseconds a
game, so a bank of thousands is worth spreading over the machine's cores.
:func:`compile_many` cuts the specs into one contiguous chunk per process;
the calling process compiles the first chunk itself while each other chunk
is compiled by ``python -m jaxlab.levels.text.compile_pool`` (a fresh interpreter:
no fork of a process running JAX, and nothing of the caller's ``__main__``
is re-run). Workers return host arrays; the caller moves them to the device.
A worker that fails for any reason has its chunk compiled again in the
calling process, which raises the same error a serial compile would.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

from jaxlab.levels.text.compiled_game import GameInfo, TextGame, game_on_device
from jaxlab.levels.text.game_spec import GameSpec, compile_spec

#: fewest games per worker process: below this, starting an interpreter costs more than it saves
MIN_GAMES_PER_PROCESS = 24


def default_processes() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _compile_on_host(spec: GameSpec) -> Tuple[TextGame, GameInfo]:
    return compile_spec(spec, on_device=False)


def compile_many(specs: Sequence[GameSpec], processes: Optional[int] = None,
                 compile_one: Callable[[GameSpec], Tuple[TextGame, GameInfo]] = compile_spec
                 ) -> List[Tuple[TextGame, GameInfo]]:
    """``[compile_one(spec) for spec in specs]``, spread over ``processes`` processes.

    processes: how many processes compile (the caller included); default
    :func:`default_processes`, and never more than one per
    ``MIN_GAMES_PER_PROCESS`` games. ``compile_one`` is what the caller
    would run serially (``compile_spec``, or a wrapper that maps errors):
    it compiles the caller's own chunk and any chunk whose worker failed.
    Results are in the order of ``specs`` and on the device.
    """
    specs = list(specs)
    if processes is not None and (isinstance(processes, bool) or int(processes) < 1):
        raise ValueError(f"processes must be a positive integer, got {processes!r}")
    wanted = default_processes() if processes is None else int(processes)
    count = max(1, min(wanted, len(specs) // MIN_GAMES_PER_PROCESS))
    if count == 1:
        return [compile_one(s) for s in specs]
    bounds = [len(specs) * i // count for i in range(count + 1)]
    chunks = [specs[a:b] for a, b in zip(bounds, bounds[1:])]
    with tempfile.TemporaryDirectory(prefix="jaxlab_compile_") as scratch:
        workers = [_start(chunk, Path(scratch) / f"chunk{i}") for i, chunk in enumerate(chunks[1:], start=1)]
        results = [compile_one(s) for s in chunks[0]]
        for chunk, worker in zip(chunks[1:], workers):
            compiled = _finish(*worker)
            results += [(game_on_device(g), info) for g, info in compiled] if compiled is not None \
                else [compile_one(s) for s in chunk]
    return results


def _start(chunk: List[GameSpec], stem: Path):
    """Write ``chunk`` and start a worker process compiling it into ``stem``.out."""
    source, target = stem.with_suffix(".in"), stem.with_suffix(".out")
    source.write_bytes(pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL))
    env = dict(os.environ, JAX_PLATFORMS="cpu")  # the worker never computes on a device
    process = subprocess.Popen([sys.executable, "-m", "jaxlab.levels.text.compile_pool", str(source), str(target)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env, close_fds=True)
    return process, target


def _finish(process: subprocess.Popen, target: Path):
    """The worker's compiled games, or None if it failed."""
    process.wait()
    if process.returncode != 0 or not target.exists():
        return None
    try:
        return pickle.loads(target.read_bytes())
    except Exception:  # a truncated or unreadable result: compile the chunk again here
        return None


def _worker(source: str, target: str) -> int:
    specs = pickle.loads(Path(source).read_bytes())
    compiled = [_compile_on_host(s) for s in specs]
    partial = Path(target + ".partial")
    partial.write_bytes(pickle.dumps(compiled, protocol=pickle.HIGHEST_PROTOCOL))
    partial.replace(target)
    return 0


if __name__ == "__main__":
    sys.exit(_worker(*sys.argv[1:3]))
