"""Fuzzing ``load_bank``: a mutated ``.jaxlab`` file either ends in one BankFileError, or loads a
bank whose levels run 100 random steps without NaN or infinite rewards and positions and without
the player inside a wall cell.

The mutations (byte flips and truncation of the file; swapped, deleted, retyped and overwritten
arrays) and the loads run on the host for every example; the accepted banks are then grouped by
their shapes and each group runs in one batched, jitted ``lax.scan``.
"""
import io

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxlab.bank import Bank
from jaxlab.bank_file import BankFileError, load_bank, save_bank
from jaxlab.kernels.first_person.env import FirstPersonEnv
from jaxlab.levels.dmlab import actions
from jaxlab.levels.dmlab.level import CELL_SIZE, Level, build_level
from jaxlab.levels.dmlab.map_parser import CELL_WALL, parse_text_map

STEPS = 100
# Level 0: a corridor with a door and an apple (moved onto the spawn point); level 1: a random-goal room.
MAPS = (("*******\n*P I A*\n*******", False), ("*****\n*P G*\n*P  *\n*****", True))
FLOATS = (np.nan, np.inf, -np.inf, 3e38, 1e30, 1e6, -1e9, -1.0, 0.0, 1e-30, 250.0)
INTS = (-(2 ** 31), -3, -2, -1, 0, 1, 2, 3, 4, 7, 127, 200, 2 ** 31 - 1)
DTYPES = ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "U3", "S3")


def original_file(folder) -> bytes:
    """The bytes of a valid two-level bank file (with a custom observation). Level 0's apple lies on
    its spawn point, so it is taken, and the map restarted, again and again: rewards flow."""
    path = folder / "original.jaxlab"
    levels = [build_level(parse_text_map(m), 20.0, random_goal=g).replace(
        custom_obs={"LOCATION": np.array([i, 2.0, 3.0], np.float32)}) for i, (m, g) in enumerate(MAPS)]
    levels[0] = levels[0].replace(pickup_pos=levels[0].spawn_pos)
    save_bank(path, Bank.stack(levels), {})
    return path.read_bytes()


def arrays_of(raw: bytes) -> dict:
    """The arrays of a bank file's bytes, by member name."""
    with np.load(io.BytesIO(raw)) as data:
        return {k: data[k] for k in data.files}


def npz(arrays: dict) -> bytes:
    """An uncompressed .npz of ``arrays``."""
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def poked(a: np.ndarray, index: int, pick: int, whole: bool) -> np.ndarray:
    """``a`` with a special value (FLOATS or INTS, by dtype, chosen by ``pick``; booleans negated)
    written at flat ``index`` (or everywhere)."""
    a = a.copy()
    if a.size:
        flat = a.reshape(-1)
        if a.dtype.kind == "b":
            value = not flat[index % a.size]
        elif a.dtype.kind in "iu":
            value = int(np.clip(INTS[pick % len(INTS)], np.iinfo(a.dtype).min, np.iinfo(a.dtype).max))
        else:
            value = FLOATS[pick % len(FLOATS)]
        flat[slice(None) if whole else index % a.size] = value
    return a


def mutations(raw: bytes):
    """A strategy of (description, mutated file bytes) for the bank file ``raw``."""
    names = sorted(arrays_of(raw))
    numeric = [n for n in names if n != "meta"]
    # without a custom observation a bank is merely another valid layout (and another compile)
    deletable = [n for n in names if not n.startswith("custom_obs/")]
    flips = st.lists(st.tuples(st.integers(0, len(raw) - 1), st.integers(1, 255)), min_size=1, max_size=8)

    def flip(pairs):
        data = bytearray(raw)
        for at, mask in pairs:
            data[at] ^= mask
        return f"flip {pairs}", bytes(data)

    def edit(description, change):
        arrays = arrays_of(raw)
        change(arrays)
        return description, npz(arrays)

    def swap(a, b):
        return edit(f"swap {a} {b}", lambda x: x.update({a: x[b], b: x[a]}))

    def poke(name, index, pick, whole):
        return edit(f"poke {name}[{'all' if whole else index}] with value {pick}",
                    lambda x: x.update({name: poked(x[name], index, pick, whole)}))

    def retype(name, dtype):
        def change(arrays):
            with np.errstate(invalid="ignore"):   # NaN (spawn_yaw) to an integer dtype
                arrays[name] = arrays[name].astype(dtype)
        return edit(f"retype {name} {dtype}", change)

    return st.one_of(
        flips.map(flip),
        st.integers(0, len(raw) - 1).map(lambda n: (f"truncate {n}", raw[:n])),
        st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True).map(lambda ab: swap(*ab)),
        st.sampled_from(deletable).map(lambda n: edit(f"delete {n}", lambda x: x.pop(n))),
        st.tuples(st.sampled_from(numeric), st.integers(0, 10 ** 6), st.integers(0, len(INTS) - 1),
                  st.booleans()).map(lambda args: poke(*args)),
        st.tuples(st.sampled_from(numeric), st.sampled_from(DTYPES)).map(lambda args: retype(*args)),
    )


