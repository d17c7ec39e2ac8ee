"""``compile_lua LEVEL.lua``: compile a DMLab Lua level script into a ``.jaxlab`` file.

Usage::

    compile_lua LEVEL.lua [-o OUT.jaxlab] [--episodes N] [--seed S]
                [--set key=value ...] [--levels-dir DIR]

Writes one file (a level bank loadable without Lua, by ``jaxlab.make``) and
prints a summary. On any error it prints ``file:line: message``, exits with
status 1 and writes nothing.

A Lab2D-style grid script (its api declares ``world``) is checked instead:
the command prints a summary of the compiled GridSpec (grid size, layers,
states, players, rules, actions, observations) and writes no file, since
``jaxlab.make("level.lua")`` compiles grid scripts directly (quickly). The
script's main chunk runs once, for both kinds: that run decides the kind and
is continued by the kind's compiler.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from compile_lua.dmlab.compiler import compile_loaded
from compile_lua.errors import CompileWarning, LuaScriptError
from compile_lua.lab2d.compiler import compile_loaded_grid
from compile_lua.loading import LoadedScript, load_script
from jaxlab.bank_file import save_bank
from jaxlab.levels.dmlab.map_parser import MapError


def parse_settings(pairs: List[str], parser: argparse.ArgumentParser) -> Dict[str, str]:
    """``["k=v", ...]`` -> {k: v}; a pair without ``=`` is a usage error."""
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            parser.error(f"--set expects key=value, got {pair!r}")
        settings[key] = value
    return settings


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``compile_lua``."""
    ap = argparse.ArgumentParser(prog="compile_lua", description=__doc__.split("\n\n")[0])
    ap.add_argument("script", metavar="LEVEL.lua", help="the level script")
    ap.add_argument("-o", "--output", metavar="OUT.jaxlab", help="output file (default: LEVEL.jaxlab beside the script)")
    ap.add_argument("--episodes", type=int, default=1, help="episodes to compile (default 1)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the episodes' start(episode, seed) (default 0)")
    ap.add_argument("--set", dest="settings", action="append", default=[], metavar="key=value",
                    help="a setting passed to api:init (repeatable)")
    ap.add_argument("--levels-dir", metavar="DIR", help="an extra folder that require searches")
    return ap


def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 compile error, 2 usage)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    settings = parse_settings(args.settings, ap)
    if args.episodes < 1:
        ap.error("--episodes must be at least 1")
    script = Path(args.script)
    # One run of the script's main chunk decides its kind and is continued by that kind's compiler.
    loaded = _compiled(script, lambda: _load(script, args.levels_dir))
    if loaded is None:
        return 1
    if loaded.kind == "lab2d":
        return _check_grid(loaded, args, settings, ap)
    output = Path(args.output) if args.output else script.with_suffix(".jaxlab")
    if output.suffix != ".jaxlab":
        ap.error(f"the output file must end in .jaxlab, got {output}")
    compiled = _compiled(script, lambda: compile_loaded(loaded, settings, args.episodes, args.seed))
    if compiled is None:
        return 1
    save_bank(output, compiled.bank, compiled.meta)
    print(compiled.summary())
    print(f"wrote {output}")
    return 0


def _load(script: Path, levels_dir) -> LoadedScript:
    """The script with its main chunk run and its kind decided (both may raise compile errors)."""
    loaded = load_script(script, levels_dir)
    _ = loaded.kind
    return loaded


def _compiled(script: Path, compile: Callable[[], Any]) -> Any:
    """``compile()``, its CompileWarnings printed to stderr as ``warning: ...``; on a compile
    error the located message is printed to stderr and None returned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompileWarning)
        try:
            result = compile()
        except (LuaScriptError, MapError, FileNotFoundError, ValueError) as err:
            text = str(err)
            located = isinstance(err, (LuaScriptError, MapError)) or text.startswith(str(script))
            print(text if located else f"{script}: {text}", file=sys.stderr)
            result = None
    for w in caught:
        if issubclass(w.category, CompileWarning):
            print(f"warning: {w.message}", file=sys.stderr)
    return result


def _check_grid(loaded: LoadedScript, args: argparse.Namespace, settings: Dict[str, str],
                ap: argparse.ArgumentParser) -> int:
    """Compiles a loaded grid script, prints its summary; writes nothing."""
    script = loaded.path
    if args.output:
        ap.error(f"{script} is a grid level script: it is checked, not written to a file "
                 "(jaxlab.make compiles it directly); drop -o")
    if args.episodes != 1:
        ap.error("--episodes applies to DMLab first-person scripts only, not to grid scripts")
    compiled = _compiled(script, lambda: compile_loaded_grid(loaded, settings, seed=args.seed))
    if compiled is None:
        return 1
    print(compiled.summary())
    print(f"ok: {script} is a valid grid level (no file written; jaxlab.make({str(script)!r}) runs it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
