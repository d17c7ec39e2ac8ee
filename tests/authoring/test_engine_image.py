"""dmlab.system.image and the file functions of dmlab.system.game (compile_lua.engine.files)."""
import colorsys
import hashlib
import io
import math
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from compile_lua import engine
from compile_lua.engine import files
from compile_lua.errors import LuaScriptError
from compile_lua.sandbox import Sandbox

HEADER = "local game = require 'dmlab.system.game'\nlocal image = require 'dmlab.system.image'\n"


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def png(array, mode=None):
    out = io.BytesIO()
    image = Image.fromarray(array) if mode is None else Image.fromarray(array).convert(mode)
    image.save(out, format="PNG")
    return out.getvalue()


def run(tmp_path, body, search_dirs=(), folder="level"):
    """Runs HEADER + body as the main chunk of a script in tmp_path/folder; returns (sandbox, result as Python)."""
    script = write(tmp_path / folder / "level.lua", HEADER + body)
    sb = Sandbox(script, search_dirs, time_limit_s=5.0, host_functions=engine.FUNCTIONS)
    return sb, sb.to_python(sb.load_script())


def error_of(tmp_path, body, **kwargs):
    with pytest.raises(LuaScriptError) as info:
        run(tmp_path, body, **kwargs)
    return info.value


def pixels(shape, seed=7):
    return np.random.default_rng(seed).integers(0, 256, size=shape, dtype=np.uint8)


# -- image.load ----------------------------------------------------------------------

@pytest.mark.parametrize("channels, mode", [(1, "L"), (2, "LA"), (3, "RGB"), (4, "RGBA")])
def test_load_round_trips_pixels_exactly(tmp_path, channels, mode):
    array = pixels((5, 7, channels))
    write(tmp_path / "level" / "data" / "img.png", png(array[:, :, 0] if channels == 1 else array))
    _, loaded = run(tmp_path, "local t = image.load('data/img.png')\nreturn {t = t, type = t:type()}\n")
    assert loaded["type"] == "tensor.ByteTensor"
    assert loaded["t"].shape == (5, 7, channels) and np.array_equal(loaded["t"], array)


def test_load_content_and_file_functions_read_the_same_bytes(tmp_path):
    array = pixels((4, 3, 3))
    data = png(array)
    write(tmp_path / "level" / "img.png", data)
    sb, got = run(tmp_path, "local s = game:loadFileToString('img.png')\n"
                            "return {img = image.load('content:.png', s), s = s,\n"
                            "        t = game:loadFileToByteTensor('img.png')}\n")
    assert got["s"] == data and np.array_equal(got["img"], array)
    assert got["t"].shape == (len(data),) and got["t"].tobytes() == data
    real = str((tmp_path / "level" / "img.png").resolve())
    assert real in sb.files


def test_run_files_paths_read_the_search_folders(tmp_path):
    array = pixels((3, 2, 4))
    game_scripts = tmp_path / "lab" / "game_scripts"
    write(game_scripts / "player" / "mask.png", png(array))
    sb, got = run(tmp_path, "local dir = game:runFiles() .. '/baselab/game_scripts/player/'\n"
                            "return {img = image.load(dir .. 'mask.png'), root = game:runFiles()}\n",
                  search_dirs=[game_scripts])
    assert got["root"] == files.RUN_FILES and np.array_equal(got["img"], array)
    real = (game_scripts / "player" / "mask.png").resolve()
    assert sb.files[str(real)] == hashlib.sha256(real.read_bytes()).hexdigest()


def test_temp_folder_keeps_copies_in_memory(tmp_path):
    write(tmp_path / "level" / "a.txt", "hello")
    _, got = run(tmp_path, "local to = game:tempFolder() .. '/sub/b.txt'\n"
                           "local name = game:copyFileToLocation('a.txt', to)\n"
                           "return {name = name, text = game:loadFileToString(to)}\n")
    assert got == {"name": files.TEMP_FOLDER + "/sub/b.txt", "text": "hello"}
    assert not list(tmp_path.rglob("b.txt"))
    err = error_of(tmp_path, "game:copyFileToLocation('a.txt', 'copy.txt')\n")
    assert "writes only to files under game:tempFolder()" in err.message and err.line == 3


