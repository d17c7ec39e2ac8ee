"""Symlinks, one rule for every entry point (docs/security.md, "Symlinks").

A path you pass (a map, a bank, a TextWorld game, a level script, the levels folder) is yours: it is
followed wherever its symlinks point, and the files jaxlab reads beside it by rule (a map's
variations layer, the ``.json`` beside a compiled game, a script's modules) are looked up beside the
path as you gave it. A name written inside a level script (a module for ``require``, a map for
``nextMap``) is read only from inside the folder it is found in, after symlinks: a symlink out of
its folder is a file that is not there, with the same message.
"""
import numpy as np
import pytest

import jaxlab
from compile_lua import LuaScriptError, compile_script
from compile_lua.cache import cache_entry
from compile_lua.cli import output_problem
from jaxlab.bank import Bank
from jaxlab.bank_file import save_bank
from jaxlab.levels.dmlab.level import build_level
from jaxlab.levels.dmlab.map_parser import parse_text_map
from jaxlab.text import make as make_game, read_textworld

ROOM = "*****\n*P A*\n*****\n"


@pytest.fixture
def folders(tmp_path):
    """(level, outside): the folder the caller names and one elsewhere."""
    (tmp_path / "level").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path / "level", tmp_path / "outside"


def _script(next_map: str, header: str = "") -> str:
    return f"{header}local api = {{}}\nfunction api:nextMap() return {next_map} end\nreturn api\n"


# -- paths the caller passes: followed ------------------------------------------------------------

def test_a_map_path_you_pass_is_followed_and_its_variations_are_read_beside_it(folders):
    level, outside = folders
    (outside / "room.txt").write_text(ROOM.replace("P A", "PAA"))
    (outside / "room.variations.txt").write_text(".....\n.C...\n")
    (level / "room.txt").symlink_to(outside / "room.txt")
    (level / "room.variations.txt").write_text(".....\n.B...\n")
    env = jaxlab.make(str(level / "room.txt"))
    levels = env.bank.levels
    assert int(levels.pickup_valid.sum()) == 2 and int(levels.variation[0, 1, 1]) == 2   # 'B', beside the link


def test_a_bank_path_you_pass_is_followed(folders):
    level, outside = folders
    save_bank(outside / "room.jaxlab", Bank.stack([build_level(parse_text_map(ROOM), 10.0)]), {})
    (level / "room.jaxlab").symlink_to(outside / "room.jaxlab")
    assert jaxlab.make(str(level / "room.jaxlab")).bank.levels.cells.shape == (1, 3, 5)


def test_a_textworld_game_path_you_pass_is_followed_and_a_compiled_game_reads_the_json_beside_it(folders):
    level, outside = folders
    make_game("tw-coin_collector", seed=1).save(outside / "game.json")
    (level / "game.json").symlink_to(outside / "game.json")
    (level / "game.z8").write_bytes(b"\0" * 64)
    for path in (level / "game.json", level / "game.z8"):
        spec = read_textworld(path)
        assert spec.path == str(level / "game.json") and spec.quests


def test_a_script_path_you_pass_is_followed_and_its_modules_are_found_beside_the_path(folders):
    level, outside = folders
    (outside / "real.lua").write_text(_script("helper.room()", "local helper = require 'helper'\n"))
    (level / "level.lua").symlink_to(outside / "real.lua")
    for folder, name in ((level, "beside_the_link"), (outside, "beside_the_target")):
        (folder / "helper.lua").write_text(
            "local make_map = require 'common.make_map'\n"
            f"return {{room = function() return make_map.makeMap('*****\\n*P A*\\n*****', '{name}') end}}\n")
    assert compile_script(level / "level.lua").meta["maps"] == ["beside_the_link"]


def test_two_links_to_one_script_from_two_folders_have_two_cache_entries(folders, tmp_path):
    """Their modules are found in two folders, so one's compiled bank is not the other's."""
    level, outside = folders
    (outside / "real.lua").write_text(_script("'x'"))
    (tmp_path / "other").mkdir()
    for folder in (level, tmp_path / "other"):
        (folder / "level.lua").symlink_to(outside / "real.lua")
    entries = [cache_entry(folder / "level.lua", directory=tmp_path) for folder in (level, tmp_path / "other")]
    assert entries[0].target != entries[1].target


