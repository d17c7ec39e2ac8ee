"""Files and PNG images for level scripts: the Python side of ``dmlab.system.game``'s file functions
(``runFiles``, ``tempFolder``, ``loadFileToString``, ``loadFileToByteTensor``, ``copyFileToLocation``)
and of ``dmlab.system.image`` (``load``, ``scale``, ``setHue``, ``setMaskedPattern``).

Level scripts are untrusted, so a script reads files only inside the folders its sandbox searches
(:func:`read_file` gives the path rules) and writes none: ``game:tempFolder()`` is a virtual folder
whose files live in memory, one set per sandbox. Every file read from disk is recorded in the
sandbox's ``files`` (a compile's inputs and its cache key).

Each host function takes the sandbox and one table of named arguments (a dict: a Lua string that is
not UTF-8 arrives as ``bytes`` only inside a table). Images travel as ``(pixels, height, width,
channels)``: ``pixels`` the row-major bytes of a uint8 array of that shape.
"""
from __future__ import annotations

import io
import math
import struct
import warnings
import weakref
import zlib
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import numpy as np
from PIL import Image

from compile_lua.errors import HostError
from compile_lua.lua_values import show_lua

#: what game:runFiles() returns: not a real folder (a relative name that no path rule reads as one)
RUN_FILES = "<runfiles>"
#: what game:tempFolder() returns
TEMP_FOLDER = "<tempfolder>"
#: a path that starts with this reads the rest in the search folders (DMLab's game_scripts folder)
GAME_SCRIPTS = RUN_FILES + "/baselab/game_scripts/"
#: the same for Lab2D's scripts (``file_system:runFiles() .. '/dmlab2d/lib/game_scripts/'``)
LAB2D_SCRIPTS = RUN_FILES + "/dmlab2d/lib/game_scripts/"
MAX_FILE_BYTES = 64 * 2**20      # the largest file a script may read
MAX_TEMP_BYTES = 64 * 2**20      # the most bytes the temporary folder of one sandbox may hold
MAX_SIDE = 4096                  # the largest image height or width, decoded or scaled
CONTENT = "content:"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"             # image.load('content:.png', bytes)
#: pillow mode -> channels of the images image.load accepts
_CHANNELS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}
_DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, struct.error, zlib.error)
_temp_files: "weakref.WeakKeyDictionary[Any, Dict[str, bytes]]" = weakref.WeakKeyDictionary()

Pixels = Tuple[bytes, int, int, int]


# -- paths -----------------------------------------------------------------------

def _parts(path: str) -> Optional[List[str]]:
    """The folder names and file name of a relative path, or None when it is absolute, has a
    backslash or NUL, or a part that starts with a dot (``..``, ``.``, hidden files)."""
    if not path or len(path) > 4096 or path.startswith("/") or "\\" in path or "\0" in path:
        return None
    parts = [p for p in path.split("/") if p]
    if not parts or any(p.startswith(".") for p in parts):
        return None
    return parts


def _refusal(what: str, path: str, searched: str) -> HostError:
    """The one message for a path that is absent, outside every allowed folder, or malformed."""
    shown = path if len(path) <= 200 else path[:200] + "..."
    return HostError(
        f"{what}: cannot read {shown!r}: no such file in {searched} (paths are relative to those "
        f"folders, or start with game:runFiles() .. '/baselab/game_scripts/' for the search folders, "
        f"or with game:tempFolder(); '..', absolute paths and links out of those folders are refused)")


