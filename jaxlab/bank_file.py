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
and rank), for dict-valued fields ``BANK_DICT_DTYPES`` (field -> the dtypes
its arrays may have), and ``bank_rules()``, its table of value rules (``jaxlab.bank_checks.BankRules``).
Text games are saved as TextWorld JSON instead (``jaxlab.text.Game.save``).

Loading treats the file as untrusted. Before anything is decompressed, the
zip directory is read and the archive refused if it has more than
MAX_MEMBERS members or its members' declared uncompressed sizes add up to
more than the allowance (``uncompressed_allowance``: MAX_EXPANSION bytes per
byte of the file, at least MIN_ALLOWANCE and at most MAX_ALLOWANCE; a caller
may pass its own); zip's CRC check then holds every member to its declared
size. Each member must be a ``.npy`` array of a plain dtype whose header's
shape and dtype account for exactly its data. The arrays are then checked
against the level type the caller asks for (``jaxlab.bank_checks``): the same
level type, every field present with the example's dtype and rank, one
N >= 1, per-level shapes that agree across fields, finite floats, values in
their ranges and code sets, and, for first-person levels, cross-field rules
(enclosed grid, door indices naming their doors, spawn points and teleport
destinations in floor cells, every goal choice with a spawn point: ``jaxlab.levels.dmlab.bank_rules``). Every
failure is one ``BankFileError`` whose message is ``<path>: <problem>``,
the problem naming the array as stored and the level (``<path>:
level/spawn_pos: NaN at level 0, index 0 (spawn point in use)``).
"""
from __future__ import annotations

import io
import json
import math
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

import jax.numpy as jnp
import numpy as np

from jaxlab.bank import Bank
from jaxlab.bank_checks import ARRAY_PREFIX, field_problem, first_problem, layout
from jaxlab.errors import unknown_name_error

FORMAT = "jaxlab-level-bank"
VERSION = 2
#: the level type of a version-1 file, written before grid banks: a first-person ``Level``
VERSION_1_LEVEL_TYPE = "Level"
SUPPORTED_VERSIONS = (1, 2)
#: the most members (arrays) a bank file may have
MAX_MEMBERS = 1024
#: the default allowance of uncompressed bytes per byte of the file (banks of padded levels
#: compress well; a zip bomb of zeros reaches about 1000)
MAX_EXPANSION = 256
#: the default allowance of uncompressed bytes is at least this, however small the file ...
MIN_ALLOWANCE = 64 << 20
#: ... and at most this, however large
MAX_ALLOWANCE = 1 << 30
#: the .npy header versions read here (``numpy.lib.format``), and the dtype kinds a member may have
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
_PLAIN_KINDS = "biufcSU"
_READ_CHUNK = 1 << 20   # bytes decompressed at a time
_NPY_MAGIC = b"\x93NUMPY"

PathLike = Union[str, os.PathLike]


class BankFileError(ValueError):
    """A ``.jaxlab`` bank file that is missing, unreadable, not a bank, of an unsupported version, or
    whose arrays break the rules of its level type; the message is ``<path>: <problem>``."""

    def __init__(self, path: PathLike, problem: str):
        super().__init__(f"{os.fspath(path)}: {problem}")
        self.path = os.fspath(path)


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
    fields, dict_fields = layout(level_type)
    reserved = (("format", FORMAT), ("version", VERSION), ("level_type", level_type.__name__))
    for key, value in reserved:
        if key in meta and meta[key] != value:
            raise ValueError(f"meta[{key!r}] is reserved for the bank file ({value!r}), got {meta[key]!r}")
    arrays = {"meta": np.array(json.dumps({**meta, **dict(reserved)}))}
    for name in fields:
        arrays[ARRAY_PREFIX + name] = np.asarray(getattr(bank.levels, name))
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


def uncompressed_allowance(file_bytes: int) -> int:
    """The default limit on a bank file's uncompressed bytes (all members together) for a file of
    ``file_bytes`` bytes: MAX_EXPANSION per byte, clamped to [MIN_ALLOWANCE, MAX_ALLOWANCE]."""
    return min(MAX_ALLOWANCE, max(MIN_ALLOWANCE, MAX_EXPANSION * file_bytes))


def _npy_array(raw: bytearray, member: str) -> np.ndarray:
    """The array of one ``.npy`` member's bytes; ValueError unless its header declares a plain dtype
    and a shape that account for exactly the bytes after it."""
    stream = io.BytesIO(raw)
    version = np.lib.format.read_magic(stream)
    if version not in _HEADER_READERS:
        raise ValueError(f"member {member!r} has .npy format version {version}")
    shape, fortran, dtype = _HEADER_READERS[version](stream)
    if dtype.kind not in _PLAIN_KINDS or dtype.itemsize == 0 or dtype.fields or dtype.subdtype:
        raise ValueError(f"member {member!r} has dtype {dtype}, not a plain number, bool or string dtype")
    count = math.prod(shape)
    data = len(raw) - stream.tell()
    if count * dtype.itemsize != data:
        raise ValueError(f"member {member!r} declares {dtype}{list(shape)} ({count * dtype.itemsize} bytes) "
                         f"but holds {data} bytes")
    array = np.frombuffer(raw, dtype, count, offset=stream.tell())
    return array.reshape(shape[::-1]).T if fortran else array.reshape(shape)


def _member_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytearray:
    """The uncompressed bytes of member ``info``, read a chunk at a time so that no more than its
    declared size (plus one chunk) is ever decompressed; zip's CRC check, made when the declared size
    has been read, refuses data longer than declared. ValueError for a compression method other than
    stored or deflated (numpy writes those; bzip2 and lzma would decompress a whole chunk at once)."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ValueError(f"member {info.filename!r} uses zip compression method {info.compress_type}; "
                         "bank files are stored or deflated")
    data = bytearray()
    with archive.open(info) as member:
        while len(data) < info.file_size:
            chunk = member.read(min(info.file_size - len(data), _READ_CHUNK))
            if not chunk:
                break
            data += chunk
    return data


