"""jaxlab.kernels.lab2d_tensor against dmlab2d's real ``system.tensor``.

Two raw-API level scripts of our own (``lab2d_tensor_levels/``) run in dmlab2d: ``tensor_ops`` keeps
tensors in its state and changes them each frame through views (writes through ``select``, the call
``t(i)``, ``transpose``/``narrow``/``reverse``), scalar, table and component operations, conversions and
reductions; the same level written with jaxlab's library runs under ``jax.jit`` and must observe the
same values frame by frame. ``tensor_eval`` evaluates one tensor expression written into a property,
so one dmlab2d env checks many expressions: a fixed list of edge cases (conversions, overflow, division
by zero) and a hypothesis test over random kinds, shapes, values, views and operations.
"""
from __future__ import annotations

import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from jaxlab.kernels import lab2d_tensor as T

dmlab2d = pytest.importorskip("dmlab2d")
LEVELS = pathlib.Path(__file__).parent / "lab2d_tensor_levels"
DMLAB2D_DTYPES = {"Byte": np.uint8, "Int32": np.int32, "Int64": np.int64, "Double": np.float64}


def lab2d(level: str):
    """A started dmlab2d env of one of our level scripts."""
    import dmlab2d.runfiles_helper  # noqa: F401  (registers the submodule)
    env = dmlab2d.Lab2d(dmlab2d.runfiles_helper.find(), {"levelName": level, "levelDirectory": str(LEVELS)})
    env.start(0, 0)
    return env


@pytest.fixture(scope="module")
def evaluator():
    """``evaluate(expr)`` -> (kind or 'number', shape, values as float64) from dmlab2d."""
    env = lab2d("tensor_eval")

    def evaluate(expr):
        env.write_property("expr", expr)
        kind = env.observation("KIND")
        kind = kind.item() if isinstance(kind, np.ndarray) else kind
        kind = kind.decode() if isinstance(kind, bytes) else kind
        shape = tuple(int(n) for n in env.observation("SHAPE"))
        return kind, shape, np.asarray(env.observation("VALUES"), np.float64)
    return evaluate


def assert_same(dm, ours, rtol=0.0):
    """dmlab2d's (kind, shape, values) equals ours (a Tensor or a Lua number)."""
    kind, shape, values = dm
    if isinstance(ours, T.Tensor):
        assert (ours.kind, ours.shape) == (kind, shape)
        ours = ours.array()
    else:
        assert (kind, shape) == ("number", ())
    np.testing.assert_allclose(np.asarray(ours, np.float64).reshape(-1), values, rtol=rtol, atol=0)


# ----- the tensor_ops level, frame by frame -----

def ops_start():
    return {"frame": jnp.asarray(0, T.number()), "grid": T.zeros("Byte", 3, 4),
            "counts": T.arange("Int32", 4), "field": T.from_table("Double", [[0.5, 1], [1.5, 2], [2.5, 3]])}


def ops_advance(s):
    frame = s["frame"] + 1
    grid, counts, field = s["grid"], s["counts"], s["field"]
    grid = grid.on(grid(frame % 3 + 1).add(60).storage)
    grid = grid.on(grid.select(2, frame % 4 + 1).fill(frame * 7).storage)
    counts = counts.mul(-2).add(frame + 0.5)
    field = field.on(field.transpose(1, 2).narrow(2, 2, 2).div([2, -4]).storage)
    field = field.on(field.reverse(1)(1).add([frame, 1]).storage)
    return {"frame": frame, "grid": grid, "counts": counts, "field": field}


def ops_observe(s):
    wide = T.zeros("Int64", 2, 3)
    wide = wide.on(wide(1).copy(s["counts"].narrow(1, 2, 3).convert("Int64")).storage)
    wide = wide.on(wide(2).fill([s["frame"], -s["frame"], 7]).storage)
    wide = wide.cmul(T.from_table("Int64", [[1, 2, 3], [4, 5, 6]]))
    total = s["grid"].sum() + s["field"].clone().round().product()
    return {"GRID": s["grid"].array(), "COUNTS": s["counts"].array(), "WIDE": wide.array(),
            "FIELD": s["field"].array(), "TOTAL": total, "COLUMN_MAX": s["field"].max(1).array()}


