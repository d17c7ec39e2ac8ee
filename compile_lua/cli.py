"""``compile_lua LEVEL.lua``: compile a DMLab Lua level script into a ``.jaxlab`` file.

Usage::

    compile_lua LEVEL.lua [-o OUT.jaxlab] [--episodes N] [--seed S]
                [--set key=value ...] [--levels-dir DIR | --dmlab-root PATH] [--timeout S] [--memory-mb MB]

Writes one file (a level bank loadable without Lua, by ``jaxlab.make``) and
prints a summary. The script runs in a child process with a deadline and a
memory cap (``compile_lua.isolation``); what it prints is shown with
terminal control characters escaped. On a compile error it prints
``file:line: message``, exits with status 1 and writes nothing; a bad
option value (``--seed -1``, ``--timeout nan``: each option's range is in its
message), a script or ``--levels-dir`` that is missing or a folder or a file
where the other is expected, and a bad output path (a missing folder, a
folder, a path under a file, the script itself) are usage errors (status 2),
found before anything is compiled. A user error prints one line, never a
Python traceback.

A Lab2D-style grid script (its api declares ``world``) is checked instead:
the command prints a summary of the compiled GridSpec (grid size, layers,
states, players, rules, actions, observations) and writes no file, since
``jaxlab.make("level.lua")`` compiles grid scripts directly (quickly). The
script's main chunk runs once, for both kinds: that run decides the kind and
is continued by the kind's compiler.
"""
from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from compile_lua.compiled import CompiledScript
from compile_lua.dmlab.compiler import CompiledLevel
from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.isolation import CompileLimits, compile_in_child
from compile_lua.loading import checked_inputs
from jaxlab.bank_file import save_bank
from jaxlab.errors import UnknownNameError
from jaxlab.levels.dmlab.checkout import game_scripts
from jaxlab.levels.dmlab.map_parser import MapError
from jaxlab.levels.lab2d.spec import GridSpecError
from jaxlab.settings import MAX_COUNT, SEED_RANGE


def parse_settings(pairs: List[str], parser: argparse.ArgumentParser) -> Dict[str, str]:
    """``["k=v", ...]`` -> {k: v}; a pair without ``=`` is a usage error."""
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            parser.error(f"--set expects key=value, got {pair!r}")
        settings[key] = value
    return settings