def _read(path: PathLike, max_bytes: Optional[int]) -> Dict[str, np.ndarray]:
    """Every array of the .npz at ``path`` by member name (without ``.npy``), read eagerly; BankFileError
    if the file is missing, unreadable, or larger than ``max_bytes`` (None: ``uncompressed_allowance``)
    once decompressed."""
    if not Path(path).is_file():
        raise BankFileError(path, "no such bank file")
    try:
        with open(path, "rb") as f:
            if f.read(len(_NPY_MAGIC)) == _NPY_MAGIC:
                raise BankFileError(path, "not a jaxlab bank file (a .npy array, not an .npz archive)")
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                raise BankFileError(path, f"not a jaxlab bank file ({len(members)} members; at most {MAX_MEMBERS})")
            limit = uncompressed_allowance(os.path.getsize(path)) if max_bytes is None else max_bytes
            total = sum(info.file_size for info in members)
            if total > limit:
                raise BankFileError(path, f"the archive's members expand to {total} bytes, more than the "
                                          f"{limit} allowed (load_bank's max_uncompressed_bytes)")
            odd = sorted(info.filename for info in members if not info.filename.endswith(".npy"))
            if odd:
                raise BankFileError(path, f"not a readable jaxlab bank file (members {odd} are not arrays)")
            return {info.filename[:-4]: _npy_array(_member_bytes(archive, info), info.filename) for info in members}
    except BankFileError:
        raise
    except Exception as error:   # zipfile, zlib, lzma, bz2 and numpy's .npy parser raise many kinds on bad bytes
        raise BankFileError(path, f"not a readable jaxlab bank file ({type(error).__name__}: {error})") from None


def _meta(path: PathLike, arrays: Dict[str, np.ndarray], level_type: type) -> Dict[str, Any]:
    """The file's meta dict, checked: format, a supported version, the expected level type."""
    raw = arrays.get("meta")
    try:
        meta = json.loads(str(raw[()])) if raw is not None and raw.dtype.kind == "U" and raw.ndim == 0 else None
    except (ValueError, RecursionError):
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BankFileError(path, f"not a jaxlab bank file (no meta with format {FORMAT!r})")
    version = meta.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version not in SUPPORTED_VERSIONS:
        raise BankFileError(path, f"unsupported bank file version {version!r}; this jaxlab reads "
                                  f"version {', '.join(map(str, SUPPORTED_VERSIONS))}")
    held = meta.get("level_type", VERSION_1_LEVEL_TYPE) if version == 1 else meta.get("level_type")
    if held != level_type.__name__:
        raise BankFileError(path, f"the bank holds {held!r} levels, not {level_type.__name__!r}")
    return meta