def test_tensor_level_matches_dmlab2d_frame_by_frame():
    env = lab2d("tensor_ops")
    state, advance, observe = ops_start(), jax.jit(ops_advance), jax.jit(ops_observe)
    for frame in range(10):
        ours = observe(state)
        for name, value in ours.items():
            theirs = env.observation(name)
            kind = {"GRID": "Byte", "COUNTS": "Int32", "WIDE": "Int64"}.get(name, "Double")
            assert theirs.dtype == DMLAB2D_DTYPES[kind] and value.shape == theirs.shape, name
            np.testing.assert_allclose(np.asarray(value, np.float64), theirs, rtol=1e-6, err_msg=f"{name} {frame}")
        assert ours["GRID"].dtype == T.dtype_of("Byte") and ours["FIELD"].dtype == T.dtype_of("Double")
        if frame < 9:
            env.advance()
            state = advance(state)


# ----- edge cases, one expression each -----

EDGE_CASES = [  # (Lua expression, the same with jaxlab)
    ("tensor.ByteTensor{250, 3}:add(10)", lambda: T.from_table("Byte", [250, 3]).add(10)),
    ("tensor.ByteTensor{7, 3}:sub(9.5)", lambda: T.from_table("Byte", [7, 3]).sub(9.5)),
    ("tensor.Int32Tensor{7, -7}:add(0.5)", lambda: T.from_table("Int32", [7, -7]).add(0.5)),
    ("tensor.Int32Tensor{7, -7}:div(2.5)", lambda: T.from_table("Int32", [7, -7]).div(2.5)),
    ("tensor.Int32Tensor{7, -7, 0}:div(0)", lambda: T.from_table("Int32", [7, -7, 0]).div(0)),
    ("tensor.ByteTensor{7}:div(0)", lambda: T.from_table("Byte", [7]).div(0)),
    ("tensor.Int32Tensor{2147483520}:add(200)", lambda: T.from_table("Int32", [2147483520]).add(200)),
    ("tensor.Int32Tensor{3e9, -0.5}", lambda: T.from_table("Int32", [3e9, -0.5])),
    ("tensor.ByteTensor{300, 255.5, -0.5}", lambda: T.from_table("Byte", [300, 255.5, -0.5])),
    ("tensor.DoubleTensor{300, -1, 2.9, -2.9, 1000, 0/0}:byte()",
     lambda: T.from_table("Double", [300, -1, 2.9, -2.9, 1000, np.nan]).convert("Byte")),
    ("tensor.DoubleTensor{3e9, -3e9, 0/0, -7.9}:int32()",
     lambda: T.from_table("Double", [3e9, -3e9, np.nan, -7.9]).convert("Int32")),
    ("tensor.Int32Tensor{300, -1}:byte()", lambda: T.from_table("Int32", [300, -1]).convert("Byte")),
    ("tensor.Int32Tensor{7.9, -7.9}", lambda: T.from_table("Int32", [7.9, -7.9])),
    ("tensor.Int32Tensor{65536, 7}:cmul(tensor.Int32Tensor{65536, -3})",
     lambda: T.from_table("Int32", [65536, 7]).cmul(T.from_table("Int32", [65536, -3]))),
    ("tensor.Int32Tensor{-7, 7}:cdiv(tensor.Int32Tensor{2, -2})",
     lambda: T.from_table("Int32", [-7, 7]).cdiv(T.from_table("Int32", [2, -2]))),
    ("tensor.ByteTensor{7, 3}:csub(tensor.ByteTensor{9, 2})",
     lambda: T.from_table("Byte", [7, 3]).csub(T.from_table("Byte", [9, 2]))),
    ("tensor.DoubleTensor{-2.5, -0.5, 0.5, 1.5}:round()",
     lambda: T.from_table("Double", [-2.5, -0.5, 0.5, 1.5]).round()),
    ("tensor.DoubleTensor{-1.5, 2.5}:floor()", lambda: T.from_table("Double", [-1.5, 2.5]).floor()),
    ("tensor.DoubleTensor{-1.5, 2.5}:ceil()", lambda: T.from_table("Double", [-1.5, 2.5]).ceil()),
    ("tensor.Int32Tensor{-2, 5, 1}:clamp(0, 3)", lambda: T.from_table("Int32", [-2, 5, 1]).clamp(0, 3)),
    ("tensor.Int32Tensor{-2, 5}:clamp(nil, 3)", lambda: T.from_table("Int32", [-2, 5]).clamp(None, 3)),
    ("tensor.DoubleTensor{range = {0, 1, 0.25}}", lambda: T.arange("Double", 0, 1, 0.25)),
    ("tensor.Int64Tensor{range = {5, 1, -2}}", lambda: T.arange("Int64", 5, 1, -2)),
    ("tensor.ByteTensor{range = {3}}", lambda: T.arange("Byte", 3)),
    ("tensor.DoubleTensor{range = {1, 2.75, 1}}", lambda: T.arange("Double", 1, 2.75, 1)),
    ("tensor.DoubleTensor():fill(5)", lambda: T.zeros("Double").fill(5)),
    ("tensor.ByteTensor{{1, 2}, {3, 4}}(2, 1):val()", lambda: T.from_table("Byte", [[1, 2], [3, 4]])(2, 1).val()),
    ("tensor.DoubleTensor{{1, 9, 3}, {9, 5, 6}}:argMax(2)",
     lambda: T.from_table("Double", [[1, 9, 3], [9, 5, 6]]).argMax(2)),
    ("tensor.DoubleTensor{{1, 0, 3}, {0, 5, 6}}:argMin(1)",
     lambda: T.from_table("Double", [[1, 0, 3], [0, 5, 6]]).argMin(1)),
    ("select(2, tensor.Int32Tensor{{1, 9, 3}, {9, 5, 6}}:argMaxElement())",
     lambda: T.from_table("Int32", [[1, 9, 3], [9, 5, 6]]).argMaxElement()[1]),
    ("tensor.ByteTensor{{1, 2, 3}, {4, 5, 6}}:mmul(tensor.ByteTensor{{1}, {20}, {30}})",
     lambda: T.from_table("Byte", [[1, 2, 3], [4, 5, 6]]).mmul(T.from_table("Byte", [[1], [20], [30]]))),
    ("tensor.ByteTensor{200, 100}:dot(tensor.ByteTensor{3, 4})",
     lambda: T.from_table("Byte", [200, 100]).dot(T.from_table("Byte", [3, 4]))),
    ("tensor.DoubleTensor{{1, 2}, {3, 4}}:transpose(1, 2):clone():reshape{4}",
     lambda: T.from_table("Double", [[1, 2], [3, 4]]).transpose(1, 2).clone().reshape([4])),
    ("tensor.DoubleTensor{{1, 2, 3}, {4, 5, 6}}:transpose(1, 2):mul{1, 2}",
     lambda: T.from_table("Double", [[1, 2, 3], [4, 5, 6]]).transpose(1, 2).mul([1, 2])),
]