def read_file(sandbox: Any, path: Any, what: str) -> bytes:
    """The bytes of the file a level script names ``path``; ``what`` names the Lua function in messages.

    Path rules: ``<runfiles>/baselab/game_scripts/<rel>`` (:data:`GAME_SCRIPTS`; Lab2D's
    ``<runfiles>/dmlab2d/lib/game_scripts/<rel>``, :data:`LAB2D_SCRIPTS`) is ``<rel>`` in the
    sandbox's search folders (e.g. a DeepMind Lab checkout's or the dmlab2d package's ``game_scripts``
    given as the levels folder); ``<tempfolder>/<name>`` is a file that ``copyFileToLocation`` stored in memory; any
    other relative path is looked up in the script's folder, then the search folders. ``<rel>`` may
    name sub-folders but no part may start with a dot; absolute paths, other ``<runfiles>`` paths
    and files whose symlinks lead out of their folder (``Sandbox.read_inside``) all get the
    message of a file that is not there. Raises HostError; files above :data:`MAX_FILE_BYTES` too."""
    if not isinstance(path, str):
        raise HostError(f"{what} expects a file name (a string), got {show_lua(path)}")
    if path.startswith(TEMP_FOLDER + "/"):
        parts = _parts(path[len(TEMP_FOLDER) + 1:])
        data = _temp_files.get(sandbox, {}).get("/".join(parts or ()))
        if parts is None or data is None:
            raise _refusal(what, path, "game:tempFolder()")
        return data
    roots = sandbox.data_folders
    searched = "the script's folder or the search folders"
    if path.startswith((GAME_SCRIPTS, LAB2D_SCRIPTS)):
        prefix = GAME_SCRIPTS if path.startswith(GAME_SCRIPTS) else LAB2D_SCRIPTS
        path_in_root, roots = path[len(prefix):], roots[1:]
        searched = "the search folders" if roots else "the search folders (none given: pass " \
            "DeepMind Lab's game_scripts folder as the levels folder, --levels-dir)"
    elif path.startswith(RUN_FILES):
        path_in_root, roots = "", []
    else:
        path_in_root = path
    parts = _parts(path_in_root)
    try:
        found = sandbox.read_inside("/".join(parts), roots, MAX_FILE_BYTES) if parts is not None else None
    except ValueError:
        raise HostError(f"{what}: {path!r} is larger than {MAX_FILE_BYTES // 2**20} MiB") from None
    if found is None:
        raise _refusal(what, path, searched)
    return found[1]


def _file_read(sandbox: Any, args: Mapping[str, Any]) -> bytes:
    """game:loadFileToString / loadFileToByteTensor: ``{path, what}`` -> the file's bytes."""
    return read_file(sandbox, args.get("path"), args.get("what", "game:loadFileToString"))


def _file_copy(sandbox: Any, args: Mapping[str, Any]) -> str:
    """game:copyFileToLocation: ``{source, target}`` -> ``target``, a ``<tempfolder>/<name>`` path
    under which the source's bytes are kept in memory (nothing is written to disk)."""
    what = "game:copyFileToLocation"
    target = args.get("target")
    if not isinstance(target, str):
        raise HostError(f"{what} expects a target file name (a string), got {show_lua(target)}")
    parts = _parts(target[len(TEMP_FOLDER) + 1:]) if target.startswith(TEMP_FOLDER + "/") else None
    if parts is None:
        raise HostError(f"{what} writes only to files under game:tempFolder() ({TEMP_FOLDER!r}), which "
                        f"jaxlab keeps in memory; got {target[:200]!r}")
    data = read_file(sandbox, args.get("source"), what)
    files = _temp_files.setdefault(sandbox, {})
    key = "/".join(parts)
    if sum(len(v) for k, v in files.items() if k != key) + len(data) > MAX_TEMP_BYTES:
        raise HostError(f"{what}: game:tempFolder() holds at most {MAX_TEMP_BYTES // 2**20} MiB")
    files[key] = data
    return target


# -- images ----------------------------------------------------------------------

def _pixels(array: np.ndarray) -> Pixels:
    """An (H, W, C) uint8 array as ``(bytes, H, W, C)`` for Lua."""
    h, w, c = array.shape
    return np.ascontiguousarray(array, dtype=np.uint8).tobytes(), h, w, c


