"""A ``.jaxlab`` file is validated before anything reaches a kernel: each corrupt field ends in one
BankFileError naming the file and the field; a map file that is not UTF-8 ends in one MapError."""
import io
import struct
import tracemalloc
import zipfile

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxlab
from jaxlab import bank_checks
from jaxlab.bank import Bank
from jaxlab.bank_file import MAX_EXPANSION, MIN_ALLOWANCE, BankFileError, load_bank, save_bank
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab.level import Level, build_level
from jaxlab.levels.dmlab.map_parser import MapError, parse_text_map
from jaxlab.levels.lab2d.layout import GridLayout

# Level 0: a corridor with a door (1, 3) and an apple; level 1: a random-goal room (3 goal choices).
CORRIDOR = "*******\n*P I A*\n*******"
ROOM = "*****\n*P G*\n*P  *\n*****"


@pytest.fixture(scope="module")
def bank():
    return Bank.stack([build_level(parse_text_map(CORRIDOR), 30.0),
                       build_level(parse_text_map(ROOM), 20.0, random_goal=True)])


@pytest.fixture
def good(bank, tmp_path):
    path = tmp_path / "good.jaxlab"
    save_bank(path, bank, {"note": "two levels"})
    return path


def rewrite(src, dst, edit):
    """Copy the bank file ``src`` to ``dst`` with ``edit(arrays)`` applied (arrays by member name)."""
    with np.load(src) as data:
        arrays = {k: data[k] for k in data.files}
    edit(arrays)
    with open(dst, "wb") as f:
        np.savez_compressed(f, **arrays)
    return dst


def set_item(member, index, value):
    """An edit that writes ``value`` at ``index`` of ``member``."""
    def edit(arrays):
        arrays[member] = arrays[member].copy()
        arrays[member][index] = value
    return edit


def retype(member, dtype):
    """An edit that converts ``member`` to ``dtype``."""
    def edit(arrays):
        arrays[member] = arrays[member].astype(dtype)
    return edit


