"""Compiled levels cached by content, for ``jaxlab.make("level.lua")``.

The cache key hashes the script, the compile options and the compiler's own
source; a cached bank is used only if every Lua file the compile read (the
script and the modules it required) still has the same content.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

from compile_lua.dmlab.compiler import compile_script
from jaxlab.bank_file import BankFileError, load_bank, save_bank
from jaxlab.bank import Bank

PACKAGE_DIR = Path(__file__).parent


def cache_dir() -> Path:
    """``$JAXLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/jaxlab``, else ``~/.cache/jaxlab``."""
    if os.environ.get("JAXLAB_CACHE_DIR"):
        return Path(os.environ["JAXLAB_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "jaxlab"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _compiler_digest() -> str:
    digest = hashlib.sha256()
    for source in sorted(PACKAGE_DIR.rglob("*.py")):
        if "__pycache__" in source.parts:
            continue
        digest.update(str(source.relative_to(PACKAGE_DIR)).encode() + source.read_bytes())
    return digest.hexdigest()


def _fresh(meta: Mapping[str, Any]) -> bool:
    """Whether every file the compile read still has its recorded content."""
    for name, digest in meta.get("files", {}).items():
        path = Path(name)
        if not path.is_file() or _sha256(path) != digest:
            return False
    return True


def compile_cached(path, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1, seed: int = 0,
                   levels_dir=None, directory: Optional[Path] = None) -> Tuple[Bank, Dict[str, Any]]:
    """(bank, meta) of ``path`` compiled with these options, from the cache when fresh: a ``Bank`` of
    ``episodes`` first-person Levels and the compile's metadata (see ``compile_script``).

    Compiles (and stores) on a miss; a corrupt cache entry is recompiled.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such level script: {path}")
    options = {"script": _sha256(path), "path": str(path.resolve()), "settings": {str(k): str(v) for k, v in
               (settings or {}).items()}, "episodes": int(episodes), "seed": int(seed),
               "levels_dir": str(Path(levels_dir).resolve()) if levels_dir else None,
               "compiler": _compiler_digest()}
    key = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:20]
    target = Path(directory or cache_dir()) / f"{path.stem}-{key}.jaxlab"
    if target.is_file():
        try:
            bank, meta = load_bank(target)
            if _fresh(meta):
                return bank, meta
        except BankFileError:
            pass
    compiled = compile_script(path, settings, episodes, seed, levels_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    save_bank(target, compiled.bank, compiled.meta)
    return compiled.bank, compiled.meta