def decode_png(data: bytes, name: str) -> np.ndarray:
    """The pixels of the PNG file ``data`` (named ``name`` in messages): uint8 (H, W, C), C = 1 for
    8-bit grayscale, 2 grayscale + alpha, 3 RGB, 4 RGBA. Refuses (HostError) other files, other
    modes (paletted, 16-bit, 1-bit), corrupt data and images above :data:`MAX_SIDE` on a side,
    checked from the header before any pixel is decoded (decompression bombs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data), formats=["PNG"]) as im:
                width, height = im.size
                if width > MAX_SIDE or height > MAX_SIDE:
                    raise HostError(f"image.load: {name} is {width}x{height} pixels; images may be at "
                                    f"most {MAX_SIDE} pixels on a side")
                if im.mode not in _CHANNELS:
                    raise HostError(f"image.load: {name} is a PNG in mode {im.mode!r} (e.g. paletted or "
                                    "16-bit), which is not supported: save it as 8-bit grayscale, "
                                    "grayscale with alpha, RGB or RGBA")
                im.load()
                array = np.asarray(im, dtype=np.uint8)
        except Image.UnidentifiedImageError:
            if data.startswith(PNG_SIGNATURE):
                raise HostError(f"image.load: {name} is a corrupt PNG file (its header is broken)") from None
            raise HostError(f"image.load: {name} is not a PNG file (image.load reads PNG images)") from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise HostError(f"image.load: {name} declares too many pixels; images may be at most "
                            f"{MAX_SIDE} pixels on a side") from None
        except _DECODE_ERRORS as e:
            raise HostError(f"image.load: {name} is a corrupt PNG file ({e})") from None
    return array.reshape(array.shape[0], array.shape[1], -1)


def _image_load(sandbox: Any, args: Mapping[str, Any]) -> Pixels:
    """image.load: ``{path}`` (a file, by the rules of :func:`read_file`) or ``{path = 'content:.png',
    content}`` (the bytes of a PNG file) -> the pixels (see :func:`decode_png`)."""
    path, content = args.get("path"), args.get("content")
    if not isinstance(path, str):
        raise HostError(f"image.load expects a file name (a string), got {show_lua(path)}")
    extension = path[path.rfind("."):].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if path.startswith(CONTENT):
        if isinstance(content, str):
            content = content.encode("utf-8")
        if not isinstance(content, bytes):
            raise HostError("image.load('content:.png', content) expects the bytes of a PNG file "
                            f"(a string) as content, got {show_lua(content)}")
    elif content is not None:
        raise HostError("image.load: a second argument (a file's bytes) needs 'content:.png' as the first")
    if extension != ".png":
        raise HostError(f"image.load: unknown image format {extension or path[:200]!r}: image.load "
                        "reads PNG files ('*.png' or 'content:.png')")
    if path.startswith(CONTENT):
        return _pixels(decode_png(content, "the content"))
    return _pixels(decode_png(read_file(sandbox, path, "image.load"), repr(path)))


def _byte_image(value: Any, what: str, channels: Tuple[int, ...] = ()) -> np.ndarray:
    """``value`` (a ByteTensor as a numpy array) once it is (H, W, C) with C in ``channels`` (any C
    when empty); HostError naming ``what`` otherwise."""
    if not isinstance(value, np.ndarray) or value.dtype != np.uint8:
        raise HostError(f"{what} must be a ByteTensor, got {_describe(value)}")
    if value.ndim != 3 or (channels and value.shape[2] not in channels):
        wanted = "/".join(map(str, channels)) if channels else "C"
        raise HostError(f"{what} must have shape {{height, width, {wanted}}}, got {{"
                        f"{', '.join(map(str, value.shape))}}}")
    return value


def _whole(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as DMLab's engine reads an integer (truncated toward zero) once it is a finite number whose
    integer lies in ``[low, high]``; HostError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not low <= int(value) <= high:
        raise HostError(f"{what} must be a number whose integer part is in [{low}, {high}], got {show_lua(value)}")
    return int(value)


def _axis_weights(old: int, new: int, nearest: bool) -> np.ndarray:
    """float64[new, old]: how much of each of ``old`` pixels along one axis each of ``new`` pixels takes.
    Shrinking averages the pixels (and parts of pixels) a new pixel covers, whatever ``nearest``; enlarging
    interpolates linearly, the first and last pixels staying at the ends, or with ``nearest`` takes the pixel
    under the new pixel's centre (the lower one on a boundary)."""
    weights = np.zeros((new, old))
    if new < old:
        edges = np.arange(new + 1) * (old / new)
        for i in range(new):
            cover = np.minimum(edges[i + 1], np.arange(1, old + 1)) - np.maximum(edges[i], np.arange(old))
            weights[i] = np.maximum(cover, 0.0) / (edges[i + 1] - edges[i])
        return weights
    if nearest:
        under = np.maximum(((2 * np.arange(new) + 1) * old + 2 * new - 1) // (2 * new) - 1, 0)
        weights[np.arange(new), under] = 1.0
        return weights
    place = np.arange(new) * ((old - 1) / (new - 1)) if new > 1 else np.zeros(1)
    low = np.minimum(np.floor(place).astype(int), old - 1)
    high = np.minimum(low + 1, old - 1)
    frac = place - low
    np.add.at(weights, (np.arange(new), low), 1.0 - frac)
    np.add.at(weights, (np.arange(new), high), frac)
    return weights


def scale_image(array: np.ndarray, height: int, width: int, nearest: bool = False) -> np.ndarray:
    """A uint8 (H, W, C) image scaled to (height, width, C) as DMLab's and Lab2D's ``image.scale`` do
    (:func:`_axis_weights` along each axis, in float32), each value rounded down. Checked against dmlab2d's own:
    equal where every side shrinks, and where every side grows 'nearest'; within 1 where every side grows
    linearly (its float rounding); one side shrinking as another grows may differ more."""
    rows, cols = (_axis_weights(array.shape[0], height, nearest).astype(np.float32),
                  _axis_weights(array.shape[1], width, nearest).astype(np.float32))
    scaled = np.einsum("ih,hwc,jw->ijc", rows, array.astype(np.float32), cols)   # in single precision, as there
    return np.clip(np.floor(scaled), 0, 255).astype(np.uint8)


def _image_scale(sandbox: Any, args: Mapping[str, Any]) -> Pixels:
    """image.scale: ``{image, height, width, mode}`` (``mode`` nil or 'nearest') -> the pixels."""
    array = _byte_image(args.get("image"), "image.scale's image (argument 1)")
    height = _whole(args.get("height"), "image.scale's height (argument 2)", 1, MAX_SIDE)
    width = _whole(args.get("width"), "image.scale's width (argument 3)", 1, MAX_SIDE)
    mode = args.get("mode")
    if mode not in (None, "nearest"):
        raise HostError(f"image.scale's mode (argument 4) must be nil or 'nearest', got {show_lua(mode)}")
    return _pixels(scale_image(array, height, width, mode == "nearest"))


def set_hue(array: np.ndarray, hue: float) -> np.ndarray:
    """Pixels (..., 3 or 4) uint8 with their hue in HSL set to ``hue`` degrees (taken modulo 360);
    lightness and saturation are kept (so greys stay grey), alpha is untouched, channels round to
    nearest."""
    rgb = array[..., :3].astype(np.float64)                 # in units of 1/255: halves are exact
    high, low = rgb.max(axis=-1), rgb.min(axis=-1)
    lightness, half_chroma = (high + low) / 2.0, (high - low) / 2.0
    out = array.copy()
    for channel, offset in enumerate((0.0, 8.0, 4.0)):     # red, green, blue
        k = (offset + (hue % 360.0) / 30.0) % 12.0
        ramp = np.clip(np.minimum(k - 3.0, 9.0 - k), -1.0, 1.0)
        out[..., channel] = np.floor(lightness - half_chroma * ramp + 0.5).astype(np.uint8)
    return out


def _image_set_hue(sandbox: Any, args: Mapping[str, Any]) -> bytes:
    """image.setHue: ``{image, hue}`` -> the new pixels, the image's shape."""
    array = args.get("image")
    if not isinstance(array, np.ndarray) or array.dtype != np.uint8 or array.ndim < 1 \
            or array.shape[-1] not in (3, 4):
        raise HostError("image.setHue's image (argument 1) must be a ByteTensor whose last dimension "
                        f"is 3 (RGB) or 4 (RGBA), got {_describe(array)}")
    hue = args.get("hue")
    if isinstance(hue, bool) or not isinstance(hue, (int, float)) or not math.isfinite(hue):
        raise HostError(f"image.setHue's hue (argument 2) must be a finite number of degrees, got "
                        f"{show_lua(hue)}")
    return set_hue(array, float(hue)).tobytes()


def set_masked_pattern(image: np.ndarray, pattern: np.ndarray, color1: Tuple[int, int, int],
                       color2: Tuple[int, int, int]) -> np.ndarray:
    """An (H, W, 4) uint8 image with a pattern laid over it where its alpha is opaque: the pattern
    colour blends ``color2`` (pattern 0) to ``color1`` (pattern 255) by the pattern's first channel,
    each pixel blends its own colour (alpha 0) to the pattern colour (alpha 255), and alpha becomes
    255. Blends are integer: ``(a * (255 - t) + b * t + 127) // 255``. ``pattern`` has H*W pixels."""
    t = pattern.reshape(-1, pattern.shape[-1])[:, :1].astype(np.int64)
    ink = (np.asarray(color1, np.int64) * t + np.asarray(color2, np.int64) * (255 - t) + 127) // 255
    pixels = image.reshape(-1, 4).astype(np.int64)
    alpha = pixels[:, 3:]
    out = np.full_like(pixels, 255)
    out[:, :3] = (pixels[:, :3] * (255 - alpha) + ink * alpha + 127) // 255
    return out.astype(np.uint8).reshape(image.shape)


def _image_set_masked_pattern(sandbox: Any, args: Mapping[str, Any]) -> bytes:
    """image.setMaskedPattern: ``{image, pattern, color1, color2}`` -> the new pixels, the image's shape."""
    image = _byte_image(args.get("image"), "image.setMaskedPattern's image (argument 1)", (4,))
    pattern = _byte_image(args.get("pattern"), "image.setMaskedPattern's pattern (argument 2)")
    if pattern.shape[0] * pattern.shape[1] != image.shape[0] * image.shape[1] or pattern.shape[2] < 1:
        raise HostError(f"image.setMaskedPattern: the pattern has {pattern.shape[0]}x{pattern.shape[1]} "
                        f"pixels, the image {image.shape[0]}x{image.shape[1]}: they must be as many")
    colors = []
    for i, name in ((3, "color1"), (4, "color2")):
        value = args.get(name)
        what = f"image.setMaskedPattern's {name} (argument {i})"
        if not isinstance(value, list) or len(value) != 3:
            raise HostError(f"{what} must be {{R, G, B}}, got {show_lua(value)}")
        colors.append(tuple(_whole(v, f"{what}'s values", 0, 255) for v in value))
    return set_masked_pattern(image, pattern, colors[0], colors[1]).tobytes()


def _describe(value: Any) -> str:
    """A host argument for a message: a tensor's class and shape, else :func:`show_lua`."""
    if isinstance(value, np.ndarray):
        kind = "ByteTensor" if value.dtype == np.uint8 else "DoubleTensor"
        return f"a {kind} of shape {{{', '.join(map(str, value.shape))}}}"
    return show_lua(value)


#: host function name -> fn(sandbox, args): what dmlab.system.game and dmlab.system.image call
FUNCTIONS: Dict[str, Callable[..., Any]] = {
    "file_read": _file_read,
    "file_copy": _file_copy,
    "image_load": _image_load,
    "image_scale": _image_scale,
    "image_set_hue": _image_set_hue,
    "image_set_masked_pattern": _image_set_masked_pattern,
}
