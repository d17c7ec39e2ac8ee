"""Banks on disk (``*.jaxlab``): one compressed numpy ``.npz``, for any level type that declares its layout.

Layout: every array field of the bank's levels as ``level/<field>`` (with
the bank's leading axis N), every array of a dict-valued field as
``<field>/<key>`` (a first-person level's ``custom_obs/<name>``), and
``meta``: a 0-d unicode array holding a JSON object that includes
``"format": "jaxlab-level-bank"``, ``"version"`` and ``"level_type"`` (the
level class's name: ``"Level"``, ``"GridLayout"``; version-1 files, written
before grid banks, hold first-person Levels). Nothing is pickled.

A level type can be banked on disk when it has a class method
``bank_example()`` (one small level, whose arrays give every field's dtype
and rank) and, for dict-valued fields, ``BANK_DICT_DTYPES`` (field -> the
dtypes its arrays may have). A loaded file is checked against the type the
caller asks for: the same level type, every field present with the
example's dtype and rank, dict arrays of an allowed dtype, one N >= 1.
Text games are saved as TextWorld JSON instead (``jaxlab.text.Game.save``).
"""
from __future__ import annotations

import functools
import json
import os
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

import jax.numpy as jnp
import numpy as np
from numpy.lib.npyio import NpzFile

from jaxlab.bank import Bank

FORMAT = "jaxlab-level-bank"
VERSION = 2
SUPPORTED_VERSIONS = (1, 2)
_ARRAY = "level/"

PathLike = Union[str, os.PathLike]


class BankFileError(ValueError):
    """A ``.jaxlab`` bank file that is missing, unreadable, not a bank, or of an unsupported version."""

    def __init__(self, path: PathLike, problem: str):
        super().__init__(f"{os.fspath(path)}: {problem}")
        self.path = os.fspath(path)


def _first_person_level() -> type:
    """The first-person ``Level`` class (the level type of every version-1 file and the default)."""
    from jaxlab.levels.dmlab.level import Level

    return Level


@functools.lru_cache(maxsize=None)
def _layout(level_type: type) -> Tuple[Dict[str, Tuple[np.dtype, int]], Dict[str, Tuple[np.dtype, ...]]]:
    """(array field -> (dtype, rank with the bank axis), dict field -> allowed dtypes) of ``level_type``;
    TypeError for a type that cannot be banked on disk."""
    if not hasattr(level_type, "bank_example"):
        raise TypeError(f"{level_type.__name__} levels cannot be saved as a bank file (no bank_example(); "
                        "text games are saved as TextWorld JSON with Game.save)")
    example = level_type.bank_example()
    dict_dtypes = getattr(level_type, "BANK_DICT_DTYPES", {})
    arrays = {}
    for name in level_type.__dataclass_fields__:
        if name not in dict_dtypes:
            value = np.asarray(getattr(example, name))
            arrays[name] = (value.dtype, value.ndim + 1)
    return arrays, {name: tuple(np.dtype(d) for d in dtypes) for name, dtypes in dict_dtypes.items()}


def save_bank(path: PathLike, bank: Bank, meta: Dict[str, Any]) -> None:
    """Write ``bank`` (a ``Bank`` of first-person Levels or grid GridLayouts) and ``meta`` to ``path``.

    ``meta`` must be a JSON-serialisable dict; its keys ``format``,
    ``version`` and ``level_type`` are set by this function (passing other
    values raises ValueError). The file is written to a temporary file in
    the same folder and renamed, so a failed save leaves no file at
    ``path``. TypeError for a level type without a bank-file layout.
    """
    if not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict, got {type(meta).__name__}")
    level_type = type(bank.levels)
    fields, dict_fields = _layout(level_type)
    reserved = (("format", FORMAT), ("version", VERSION), ("level_type", level_type.__name__))
    for key, value in reserved:
        if key in meta and meta[key] != value:
            raise ValueError(f"meta[{key!r}] is reserved for the bank file ({value!r}), got {meta[key]!r}")
    arrays = {"meta": np.array(json.dumps({**meta, **dict(reserved)}))}
    for name in fields:
        arrays[_ARRAY + name] = np.asarray(getattr(bank.levels, name))
    for field in dict_fields:
        for key, value in getattr(bank.levels, field).items():
            arrays[f"{field}/{key}"] = np.asarray(value)
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