# -- path rules --------------------------------------------------------------------

def test_paths_outside_get_one_message(tmp_path):
    secret = write(tmp_path / "secret.png", png(pixels((2, 2, 3))))
    game_scripts = tmp_path / "game_scripts"
    game_scripts.mkdir()
    (tmp_path / "level").mkdir()
    (tmp_path / "level" / "link.png").symlink_to(secret)
    (game_scripts / "link.png").symlink_to(secret)
    in_game_scripts = files.GAME_SCRIPTS
    groups = [
        ["../secret.png", str(secret), "link.png", "./link.png", "sub/../../secret.png", "missing.png",
         files.RUN_FILES + "/secret.png"],
        [in_game_scripts + "../secret.png", in_game_scripts + "link.png", in_game_scripts + "missing.png"],
        [files.TEMP_FOLDER + "/../secret.png", files.TEMP_FOLDER + "/missing.png"],
    ]
    for paths in groups:
        messages = set()
        for path in paths:
            err = error_of(tmp_path, f"local x = 1\nimage.load('{path}')\n", search_dirs=[game_scripts])
            assert err.line == 4 and err.path == str(tmp_path / "level" / "level.lua"), path
            assert err.message.startswith(f"in main chunk: image.load: cannot read {path!r}: no such file in ")
            messages.add(err.message.replace(repr(path), "PATH"))
        assert len(messages) == 1, messages


def test_refusals_do_not_depend_on_existence(tmp_path):
    write(tmp_path / "there.txt", "x")
    texts = []
    for name in ("there.txt", "absent.txt"):
        err = error_of(tmp_path, f"game:loadFileToString('../{name}')\n")
        texts.append(err.message.replace(name, "NAME"))
    assert texts[0] == texts[1]


def test_run_files_without_search_folders_says_what_to_pass(tmp_path):
    err = error_of(tmp_path, "image.load(game:runFiles() .. '/baselab/game_scripts/player/x.png')\n")
    assert "none given" in err.message and "--levels-dir" in err.message


# -- scale -------------------------------------------------------------------------

def scaled(tmp_path, array, height, width, extra=""):
    write(tmp_path / "level" / "img.png", png(array))
    return run(tmp_path, f"return image.scale(image.load('img.png'), {height}, {width}{extra})\n")[1]


#: (source height, width, channels, target height, width, mode): every side shrinking (by whole and by fractional
#: factors, 'nearest' or not: Lab2D averages either way) or every side growing (linearly, or 'nearest')
SCALES = [(12, 9, 3, 4, 3, ""), (16, 16, 4, 8, 8, "nearest"), (7, 5, 1, 3, 2, "nearest"), (3, 4, 4, 7, 10, ""),
          (2, 3, 3, 4, 5, ""), (3, 4, 4, 7, 10, "nearest"), (3, 7, 1, 11, 13, "nearest")]

SCALE_LEVEL = """local tensor = require 'system.tensor'
local image = require 'system.image'
local SOURCES = {{{sources}}}
local api = {{}}
local scaled = {{}}
for i, s in ipairs(SOURCES) do scaled[i] = image.scale(tensor.ByteTensor(s[1]), s[2], s[3], s[5]) end
function api:observationSpec()
  local spec = {{}}
  for i, s in ipairs(SOURCES) do
    spec[i] = {{name = 'S' .. i, type = 'tensor.ByteTensor', shape = {{s[2], s[3], s[4]}}}}
  end
  return spec
end
function api:discreteActionSpec() return {{{{name = 'noop', min = 0, max = 1}}}} end
function api:discreteActions(actions) end
function api:start(episode, seed) end
function api:advance(frame) return false, 0 end
function api:observation(i) return scaled[i] end
return api
"""


