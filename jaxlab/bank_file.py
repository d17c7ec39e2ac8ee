"""Banks of first-person levels on disk (``*.jaxlab``): one compressed numpy ``.npz``.

Layout: every array field of the bank's Levels as ``level/<field>`` (with
the bank's leading axis N), each custom observation as
``custom_obs/<name>``, and ``meta``: a 0-d unicode array holding a JSON
object that includes ``"format": "jaxlab-level-bank"`` and ``"version": 1``.
Nothing is pickled. A loaded file is checked against the Level layout
(every field present with ``build_level``'s dtype and rank, custom
observations uint8 or float32, one N for all).
"""
from __future__ import annotations

import functools
import json
import os
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any, Dict, Tuple, Union

import jax.numpy as jnp
import numpy as np
from numpy.lib.npyio import NpzFile

from jaxlab.bank import Bank
from jaxlab.levels.dmlab.level import Level, build_level
from jaxlab.levels.dmlab.map_parser import parse_text_map

FORMAT = "jaxlab-level-bank"
VERSION = 1
SUPPORTED_VERSIONS = (1,)
_LEVEL, _CUSTOM = "level/", "custom_obs/"
_ARRAY_FIELDS = tuple(name for name in Level.__dataclass_fields__ if name != "custom_obs")

PathLike = Union[str, os.PathLike]


class BankFileError(ValueError):
    """A ``.jaxlab`` bank file that is missing, unreadable, not a bank, or of an unsupported version."""

    def __init__(self, path: PathLike, problem: str):
        super().__init__(f"{os.fspath(path)}: {problem}")
        self.path = os.fspath(path)


def save_bank(path: PathLike, bank: Bank, meta: Dict[str, Any]) -> None:
    """Write ``bank`` (a ``Bank`` of first-person Levels) and ``meta`` to ``path``.

    ``meta`` must be a JSON-serialisable dict; its keys ``format`` and
    ``version`` are set by this function (passing other values raises
    ValueError). The file is written to a temporary file in the same folder
    and renamed, so a failed save leaves no file at ``path``.
    """
    if not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict, got {type(meta).__name__}")
    for key, value in (("format", FORMAT), ("version", VERSION)):
        if key in meta and meta[key] != value:
            raise ValueError(f"meta[{key!r}] is reserved for the bank file ({value!r}), got {meta[key]!r}")
    arrays = {"meta": np.array(json.dumps({**meta, "format": FORMAT, "version": VERSION}))}
    for name in _ARRAY_FIELDS:
        arrays[_LEVEL + name] = np.asarray(getattr(bank.levels, name))
    for name, value in bank.levels.custom_obs.items():
        arrays[_CUSTOM + name] = np.asarray(value)
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".jaxlab", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.chmod(tmp, 0o644)   # mkstemp makes it private; a bank file is ordinary data
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _read(path: PathLike) -> Dict[str, np.ndarray]:
    """Every array of the .npz at ``path``, read eagerly; BankFileError if unreadable."""
    if not Path(path).is_file():
        raise BankFileError(path, "no such bank file")
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, NpzFile):
            raise BankFileError(path, "not a jaxlab bank file (a .npy array, not an .npz archive)")
        with data:
            arrays = {name: data[name] for name in data.files}
        odd = sorted(name for name, value in arrays.items() if not isinstance(value, np.ndarray))
        if odd:  # NpzFile hands back members without a .npy header as raw bytes
            raise BankFileError(path, f"not a readable jaxlab bank file (members {odd} are not arrays)")
        return arrays
    except BankFileError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise BankFileError(path, f"not a readable jaxlab bank file ({type(error).__name__}: {error})") from None


def _meta(path: PathLike, arrays: Dict[str, np.ndarray]) -> Dict[str, Any]:
    raw = arrays.get("meta")
    try:
        meta = json.loads(str(raw[()])) if raw is not None and raw.dtype.kind == "U" else None
    except ValueError:
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BankFileError(path, f"not a jaxlab bank file (no meta with format {FORMAT!r})")
    version = meta.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version not in SUPPORTED_VERSIONS:
        raise BankFileError(path, f"unsupported bank file version {version!r}; this jaxlab reads "
                                  f"version {', '.join(map(str, SUPPORTED_VERSIONS))}")
    return meta


@functools.lru_cache(maxsize=None)
def _layout() -> Dict[str, Tuple[np.dtype, int]]:
    """Level array field -> (dtype, rank with the bank axis), as ``build_level`` makes them."""
    level = build_level(parse_text_map("***\n*P*\n***"), 1.0)
    return {name: (np.asarray(getattr(level, name)).dtype, np.ndim(getattr(level, name)) + 1)
            for name in _ARRAY_FIELDS}


def _check_arrays(path: PathLike, fields: Dict[str, np.ndarray], custom: Dict[str, np.ndarray]) -> None:
    """BankFileError unless every array has its Level dtype and rank and all share one N >= 1."""
    for name, (dtype, rank) in _layout().items():
        a = fields[name]
        if a.dtype != dtype or a.ndim != rank:
            raise BankFileError(path, f"field {name!r} is {a.dtype}[{a.ndim}-d], a Level bank needs "
                                      f"{dtype}[{rank}-d]")
    for name, a in custom.items():
        if a.dtype not in (np.uint8, np.float32) or a.ndim < 1:
            raise BankFileError(path, f"custom observation {name!r} is {a.dtype}[{a.ndim}-d], a Level bank "
                                      "needs uint8 or float32 with the bank axis")
    sizes = {a.shape[0] for a in list(fields.values()) + list(custom.values())}
    if len(sizes) != 1 or 0 in sizes:
        raise BankFileError(path, f"bank file arrays disagree on the number of levels ({sorted(sizes)})")


def load_bank(path: PathLike) -> Tuple[Bank, Dict[str, Any]]:
    """Read a bank written by ``save_bank``: (``Bank`` of first-person Levels as jnp arrays, meta dict).

    meta includes ``format`` and ``version``. Raises BankFileError (a
    ValueError naming ``path``) for a missing or unreadable file, a file that
    is not a jaxlab bank, an unsupported version, or missing fields or
    fields of the wrong dtype, rank or number of levels.
    """
    arrays = _read(path)
    meta = _meta(path, arrays)
    missing = [name for name in _ARRAY_FIELDS if _LEVEL + name not in arrays]
    if missing:
        raise BankFileError(path, f"bank file lacks the Level fields {missing}")
    fields = {name: arrays[_LEVEL + name] for name in _ARRAY_FIELDS}
    custom = {key[len(_CUSTOM):]: value for key, value in arrays.items() if key.startswith(_CUSTOM)}
    _check_arrays(path, fields, custom)
    level = Level(custom_obs={k: jnp.asarray(v) for k, v in sorted(custom.items())},
                  **{k: jnp.asarray(v) for k, v in fields.items()})
    return Bank(level), meta