@pytest.mark.parametrize("expr,ours", EDGE_CASES, ids=[e for e, _ in EDGE_CASES])
def test_edge_cases_match_dmlab2d(evaluator, expr, ours):
    assert_same(evaluator(expr), ours())


STATIC_REFUSALS = [  # what dmlab2d refuses, refused here at trace time
    ("tensor.DoubleTensor{{1, 2}, {3, 4}}:select(1, 3)", lambda: T.zeros("Double", 2, 2).select(1, 3), IndexError),
    ("tensor.DoubleTensor{{1, 2}, {3, 4}}:narrow(1, 2, 2)",
     lambda: T.zeros("Double", 2, 2).narrow(1, 2, 2), IndexError),
    ("tensor.DoubleTensor{{1, 2}, {3, 4}}(1, 2, 1)", lambda: T.zeros("Double", 2, 2)(1, 2, 1), IndexError),
    ("tensor.DoubleTensor{{1, 2}, {3, 4}}:transpose(1, 2):reshape{4}",
     lambda: T.zeros("Double", 2, 2).transpose(1, 2).reshape([4]), ValueError),
    ("tensor.ByteTensor{3, -1}", lambda: T.from_table("Byte", [3, -1]), ValueError),
    ("tensor.DoubleTensor{1, 2}:cadd(tensor.Int32Tensor{1, 2})",
     lambda: T.zeros("Double", 2).cadd(T.zeros("Int32", 2)), ValueError),
    ("tensor.DoubleTensor{{1, 2}, {3, 4}}:add{1, 2, 3}", lambda: T.zeros("Double", 2, 2).add([1, 2, 3]), ValueError),
    ("tensor.DoubleTensor{range = {3, 1}}", lambda: T.arange("Double", 3, 1), ValueError),
]