def bounded(kind: type, low: float, high: float) -> Callable[[str], Any]:
    """An argparse ``type``: the text as a ``kind`` (int or float) that is finite and in [low, high];
    ArgumentTypeError (a usage error naming the option) otherwise."""
    shown = [f"{kind(v)}" if kind is int else f"{v:g}" for v in (low, high)]
    expected = f"{'an integer' if kind is int else 'a number'} in [{shown[0]}, {shown[1]}]"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``compile_lua``."""
    ap = argparse.ArgumentParser(prog="compile_lua", description=__doc__.split("\n\n")[0])
    ap.add_argument("script", metavar="LEVEL.lua", help="the level script")
    ap.add_argument("-o", "--output", metavar="OUT.jaxlab", help="output file (default: LEVEL.jaxlab beside the script)")
    ap.add_argument("--episodes", type=bounded(int, 1, MAX_COUNT), default=1, metavar="N",
                    help="episodes to compile (default 1)")
    ap.add_argument("--seed", type=bounded(int, *SEED_RANGE), default=0, metavar="S",
                    help="seed of the episodes' start(episode, seed) (default 0)")
    ap.add_argument("--set", dest="settings", action="append", default=[], metavar="key=value",
                    help="a setting passed to api:init (repeatable)")
    ap.add_argument("--levels-dir", metavar="DIR", help="an extra folder that require searches")
    ap.add_argument("--dmlab-root", metavar="PATH",
                    help="a DeepMind Lab checkout (its root or game_scripts): require resolves DMLab's common.*, "
                         "factories.*, decorators.* and datasets.* there, and its maps are found")
    ap.add_argument("--timeout", type=bounded(float, *CompileLimits.RANGES["timeout_s"]),
                    default=CompileLimits.timeout_s, metavar="S",
                    help=f"wall-clock deadline of the compile in seconds (default {CompileLimits.timeout_s:g})")
    ap.add_argument("--memory-mb", type=bounded(int, *CompileLimits.RANGES["memory_mb"]),
                    default=CompileLimits.memory_mb, metavar="MB",
                    help=f"address space the compile may take beyond its process's start-up (default {CompileLimits.memory_mb})")
    return ap


def output_problem(output: Path, script: Path) -> Optional[str]:
    """Why ``output`` cannot receive the bank compiled from ``script`` (None when it can): not a
    ``.jaxlab`` name, the script itself, a folder, a missing folder, or a folder that is a file."""
    if output.is_dir():
        return f"the output {output} is a folder; name a file in it, e.g. {output / script.with_suffix('.jaxlab').name}"
    if output.exists() and script.exists() and output.resolve() == script.resolve():
        return f"the output {output} is the level script itself; name another file with -o"
    if output.suffix != ".jaxlab":
        return f"the output file must end in .jaxlab, got {output}"
    folder = output.parent
    for above in [folder, *folder.parents]:
        if above.exists():
            if not above.is_dir():
                return f"the output {output} is under {above}, which is a file, not a folder"
            break
    if not folder.is_dir():
        return f"the output's folder {folder} does not exist; create it first"
    return None


def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 compile error, 2 usage, 130 Ctrl-C)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    settings = parse_settings(args.settings, ap)
    limits = CompileLimits(args.timeout, args.memory_mb)
    if args.dmlab_root:
        if args.levels_dir:
            ap.error("give --dmlab-root or --levels-dir, not both")
        try:
            args.levels_dir = str(game_scripts(args.dmlab_root, "--dmlab-root"))
        except (TypeError, FileNotFoundError) as err:
            ap.error(str(err))
    try:
        script = checked_inputs(args.script, args.levels_dir)
    except FileNotFoundError as err:
        ap.error(str(err))
    output = Path(args.output) if args.output else script.with_suffix(".jaxlab")
    problem = output_problem(output, script)
    if problem and args.output:
        ap.error(problem)
    # One run of the script's main chunk, in a child process, decides its kind and compiles it.
    try:
        compiled = _compiled(script, lambda: compile_in_child(script, settings, args.episodes, args.seed,
                                                              args.levels_dir, limits=limits))
    except KeyboardInterrupt:
        print(f"{script}: interrupted; the compile was stopped and nothing written", file=sys.stderr)
        return 130
    if compiled is None:
        return 1
    if compiled.kind == "lab2d":
        return _report_grid(compiled, script, args, ap)
    if compiled.kind == "lab2d_raw":
        raw = compiled.raw
        print(f"{script}: a Lab2D raw-API level ({len(raw.observations)} observations, {len(raw.actions)} discrete "
              f"and {len(raw.continuous)} continuous actions) compiles onto the device; run it with jaxlab.make "
              "(it has no bank to write)")
        return 0
    if problem:
        ap.error(problem)
    try:
        save_bank(output, compiled.bank, compiled.meta)
    except OSError as err:
        ap.error(f"cannot write {output}: {err.strerror or err}")
    print(CompiledLevel(compiled.bank, compiled.meta).summary())
    print(f"wrote {output}")
    return 0


def _compiled(script: Path, compile: Callable[[], Any]) -> Any:
    """``compile()``, its CompileWarnings printed to stderr as ``warning: ...``; on a compile
    error the located message is printed to stderr and None returned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompileWarning)
        try:
            result = compile()
        except (LuaScriptError, MapError, GridSpecError, UnknownNameError, FileNotFoundError,
                ValueError, TypeError) as err:
            text = str(err)
            located = isinstance(err, (LuaScriptError, MapError)) or text.startswith(str(script))
            print(text if located else f"{script}: {text}", file=sys.stderr)
            result = None
    for w in caught:
        if issubclass(w.category, CompileWarning):
            print(f"warning: {w.message}", file=sys.stderr)
    return result


def _report_grid(compiled: CompiledScript, script: Path, args: argparse.Namespace,
                 ap: argparse.ArgumentParser) -> int:
    """Prints a compiled grid script's summary; writes nothing (usage errors for -o and --episodes)."""
    if args.output:
        ap.error(f"{script} is a grid level script: it is checked, not written to a file "
                 "(jaxlab.make compiles it directly); drop -o")
    if args.episodes != 1:
        ap.error("--episodes applies to DMLab first-person scripts only, not to grid scripts")
    print(compiled.grid.summary())
    print(f"ok: {script} is a valid grid level (no file written; jaxlab.make({str(script)!r}) runs it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