def test_scale_equals_dmlab2d_s(tmp_path):
    pytest.importorskip("dmlab2d")
    import dmlab2d
    from grid.lab2d_reference import open_level
    arrays = [pixels((h, w, c), seed=i) for i, (h, w, c, *_) in enumerate(SCALES)]
    sources = ", ".join(f"{{{lua_table(a)}, {th}, {tw}, {a.shape[2]}, {repr(mode) if mode else 'nil'}}}"
                        for a, (*_, th, tw, mode) in zip(arrays, SCALES))
    (tmp_path / "scaling.lua").write_text(SCALE_LEVEL.format(sources=sources))
    names = [f"S{i + 1}" for i in range(len(SCALES))]
    theirs = dmlab2d.Environment(open_level(tmp_path, "scaling"), names).reset().observation
    for i, (array, (*_, th, tw, mode)) in enumerate(zip(arrays, SCALES)):
        extra = f", '{mode}'" if mode else ""
        got = scaled(tmp_path / f"ours{i}", array if array.shape[2] > 1 else array[:, :, 0], th, tw, extra)
        if th > array.shape[0] and not mode:   # linear enlarging: dmlab2d's own float rounding, to within 1
            assert np.abs(got.astype(int) - theirs[names[i]]).max() <= 1, SCALES[i]
        else:
            assert np.array_equal(got, theirs[names[i]]), SCALES[i]


def test_scale_one_channel_keeps_its_channel(tmp_path):
    got = scaled(tmp_path, pixels((6, 5, 1))[:, :, 0], 9, 2)
    assert got.shape == (9, 2, 1)


# -- setHue and setMaskedPattern -----------------------------------------------------------

def lua_table(array):
    if array.ndim == 1:
        return "{" + ", ".join(str(int(v)) for v in array) + "}"
    return "{" + ", ".join(lua_table(a) for a in array) + "}"


@pytest.mark.parametrize("hue", [0, 120, 240, 45, 200.5, -30, 725])
def test_set_hue_matches_colorsys(tmp_path, hue):
    array = np.concatenate([pixels((40, 4)), [[255, 0, 0, 9], [255, 255, 255, 8], [0, 0, 0, 7]]]).astype(np.uint8)
    _, got = run(tmp_path, "local tensor = require 'dmlab.system.tensor'\n"
                           f"local t = tensor.ByteTensor{lua_table(array)}\n"
                           f"local r = image.setHue(t, {hue})\nreturn {{same = r == t, t = t}}\n")
    expected = array.copy()
    for row in expected:
        _, lightness, saturation = colorsys.rgb_to_hls(*(row[:3] / 255.0))
        rgb = colorsys.hls_to_rgb((hue % 360) / 360.0, lightness, saturation)
        row[:3] = [math.floor(v * 255 + 0.5) for v in rgb]
    assert got["same"] and got["t"].shape == array.shape
    if hue % 60 == 0:                                  # every channel is the pixel's max or min: exact
        assert np.array_equal(got["t"], expected)
    assert np.abs(got["t"].astype(int) - expected).max() <= 1          # colorsys's float steps may cross x.5
    assert np.array_equal(got["t"][:, 3], array[:, 3])
    assert np.array_equal(got["t"][-2:], array[-2:])                   # white and black stay