def test_an_output_path_that_is_a_symlink_is_replaced_not_written_through(folders):
    level, outside = folders
    (outside / "kept.jaxlab").write_bytes(b"kept")
    (level / "out.jaxlab").symlink_to(outside / "kept.jaxlab")
    save_bank(level / "out.jaxlab", Bank.stack([build_level(parse_text_map(ROOM), 10.0)]), {})
    assert not (level / "out.jaxlab").is_symlink() and (outside / "kept.jaxlab").read_bytes() == b"kept"
    (outside / "level.lua").write_text(_script("'x'"))
    (level / "script.jaxlab").symlink_to(outside / "level.lua")
    assert "is the level script itself" in output_problem(level / "script.jaxlab", outside / "level.lua")


# -- names written in a script: only inside the folder they are found in -----------------------------

def _refusal(path) -> str:
    with pytest.raises(LuaScriptError) as caught:
        compile_script(path)
    return str(caught.value)


def test_require_reads_no_module_that_links_out_of_its_folder(folders):
    level, outside = folders
    (outside / "secret.lua").write_text("return {}\n")
    (level / "secret.lua").symlink_to(outside / "secret.lua")
    (level / "sub").mkdir()
    (level / "sub" / "real.lua").write_text("return {room = '*****\\n*P A*\\n*****'}\n")
    (level / "alias.lua").symlink_to(level / "sub" / "real.lua")   # inside its folder: read
    maps = "local make_map = require 'common.make_map'\nlocal alias = require 'alias'\n"
    (level / "inside.lua").write_text(_script("make_map.makeMap(alias.room, 'room')", maps))
    assert compile_script(level / "inside.lua").meta["maps"] == ["room"]
    messages = []
    for name in ("secret", "missing"):
        (level / f"{name}_level.lua").write_text(_script("'x'", f"local m = require '{name}'\n"))
        messages.append(_refusal(level / f"{name}_level.lua").replace(name, "NAME"))
    assert messages[0] == messages[1] and "module not found" in messages[0] and str(outside) not in messages[0]


def test_a_levels_dir_you_pass_is_followed_but_its_modules_stay_inside_it(folders, tmp_path):
    level, outside = folders
    (outside / "rooms.lua").write_text("return {room = '*****\\n*P A*\\n*****'}\n")
    (outside / "escape.lua").symlink_to(tmp_path / "elsewhere.lua")
    (tmp_path / "elsewhere.lua").write_text("return {}\n")
    (tmp_path / "lib").symlink_to(outside, target_is_directory=True)
    header = "local make_map = require 'common.make_map'\nlocal rooms = require 'rooms'\n"
    (level / "level.lua").write_text(_script("make_map.makeMap(rooms.room, 'room')", header))
    assert compile_script(level / "level.lua", levels_dir=tmp_path / "lib").meta["maps"] == ["room"]
    (level / "bad.lua").write_text(_script("'x'", "local e = require 'escape'\n"))
    with pytest.raises(LuaScriptError, match="module not found"):
        compile_script(level / "bad.lua", levels_dir=tmp_path / "lib")


def test_a_map_name_may_link_inside_its_folder_but_not_out_of_it(folders):
    level, outside = folders
    (level / "maps").mkdir()
    (level / "maps" / "room.txt").write_text(ROOM)
    (level / "inside.txt").symlink_to(level / "maps" / "room.txt")
    (outside / "room.txt").write_text(ROOM)
    (level / "out.txt").symlink_to(outside / "room.txt")
    (level / "inside.lua").write_text(_script("'inside'"))
    assert np.asarray(compile_script(level / "inside.lua").bank.levels.cells).shape == (1, 3, 5)
    (level / "out.lua").write_text(_script("'out'"))
    assert "neither a map made with make_map.makeMap nor a map file" in _refusal(level / "out.lua")