CASES = {
    "float_cells": (retype("level/cells", np.float32), r"level/cells: field 'cells' is float32\[3-d\].*needs int8"),
    "string_cells": (retype("level/cells", "U1"), r"level/cells: field 'cells' is <U1\[3-d\].*needs int8"),
    "unknown_cell_code": (set_item("level/cells", (0, 1, 2), 7),
                          r"level/cells: 7 at level 0, index \(1, 2\) is not one of \[0, 1, 2, 3\]"),
    "nan_spawn": (set_item("level/spawn_pos", (0, 0, 1), np.nan),
                  r"level/spawn_pos: NaN at level 0, index 0 \(spawn point in use\)"),
    "far_spawn": (set_item("level/spawn_pos", (0, 0, 0), -1e9),
                  r"level/spawn_pos: \(x, y\) = \(-1e\+09, 150\) at level 0, index 0 is outside the map"),
    "spawn_in_wall": (set_item("level/spawn_pos", (1, 0), (50.0, 350.0)),
                      r"level/spawn_pos: spawn point 0 of level 1 .* lies in cell \(0, 0\), which is 1, not floor"),
    "negative_rows": (set_item("level/rows", 0, -3), r"level/rows: -3 at level 0 is outside \[1, 4\]"),
    "door_index_out_of_range": (set_item("level/door_index", (0, 1, 3), 5),
                                r"level/door_index: 5 at level 0, index \(1, 3\) is outside \[-1, 0\]"),
    "door_index_on_floor": (set_item("level/door_index", (0, 1, 1), 0),
                            r"level/door_index: level 0, cell \(1, 1\) names door 0, which is not a door cell"),
    "infinite_episode": (set_item("level/episode_seconds", 1, np.inf), r"level/episode_seconds: inf at level 1"),
    "zero_episode": (set_item("level/episode_seconds", 0, 0.0), r"level/episode_seconds: 0.0 at level 0 is not positive"),
    "nan_reward": (set_item("level/pickup_reward", (0, 0), np.nan), r"level/pickup_reward: NaN at level 0, index 0"),
    "no_spawn_allowed": (set_item("level/spawn_allowed", 0, False),
                         r"level/spawn_allowed: level 0, goal choice 0 allows no spawn point"),
    "no_goal_choice": (set_item("level/goal_choice_valid", 1, False),
                       r"level/goal_choice_valid: level 1 has no valid goal choice"),
    "teleport_past_the_table": (set_item("level/pickup_teleport", (0, 0), 3),
                                r"level/pickup_teleport: 3 at level 0, index 0 is outside \[-1, 0\]"),
    "open_border": (set_item("level/cells", (1, 0, 2), 0), r"level/cells: level 1 is not enclosed: cell \(0, 2\)"),
    "spawn_count_disagrees": (lambda a: a.update({"level/spawn_yaw": a["level/spawn_yaw"][:, :1]}),
                              r"level/spawn_yaw: per-level shape \[1\]: S = 1 here but 2 in level/spawn_pos"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_corrupt_field_is_one_bank_file_error_naming_file_and_field(case, good, tmp_path):
    edit, message = CASES[case]
    path = rewrite(good, tmp_path / f"{case}.jaxlab", edit)
    with pytest.raises(BankFileError, match=message) as info:
        load_bank(path, Level)
    assert str(info.value).startswith(f"{path}: level/")


def test_zip_bomb_is_refused_before_it_is_decompressed(tmp_path):
    path = tmp_path / "bomb.jaxlab"
    expanded = 200 << 20
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|i1", "fortran_order": False, "shape": (expanded,)})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("level/cells.npy", "w", force_zip64=True) as member:
            member.write(header.getvalue())
            zeros = bytes(1 << 20)
            for _ in range(expanded >> 20):
                member.write(zeros)
    size = path.stat().st_size
    assert size < 400_000 and MAX_EXPANSION * size < expanded and MIN_ALLOWANCE < expanded
    with pytest.raises(BankFileError, match=rf"{path}: the archive's members expand to \d+ bytes, more than"):
        load_bank(path, Level)


def test_member_that_expands_past_its_declared_size_is_not_decompressed(tmp_path):
    """A zip whose directory declares a 136-byte member holding 32 MiB of deflated zeros: reading
    stops at the declared size (the CRC check then fails) instead of inflating it all."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|i1", "fortran_order": False, "shape": (8,)})
    real = len(header.getvalue()) + (32 << 20)
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("level/cells.npy", header.getvalue() + bytes(32 << 20))
    data = packed.getvalue()
    assert data.count(struct.pack("<I", real)) == 2   # the local header's and the directory's size
    path = tmp_path / "liar.jaxlab"
    path.write_bytes(data.replace(struct.pack("<I", real), struct.pack("<I", real - (32 << 20) + 8)))
    tracemalloc.start()
    try:
        with pytest.raises(BankFileError, match=rf"{path}: not a readable jaxlab bank file \(BadZipFile: Bad CRC"):
            load_bank(path, Level)
        assert tracemalloc.get_traced_memory()[1] < 8 << 20
    finally:
        tracemalloc.stop()


def test_member_compressed_with_bzip2_is_unreadable(tmp_path):
    path = tmp_path / "bzip2.jaxlab"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("meta.npy", b"")
    with pytest.raises(BankFileError, match=r"'meta.npy' uses zip compression method 12; bank files are stored or"):
        load_bank(path, Level)


def test_member_whose_header_disagrees_with_its_data_is_unreadable(good, tmp_path):
    path = tmp_path / "short.jaxlab"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            raw = src.read(info)
            dst.writestr(info.filename, raw[:-1] if info.filename == "level/rows.npy" else raw)
    with pytest.raises(BankFileError, match=r"not a readable jaxlab bank file .*'level/rows.npy' declares"):
        load_bank(path, Level)


def test_old_file_with_a_malformed_field_the_defaults_need(good, tmp_path):
    """A file without the mechanics fields gets them from Level.bank_defaults, which are sized from
    pickup_valid: a malformed pickup_valid is reported, not an IndexError."""
    def edit(arrays):
        for name in ("door_lock", "pickup_key", "theme"):
            del arrays[f"level/{name}"]
        arrays["level/pickup_valid"] = arrays["level/pickup_valid"][:, 0]
    path = rewrite(good, tmp_path / "old.jaxlab", edit)
    with pytest.raises(BankFileError, match=r"level/pickup_valid: field 'pickup_valid' is bool\[1-d\]"):
        load_bank(path, Level)


def test_valid_bank_loads_and_runs(bank, good):
    loaded, meta = load_bank(good, Level)
    assert meta["note"] == "two levels"
    for got, want in zip(jax.tree_util.tree_leaves(loaded), jax.tree_util.tree_leaves(bank)):
        np.testing.assert_array_equal(got, want)
    env = FirstPersonEnv(loaded, width=16, height=12)

    @jax.jit
    def run(key):
        state, _ = env.reset(key)

        def one(state, k):
            state, ts = env.step(state, jax.random.randint(k, (7,), -1, 2).astype(jnp.int32))
            return state, (ts.reward, state.pos)
        return jax.lax.scan(one, state, jax.random.split(key, 20))[1]

    rewards, positions = run(jax.random.PRNGKey(0))
    assert np.isfinite(np.asarray(rewards)).all() and np.isfinite(np.asarray(positions)).all()


def test_compiled_lua_style_length_one_pickup_columns_load(bank, tmp_path):
    """Bank files from earlier compile_lua versions store the pickups' key, switch, teleport and count
    columns of a level without them with length 1; the kernel broadcasts them, so they still load."""
    level = build_level(parse_text_map("*****\n*PAA*\n*****"), 10.0)
    one = build_level(parse_text_map("***\n*P*\n***"), 10.0)
    level = level.replace(**{k: getattr(one, k) for k in ("pickup_key", "pickup_switch", "pickup_teleport",
                                                           "pickup_counts")})
    path = tmp_path / "compiled.jaxlab"
    save_bank(path, Bank.stack([level]), {})
    loaded, _ = load_bank(path, Level)
    assert loaded.levels.pickup_key.shape == (1, 1) and loaded.levels.pickup_pos.shape == (1, 2, 2)


def test_grid_layout_chars_are_ascii(tmp_path):
    chars = np.full((1, 3, 4), ord("*"), np.uint8)
    path = tmp_path / "rooms.jaxlab"
    save_bank(path, Bank(GridLayout(chars=chars)), {})
    assert load_bank(path, GridLayout)[0].levels.chars.shape == (1, 3, 4)
    rewrite(path, path, set_item("level/chars", (0, 2, 1), 200))
    with pytest.raises(BankFileError, match=rf"{path}: level/chars: 200 at level 0, index \(2, 1\) is outside \[0, 127\]"):
        load_bank(path, GridLayout)


def test_every_level_field_has_a_rule_of_its_rank():
    for level_type in (Level, GridLayout):
        arrays, dicts = bank_checks.layout(level_type)
        rules = level_type.bank_rules().fields
        assert set(rules) == set(arrays) | set(dicts), level_type
        for name, (_, rank) in arrays.items():
            assert len(rules[name].dims) == rank - 1, name


def test_map_file_that_is_not_utf8_names_file_and_offset(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"*****\n*P\xff *\n*****\n")
    with pytest.raises(MapError, match=rf"{path}:2:3: not UTF-8 text: byte 0xff at byte offset 8") as info:
        jaxlab.make(str(path))
    assert isinstance(info.value, ValueError)
    path.write_bytes(b"*****\n*P  *\n*****\n")
    (tmp_path / "bad.variations.txt").write_bytes(b"\n\xc3")
    with pytest.raises(MapError, match=r"bad.variations.txt:2:1: not UTF-8 text: byte 0xc3 at byte offset 1"):
        jaxlab.make(str(path))


def test_meta_nested_too_deeply_is_not_a_bank(good, tmp_path):
    path = rewrite(good, tmp_path / "deep.jaxlab", lambda a: a.update({"meta": np.array("[" * 100_000)}))
    with pytest.raises(BankFileError, match="not a jaxlab bank file"):
        load_bank(path, Level)


@pytest.mark.parametrize("member, suggested", [("level/cellz", "level/cells.npy"), ("extra", "meta.npy"),
                                               ("custom_obs/", "custom_obs/<key>.npy"), ("meta/notes", "meta.npy")])
def test_member_the_format_does_not_have(good, tmp_path, member, suggested):
    path = rewrite(good, tmp_path / "extra.jaxlab", lambda a: a.update({member: np.zeros((2, 3), np.float32)}))
    with pytest.raises(BankFileError, match=rf"^{path}: unknown Level bank member '{member}.npy'\. "
                                            rf"Did you mean .*'{suggested}'"):
        load_bank(path, Level)


def test_members_of_the_format_load(good, tmp_path):
    """A custom observation's member (``custom_obs/<name>``) is the format's; a grid bank has no such
    members, and a first-person field is unknown there."""
    obs = {"custom_obs/LOCATION": np.zeros((2, 3), np.float32)}
    path = rewrite(good, tmp_path / "obs.jaxlab", lambda a: a.update(obs))
    assert load_bank(path, Level)[0].levels.custom_obs["LOCATION"].shape == (2, 3)
    grid = tmp_path / "grid.jaxlab"
    save_bank(grid, Bank(GridLayout(chars=np.full((1, 3, 4), ord("*"), np.uint8))), {})
    rewrite(grid, grid, lambda a: a.update(obs))
    with pytest.raises(BankFileError, match=rf"^{grid}: unknown GridLayout bank member 'custom_obs/LOCATION.npy'"):
        load_bank(grid, GridLayout)
