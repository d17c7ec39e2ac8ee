"""The one level bank (``jaxlab.Bank``): padding declared by the level type, structure and dtype
checks, jit-safe reads, host-side split / concat, and bank files."""
from __future__ import annotations

from typing import Dict

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct

from jaxlab.bank import Bank
import json

from jaxlab.bank_file import BankFileError, load_bank, save_bank
from jaxlab.levels.dmlab.level import Level, build_level
from jaxlab.levels.dmlab.map_parser import parse_text_map
from jaxlab.levels.lab2d.layout import GridLayout


@struct.dataclass
class Toy:
    """A level type: ``ids`` pad with -1, ``queue`` pads at the front, ``extra`` (a dict) with 7."""

    ids: jnp.ndarray
    queue: jnp.ndarray
    grid: jnp.ndarray
    extra: Dict[str, jnp.ndarray]

    PAD_VALUES = {"ids": -1, "extra": 7}
    PAD_FRONT = ("queue",)


def toy(ids, queue, grid_shape=(1, 1), extra=(1,), value=0):
    return Toy(ids=np.array(ids, np.int32), queue=np.array(queue, np.int32),
               grid=np.full(grid_shape, value, np.float32), extra={"a": np.array(extra, np.int32)})


def test_stack_pads_with_the_declared_values():
    bank = Bank.stack([toy([1, 2], [5], (1, 2), [1], 1.0), toy([3], [6, 7], (2, 1), [2, 3], 2.0)])
    assert bank.size == 2
    assert bank.levels.ids.tolist() == [[1, 2], [3, -1]]
    assert bank.levels.queue.tolist() == [[0, 5], [6, 7]]                 # front padding, with 0
    assert bank.levels.grid.tolist() == [[[1, 1], [0, 0]], [[2, 0], [2, 0]]]
    assert bank.levels.extra["a"].tolist() == [[1, 7], [2, 3]]
    assert bank.levels.ids.dtype == jnp.int32 and bank.levels.grid.dtype == jnp.float32


def test_stack_min_shapes():
    bank = Bank.stack([toy([1], [5])], min_shapes={"ids": (3,), "queue": (2,), "extra['a']": (2,)})
    assert bank.levels.ids.tolist() == [[1, -1, -1]]
    assert bank.levels.queue.tolist() == [[0, 5]]
    assert bank.levels.extra["a"].tolist() == [[1, 7]]


def test_stack_rejects_mismatched_levels():
    with pytest.raises(ValueError, match="at least one level"):
        Bank.stack([])
    other = toy([1], [5]).replace(extra={"a": np.zeros(1, np.int32), "b": np.zeros(1, np.int32)})
    with pytest.raises(ValueError, match=r"level 1 differs in structure.*extra\['b'\]"):
        Bank.stack([toy([1], [5]), other])
    with pytest.raises(ValueError, match="ids: level 1 has float32.*int32"):
        Bank.stack([toy([1], [5]), toy([1], [5]).replace(ids=np.zeros(1, np.float32))])
    with pytest.raises(ValueError, match=r"grid: level 1 has float32\[3-d\], level 0 has float32\[2-d\]"):
        Bank.stack([toy([1], [5]), toy([1], [5], (1, 1, 1))])


def four():
    """Four distinct levels, level i has ids [i] and queue [10 + i]."""
    return Bank.stack([toy([i], [10 + i], value=float(i)) for i in range(4)])


def test_reads_under_jit():
    bank = four()
    level = jax.jit(lambda b, i: b.get(i))(bank, jnp.int32(2))
    assert level.ids.tolist() == [2] and level.queue.tolist() == [12] and level.grid.shape == (1, 1)
    taken = jax.jit(lambda b, i: b.take(i))(bank, jnp.array([3, 0, 3]))
    assert taken.size == 3 and taken.levels.ids[:, 0].tolist() == [3, 0, 3]
    keys = jax.random.split(jax.random.PRNGKey(0), 64)
    index = jax.jit(jax.vmap(bank.sample_index))(keys)
    assert index.dtype == jnp.int32 and set(np.asarray(index).tolist()) == {0, 1, 2, 3}
    sampled = jax.jit(jax.vmap(bank.sample))(keys)
    np.testing.assert_array_equal(sampled.ids[:, 0], index)