def _check_members(path: PathLike, arrays: Dict[str, np.ndarray], level_type: type) -> None:
    """BankFileError naming the first member (as stored, ``<name>.npy``) that is not one of the format's
    for ``level_type``: ``meta``, ``level/<field>`` for each array field, ``<field>/<key>`` (a non-empty
    key) for each dict field."""
    fields, dict_fields = layout(level_type)
    known = ["meta"] + [ARRAY_PREFIX + name for name in fields]
    for member in sorted(arrays):
        field, _, key = member.partition("/")
        if member not in known and not (field in dict_fields and key):
            listed = [name + ".npy" for name in known] + [f"{field}/<key>.npy" for field in dict_fields]
            raise BankFileError(path, str(unknown_name_error(f"{level_type.__name__} bank member", member + ".npy",
                                                             listed)))


def _fields(path: PathLike, arrays: Dict[str, np.ndarray], level_type: type) -> Dict[str, np.ndarray]:
    """Every array field of ``level_type`` (name -> [N, ...] array) from the file's ``arrays``, with the
    type's ``bank_defaults`` for fields older files lack; BankFileError if a field is missing."""
    names = layout(level_type)[0]
    fields = {name: arrays[ARRAY_PREFIX + name] for name in names if ARRAY_PREFIX + name in arrays}
    if len(fields) < len(names) and hasattr(level_type, "bank_defaults"):
        for name, a in fields.items():   # the defaults are sized from some of these
            problem = field_problem(level_type, name, a)
            if problem:
                raise BankFileError(path, problem)
        try:
            defaults = level_type.bank_defaults(fields)
        except KeyError:   # a field the defaults are sized from is missing too: reported below
            defaults = {}
        fields.update({name: a for name, a in defaults.items() if name not in fields})
    missing = [name for name in names if name not in fields]
    if missing:
        raise BankFileError(path, f"bank file lacks the {level_type.__name__} fields {missing}")
    return {name: fields[name] for name in names}


def load_bank(path: PathLike, level_type: type,
              max_uncompressed_bytes: Optional[int] = None) -> Tuple[Bank, Dict[str, Any]]:
    """Read a bank written by ``save_bank``: (``Bank`` of ``level_type`` levels as jnp arrays, meta dict).

    ``level_type`` is the level class the caller expects (the first-person
    ``jaxlab.levels.dmlab.level.Level``; ``jaxlab.levels.lab2d.layout.GridLayout`` for grid maps).
    ``max_uncompressed_bytes`` limits the arrays' bytes once decompressed
    (default: ``uncompressed_allowance`` of the file's size; pass more for a
    trusted, very large bank). meta includes ``format``, ``version`` and
    ``level_type``. Raises BankFileError (a ValueError whose message starts
    with ``path``) for a missing or unreadable file, one that expands past
    the limit, a file that is not a jaxlab bank, an unsupported version, a
    bank of another level type, a member the format does not have (one
    ``meta``, ``level/<field>`` per array field, ``<field>/<key>`` per dict
    field's array), missing fields, or arrays that break the
    level type's rules (``jaxlab.bank_checks``: dtype, rank, number of
    levels, shapes, finiteness, ranges, cross-field rules).
    """
    arrays = _read(path, max_uncompressed_bytes)
    meta = _meta(path, arrays, level_type)
    _check_members(path, arrays, level_type)
    fields = _fields(path, arrays, level_type)
    dicts = {field: {key[len(field) + 1:]: value for key, value in arrays.items() if key.startswith(field + "/")}
             for field in layout(level_type)[1]}
    problem = first_problem(level_type, fields, dicts)
    if problem:
        raise BankFileError(path, problem)
    level = level_type(**{k: jnp.asarray(v) for k, v in fields.items()},
                       **{f: {k: jnp.asarray(v) for k, v in sorted(d.items())} for f, d in dicts.items()})
    return Bank(level), {**meta, "level_type": level_type.__name__}