def signature(bank: Bank):
    """The tree structure, shapes and dtypes of a bank's arrays (banks of one signature share a compile)."""
    leaves, tree = jax.tree_util.tree_flatten(bank)
    return tree, tuple((a.shape, str(a.dtype)) for a in leaves)


def rollout(bank: Bank):
    """Every level of ``bank`` played for STEPS random actions, batched under one jit:
    (rewards float32[STEPS, L], positions float32[STEPS, L, 2] units)."""
    env = FirstPersonEnv(bank, width=8, height=6)
    low, high = jnp.asarray(actions.ACTION_MIN), jnp.asarray(actions.ACTION_MAX) + 1

    def play(key, level_index):
        state = env.init_state(key, level_index)

        def one(state, k):
            state, ts = env.step(state, jax.random.randint(k, (7,), low, high, jnp.int32))
            return state, (ts.reward, state.pos)
        return jax.lax.scan(one, state, jax.random.split(key, STEPS))[1]

    count = bank.size
    rewards, positions = jax.jit(jax.vmap(play, out_axes=1))(jax.random.split(jax.random.PRNGKey(0), count),
                                                             jnp.arange(count, dtype=jnp.int32))
    return np.asarray(rewards), np.asarray(positions)


def assert_runs_cleanly(bank: Bank, where: list):
    """STEPS random steps of every level of ``bank``: finite rewards and positions, never in a wall cell."""
    rewards, positions = rollout(bank)
    assert np.isfinite(rewards).all(), where[int(np.argwhere(~np.isfinite(rewards))[0][1])]
    assert np.isfinite(positions).all(), where[int(np.argwhere(~np.isfinite(positions))[0][1])]
    cells, rows = np.asarray(bank.levels.cells), np.asarray(bank.levels.rows)
    level = np.arange(len(rows))[None, :]
    col = np.floor(positions[..., 0] / CELL_SIZE).astype(int)
    row = rows[None, :] - 1 - np.floor(positions[..., 1] / CELL_SIZE).astype(int)
    inside = (row >= 0) & (row < cells.shape[1]) & (col >= 0) & (col < cells.shape[2])
    assert inside.all(), where[int(np.argwhere(~inside)[0][1])]
    in_wall = cells[level, row, col] == CELL_WALL
    assert not in_wall.any(), where[int(np.argwhere(in_wall)[0][1])]


def test_mutated_bank_files_are_refused_or_run_cleanly(tmp_path):
    raw = original_file(tmp_path)
    target = tmp_path / "mutated.jaxlab"
    accepted = {}   # signature -> [(description, bank)]
    outcomes = {"refused": 0, "accepted": 0}

    @settings(max_examples=200, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(mutation=mutations(raw))
    def load_mutated(mutation):
        description, data = mutation
        target.write_bytes(data)
        try:
            bank, _ = load_bank(target, Level)
        except BankFileError as error:
            assert str(error).startswith(f"{target}: "), (description, str(error))
            outcomes["refused"] += 1
            return
        outcomes["accepted"] += 1
        accepted.setdefault(signature(bank), []).append((description, bank))

    load_mutated()
    original, _ = load_bank(tmp_path / "original.jaxlab", Level)
    accepted.setdefault(signature(original), []).append(("original", original))
    assert outcomes["refused"] > 0 and outcomes["accepted"] > 0, outcomes
    for group in accepted.values():
        where = [description for description, bank in group for _ in range(bank.size)]
        merged = jax.tree_util.tree_map(lambda *a: jnp.concatenate(a), *[bank for _, bank in group])
        assert_runs_cleanly(merged, where)