def test_split():
    first, rest = four().split(1)
    assert first.levels.ids[:, 0].tolist() == [0] and rest.levels.ids[:, 0].tolist() == [1, 2, 3]
    first, rest = four().split(0.5)
    assert first.size == 2 and rest.levels.queue[:, 0].tolist() == [12, 13]
    for at in (0, 4, 0.01):
        with pytest.raises(ValueError, match="both parts"):
            four().split(at)


def test_concat_repads_to_the_larger_shapes():
    small = Bank.stack([toy([1], [5])])
    big = Bank.stack([toy([2, 3, 4], [6, 7], (2, 2), [8, 9])])
    both = small.concat(big)
    expected = Bank.stack([toy([1], [5]), toy([2, 3, 4], [6, 7], (2, 2), [8, 9])])
    assert both.size == 2
    for got, want in zip(jax.tree_util.tree_leaves(both), jax.tree_util.tree_leaves(expected)):
        np.testing.assert_array_equal(got, want)
    assert both.levels.ids.tolist() == [[1, -1, -1], [2, 3, 4]] and both.levels.queue.tolist() == [[0, 5], [6, 7]]


def test_shuffle_keeps_the_levels():
    bank = four()
    orders = set()
    for seed in range(4):
        shuffled = jax.jit(lambda b, k: b.shuffle(k))(bank, jax.random.PRNGKey(seed))
        ids = shuffled.levels.ids[:, 0].tolist()
        assert sorted(ids) == [0, 1, 2, 3]
        np.testing.assert_array_equal(shuffled.levels.queue[:, 0], np.array(ids) + 10)   # rows move together
        orders.add(tuple(ids))
    assert len(orders) > 1


def test_bank_file_round_trip_and_corruption(tmp_path):
    level = build_level(parse_text_map("*****\n*P A*\n*****"), 30.0)
    bank = Bank.stack([level, level.replace(custom_obs={}, episode_seconds=np.float32(9.0))])
    path = tmp_path / "two.jaxlab"
    save_bank(path, bank, {"note": "x"})
    loaded, meta = load_bank(path, Level)
    assert meta["note"] == "x" and loaded.size == 2
    assert jax.tree_util.tree_structure(loaded) == jax.tree_util.tree_structure(bank)
    for got, want in zip(jax.tree_util.tree_leaves(loaded), jax.tree_util.tree_leaves(bank)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    (tmp_path / "cut.jaxlab").write_bytes(path.read_bytes()[:200])
    with pytest.raises(BankFileError, match="cut.jaxlab: not a readable"):
        load_bank(tmp_path / "cut.jaxlab", Level)


def test_grid_layout_bank_file_round_trip_and_level_type(tmp_path):
    rooms = [np.full((3, 4), ord("*"), np.uint8), np.full((2, 5), ord(" "), np.uint8)]
    bank = Bank.stack([GridLayout(chars=c) for c in rooms])
    path = tmp_path / "rooms.jaxlab"
    save_bank(path, bank, {"level": "pushbox"})
    loaded, meta = load_bank(path, GridLayout)
    assert meta["level_type"] == "GridLayout" and meta["level"] == "pushbox"
    assert loaded.levels.chars.dtype == np.uint8
    np.testing.assert_array_equal(loaded.levels.chars, bank.levels.chars)
    with pytest.raises(BankFileError, match="holds 'GridLayout' levels, not 'Level'"):
        load_bank(path, Level)
    with pytest.raises(TypeError, match="Toy levels cannot be saved"):
        save_bank(tmp_path / "toy.jaxlab", four(), {})


def test_version_1_bank_files_hold_first_person_levels(tmp_path):
    level = build_level(parse_text_map("*****\n*P A*\n*****"), 30.0)
    path = tmp_path / "level.jaxlab"
    save_bank(path, Bank.stack([level]), {})
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["level_type"]
    arrays["meta"] = np.array(json.dumps({**meta, "version": 1}))
    old = tmp_path / "old.jaxlab"
    with open(old, "wb") as f:
        np.savez(f, **arrays)
    loaded, meta = load_bank(old, Level)
    assert meta["version"] == 1 and meta["level_type"] == "Level"
    np.testing.assert_array_equal(loaded.levels.cells, level.cells[None])
    with pytest.raises(BankFileError, match="holds 'Level' levels, not 'GridLayout'"):
        load_bank(old, GridLayout)
