"""Compiled levels cached by content, for ``jaxlab.make("level.lua")``.

The cache key hashes the script, the compile options and the compiler's own
source (its Python modules and its Lua library); a cached bank is used only
if every Lua file the compile read (the script and the modules it required)
still has the same content. Only DMLab banks are cached: a Lab2D-style grid
script compiles in milliseconds.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

from compile_lua.loading import checked_inputs
from compile_lua.sandbox import LIBRARY_DIR
from jaxlab.bank import Bank
from jaxlab.bank_file import BankFileError, load_bank, save_bank
from jaxlab.levels.dmlab.level import Level

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
    """sha256 hex of the compiler itself: every ``.py`` of the compile_lua package (sub-packages
    included) and every file of its Lua library (``LIBRARY_DIR``), so a change to either misses."""
    digest = hashlib.sha256()
    sources = [("py", p) for p in PACKAGE_DIR.rglob("*.py") if "__pycache__" not in p.parts]
    sources += [("lua", p) for p in LIBRARY_DIR.rglob("*") if p.is_file()]
    for root, source in sorted(sources, key=lambda item: (item[0], str(item[1]))):
        base = PACKAGE_DIR if root == "py" else LIBRARY_DIR
        digest.update(f"{root}:{source.relative_to(base)}\0".encode() + source.read_bytes())
    return digest.hexdigest()


def _fresh(meta: Mapping[str, Any]) -> bool:
    """Whether every file the compile read still has its recorded content."""
    for name, digest in meta.get("files", {}).items():
        path = Path(name)
        if not path.is_file() or _sha256(path) != digest:
            return False
    return True


@dataclasses.dataclass(frozen=True)
class CacheEntry:
    """Where the bank of one script compiled with one set of options is cached (``target``, a
    ``.jaxlab`` file named by the options' hash)."""

    target: Path

    def load(self) -> Optional[Tuple[Bank, Dict[str, Any]]]:
        """(bank, meta) when the entry exists, reads and every file the compile read is unchanged;
        else None (a corrupt entry counts as missing). Runs no Lua."""
        if not self.target.is_file():
            return None
        try:
            bank, meta = load_bank(self.target, Level)
        except BankFileError:
            return None
        return (bank, meta) if _fresh(meta) else None

    def store(self, bank: Bank, meta: Dict[str, Any]) -> None:
        """Write a compiled DMLab ``bank`` and its ``meta`` as this entry."""
        self.target.parent.mkdir(parents=True, exist_ok=True)
        save_bank(self.target, bank, meta)


def cache_entry(path, settings: Optional[Mapping[str, Any]] = None, episodes: int = 1, seed: int = 0,
                levels_dir=None, directory: Optional[Path] = None) -> CacheEntry:
    """The CacheEntry of the script at ``path`` compiled with these options (``compile_level``'s)
    by this compiler, under ``directory`` (default ``cache_dir()``). Raises FileNotFoundError
    (:func:`compile_lua.loading.checked_inputs`)."""
    path = checked_inputs(path, levels_dir)
    options = {"script": _sha256(path), "path": str(path.absolute()), "settings": {str(k): str(v) for k, v in
               (settings or {}).items()}, "episodes": int(episodes), "seed": int(seed),
               "levels_dir": str(Path(levels_dir).resolve()) if levels_dir else None,
               "compiler": _compiler_digest()}
    key = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:20]
    return CacheEntry(Path(directory or cache_dir()) / f"{path.stem}-{key}.jaxlab")