def test_set_masked_pattern_blends_by_alpha_and_pattern(tmp_path):
    img, pattern = pixels((3, 4, 4)), pixels((4, 3, 2), seed=8)
    c1, c2 = (0, 255, 10), (200, 0, 255)
    body = ("local tensor = require 'dmlab.system.tensor'\n"
            f"local img = tensor.ByteTensor{lua_table(img)}\nlocal pat = tensor.ByteTensor{lua_table(pattern)}\n"
            f"local r = image.setMaskedPattern(img, pat, {lua_table(np.array(c1))}, {lua_table(np.array(c2))})\n"
            "return {same = r == img, img = img}\n")
    _, got = run(tmp_path, body)
    flat, t = img.reshape(-1, 4).astype(int), pattern.reshape(-1, 2)[:, 0].astype(int)
    expected = np.empty_like(flat)
    for i, (pixel, v) in enumerate(zip(flat, t)):
        ink = [(a * v + b * (255 - v) + 127) // 255 for a, b in zip(c1, c2)]
        expected[i, :3] = [(s * (255 - pixel[3]) + k * pixel[3] + 127) // 255 for s, k in zip(pixel[:3], ink)]
        expected[i, 3] = 255
    assert got["same"] and np.array_equal(got["img"], expected.reshape(3, 4, 4))


# -- refusals ----------------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    ("image.load(42)", "expects a file name (a string), got 42 (a number)"),
    ("image.load('img.jpg')", "unknown image format '.jpg'"),
    ("image.load('content:.png', 5)", "expects the bytes of a PNG file"),
    ("image.load('content:.png', 'not a png')", "is not a PNG file"),
    ("image.load('img.png', 'x')", "needs 'content:.png' as the first"),
    ("image.scale({1, 2}, 2, 2)", "image.scale's image (argument 1) must be a ByteTensor, got a list"),
    ("image.scale(tensor.ByteTensor{2, 2}, 2, 2)", "must have shape {height, width, C}, got {2}"),
    ("image.scale(tensor.ByteTensor.zeros(2, 2, 1), 0, 2)", "height (argument 2) must be a number whose integer part is in"),
    ("image.scale(tensor.ByteTensor.zeros(2, 2, 1), 2, 5000)", "in [1, 4096]"),
    ("image.scale(tensor.ByteTensor.zeros(2, 2, 1), 2, 2, 'cubic')", "must be nil or 'nearest'"),
    ("image.setHue(tensor.DoubleTensor(2, 3), 5)", "got a DoubleTensor of shape {2, 3}"),
    ("image.setHue(tensor.ByteTensor.zeros(2, 3), 0/0)", "must be a finite number of degrees"),
    ("image.setMaskedPattern(tensor.ByteTensor.zeros(2, 2, 3), tensor.ByteTensor.zeros(2, 2, 1), "
     "{1, 2, 3}, {4, 5, 6})", "must have shape {height, width, 4}"),
    ("image.setMaskedPattern(tensor.ByteTensor.zeros(2, 2, 4), tensor.ByteTensor.zeros(3, 2, 1), "
     "{1, 2, 3}, {4, 5, 6})", "they must be as many"),
    ("image.setMaskedPattern(tensor.ByteTensor.zeros(2, 2, 4), tensor.ByteTensor.zeros(2, 2, 1), "
     "{1, 2, 300}, {4, 5, 6})", "color1 (argument 3)'s values must be a number whose integer part is in [0, 255]"),
    ("game:loadFileToString({})", "game:loadFileToString expects a file name (a string)"),
    ("game:updateTexture('x', 1)", "game:updateTexture expects a texture name and a ByteTensor shaped H x W x 4"),
])
def test_bad_arguments_are_refused_at_the_calling_line(tmp_path, call, words):
    write(tmp_path / "level" / "img.png", png(pixels((2, 2, 3))))
    err = error_of(tmp_path, f"local tensor = require 'dmlab.system.tensor'\n\n{call}\n")
    assert words in err.message and err.line == 5, err.message


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@pytest.mark.parametrize("data, words", [
    (png(pixels((8, 8, 3)))[:-30], "corrupt PNG file"),
    (png(pixels((8, 8, 3)))[:40] + b"\0" * 20, "corrupt PNG file"),
    (b"GIF89a" + b"\0" * 30, "is not a PNG file"),
    (png(pixels((4, 4, 3)), mode="P"), "mode 'P'"),
    (png(np.zeros((1, 4097), np.uint8)), "is 4097x1 pixels"),
    (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 200000, 200000, 8, 2, 0, 0, 0))
     + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""), "pixels"),
], ids=["truncated", "broken header", "gif", "paletted", "too wide", "bomb"])
def test_bad_files_are_refused(tmp_path, data, words):
    write(tmp_path / "level" / "bad.png", data)
    err = error_of(tmp_path, "image.load('bad.png')\n")
    assert words in err.message and "image.load: 'bad.png'" in err.message and err.line == 3, err.message


def test_large_files_and_a_full_temp_folder_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 10)
    monkeypatch.setattr(files, "MAX_TEMP_BYTES", 15)
    write(tmp_path / "level" / "big.txt", "x" * 11)
    write(tmp_path / "level" / "small.txt", "x" * 8)
    err = error_of(tmp_path, "game:loadFileToByteTensor('big.txt')\n")
    assert "'big.txt' is larger than" in err.message and err.line == 3
    err = error_of(tmp_path, "game:copyFileToLocation('small.txt', game:tempFolder() .. '/a')\n"
                             "game:copyFileToLocation('small.txt', game:tempFolder() .. '/a')\n"
                             "game:copyFileToLocation('small.txt', game:tempFolder() .. '/b')\n")
    assert "game:tempFolder() holds at most" in err.message and err.line == 5