def _meta(path: PathLike, arrays: Dict[str, np.ndarray], level_type: type) -> Dict[str, Any]:
    """The file's meta dict, checked: format, a supported version, the expected level type."""
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
    held = meta.get("level_type", _first_person_level().__name__) if version == 1 else meta.get("level_type")
    if held != level_type.__name__:
        raise BankFileError(path, f"the bank holds {held!r} levels, not {level_type.__name__!r}")
    return meta


def _check_arrays(path: PathLike, level_type: type, fields: Dict[str, np.ndarray],
                  dicts: Dict[str, Dict[str, np.ndarray]]) -> None:
    """BankFileError unless every array has its level type's dtype and rank and all share one N >= 1."""
    layout, dict_dtypes = _layout(level_type)
    kind = level_type.__name__
    for name, (dtype, rank) in layout.items():
        a = fields[name]
        if a.dtype != dtype or a.ndim != rank:
            raise BankFileError(path, f"field {name!r} is {a.dtype}[{a.ndim}-d], a {kind} bank needs "
                                      f"{dtype}[{rank}-d]")
    for field, arrays in dicts.items():
        allowed = " or ".join(str(d) for d in dict_dtypes[field])
        for key, a in arrays.items():
            if a.dtype not in dict_dtypes[field] or a.ndim < 1:
                raise BankFileError(path, f"{field} {key!r} is {a.dtype}[{a.ndim}-d], a {kind} bank "
                                          f"needs {allowed} with the bank axis")
    sizes = {a.shape[0] for a in list(fields.values()) + [a for d in dicts.values() for a in d.values()]}
    if len(sizes) != 1 or 0 in sizes:
        raise BankFileError(path, f"bank file arrays disagree on the number of levels ({sorted(sizes)})")


def load_bank(path: PathLike, level_type: Optional[type] = None) -> Tuple[Bank, Dict[str, Any]]:
    """Read a bank written by ``save_bank``: (``Bank`` of ``level_type`` levels as jnp arrays, meta dict).

    ``level_type`` is the level class the caller expects (default: the
    first-person ``Level``; ``jaxlab.grid.state.GridLayout`` for grid maps).
    meta includes ``format``, ``version`` and ``level_type``. Raises
    BankFileError (a ValueError naming ``path``) for a missing or unreadable
    file, a file that is not a jaxlab bank, an unsupported version, a bank
    of another level type, or missing fields or fields of the wrong dtype,
    rank or number of levels.
    """
    level_type = level_type or _first_person_level()
    layout, dict_dtypes = _layout(level_type)
    arrays = _read(path)
    meta = _meta(path, arrays, level_type)
    found = {name: arrays[_ARRAY + name] for name in layout if _ARRAY + name in arrays}
    if hasattr(level_type, "bank_defaults"):   # fields added after older files were written
        arrays.update({_ARRAY + k: v for k, v in level_type.bank_defaults(found).items() if k not in found})
    missing = [name for name in layout if _ARRAY + name not in arrays]
    if missing:
        raise BankFileError(path, f"bank file lacks the {level_type.__name__} fields {missing}")
    fields = {name: arrays[_ARRAY + name] for name in layout}
    dicts = {field: {key[len(field) + 1:]: value for key, value in arrays.items() if key.startswith(field + "/")}
             for field in dict_dtypes}
    _check_arrays(path, level_type, fields, dicts)
    level = level_type(**{k: jnp.asarray(v) for k, v in fields.items()},
                       **{f: {k: jnp.asarray(v) for k, v in sorted(d.items())} for f, d in dicts.items()})
    return Bank(level), {**meta, "level_type": level_type.__name__}