@pytest.mark.parametrize("expr,ours,error", STATIC_REFUSALS, ids=[e for e, _, _ in STATIC_REFUSALS])
def test_static_misuse_refused_like_dmlab2d(evaluator, expr, ours, error):
    with pytest.raises(ValueError):  # dmlab2d's Lua error comes back as a ValueError
        evaluator(expr)
    with pytest.raises(error):
        ours()


# ----- random kinds, shapes, values, views and operations -----

RANGES = {"Byte": (0, 255), "Int32": (-1000, 1000), "Int64": (-1000, 1000), "Double": (-200, 200)}
SCALAR_OPS, COMPONENT_OPS, REDUCTIONS = ("add", "sub", "mul", "div", "fill"), ("cadd", "csub", "cmul", "cdiv"), (
    "sum", "lengthSquared", "minElement", "maxElement")


def lua_table(values) -> str:
    return "{" + ", ".join(lua_table(v) if isinstance(v, list) else repr(float(v)) for v in values) + "}"


@st.composite
def programs(draw):
    """(Lua expression, the same with jaxlab): a view of a random tensor, then an operation on it."""
    kind = draw(st.sampled_from(sorted(RANGES)))
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    lo, hi = RANGES[kind]
    element = st.integers(2 * lo, 2 * hi).map(lambda v: v / 2 if kind == "Double" else v // 2)
    values = np.array(draw(st.lists(element, min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    table = values.reshape(shape).tolist()
    view = draw(st.sampled_from(["", ":reverse(1)", ":select(1, %d)" % draw(st.integers(1, shape[0]))]
                                + ([":transpose(1, 2)"] if len(shape) == 2 else [])))
    op = draw(st.sampled_from(SCALAR_OPS + COMPONENT_OPS + REDUCTIONS))
    base = f"tensor.{kind}Tensor{lua_table(table)}"

    def ours_view():
        t = T.from_table(kind, table)
        if view.startswith(":reverse"):
            return t, t.reverse(1)
        if view.startswith(":select"):
            return t, t.select(1, int(view.split(",")[1].strip(" )")))
        return t, (t.transpose(1, 2) if view else t)
    if op in REDUCTIONS:
        return f"{base}{view}:{op}()", lambda: getattr(ours_view()[1], op)()
    if op in SCALAR_OPS:
        arg = draw(st.integers(-600, 600).filter(lambda v: op != "div" or v != 0)) / 2
        call, ours_arg = f"{op}({arg!r})", arg
    else:
        size = int(np.prod(shape[1:] if view.startswith(":select") else shape))
        nonzero = op == "cdiv" and kind != "Double"
        other = draw(st.lists(element.filter(lambda v: not nonzero or v != 0), min_size=size, max_size=size))
        call, ours_arg = f"{op}(tensor.{kind}Tensor{lua_table(other)})", T.from_table(kind, other)
    expr = f"(function() local t = {base}; t{view}:{call}; return t end)()"

    def ours():
        t, v = ours_view()
        return t.on(getattr(v, op)(ours_arg).storage)
    return expr, ours


@settings(max_examples=40, deadline=None, derandomize=True)
@given(programs())
def test_random_programs_match_dmlab2d(evaluator, program):
    expr, ours = program
    assert_same(evaluator(expr), ours(), rtol=1e-6)


def test_traced_indices_clip_under_jit_and_vmap():
    """A traced index cannot raise in a kernel: select clips it to 1..n, narrow its start to 1..n-size+1;
    the write lands in range and is seen through the source."""
    def program(i):
        t = T.arange("Int32", 12).reshape([3, 4])
        t = t.on(t.select(1, i).mul(-1).storage)
        return t.array(), t.narrow(2, i, 2).array()
    rows, windows = jax.jit(jax.vmap(program))(jnp.array([-5, 1, 2, 3, 99]))
    base = np.arange(1, 13).reshape(3, 4)
    for got, row in zip(rows, [0, 0, 1, 2, 2]):
        want = base.copy()
        want[row] *= -1
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(windows[4], rows[4][:, 2:4])
    np.testing.assert_array_equal(windows[0], rows[0][:, 0:2])
