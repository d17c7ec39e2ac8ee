"""dmlab.system.tensor and dmlab.system.transform in the sandbox, checked against numpy."""
import math

import numpy as np
import pytest

from compile_lua.errors import LuaScriptError
from compile_lua.sandbox import Sandbox

RUNNER = """
local env = setmetatable({tensor = require 'dmlab.system.tensor',
                          transform = require 'dmlab.system.transform',
                          random = require 'common.random'}, {__index = _G})
return function(src)
  local f = assert(load(src, '=snippet', 't', env))
  return f()
end
"""

CLASSES = {"ByteTensor": np.uint8, "CharTensor": np.int8, "Int16Tensor": np.int16, "Int32Tensor": np.int32,
           "Int64Tensor": np.int64, "FloatTensor": np.float32, "DoubleTensor": np.float64}
METHODS = {"ByteTensor": "byte", "CharTensor": "char", "Int16Tensor": "int16", "Int32Tensor": "int32",
           "Int64Tensor": "int64", "FloatTensor": "float", "DoubleTensor": "double"}


@pytest.fixture(scope="module")
def lua(tmp_path_factory):
    """lua(src): runs Lua statements (with `tensor`, `transform`, `random` in scope) in one
    sandbox and returns what they return, as Python data (tensors as numpy arrays)."""
    path = tmp_path_factory.mktemp("tensor") / "runner.lua"
    path.write_text(RUNNER)
    sb = Sandbox(path, time_limit_s=20.0)
    run = sb.load_script()
    return lambda src: sb.to_python(sb.call("snippet", run, src))


def error_at(tmp_path, setup, expr):
    """The LuaScriptError of api:go(), which sets `t = setup` on line 4 and evaluates `expr` on line 5."""
    path = tmp_path / "level.lua"
    path.write_text("local tensor = require 'dmlab.system.tensor'\nlocal api = {}\nfunction api:go()\n"
                    f"  local t = {setup}\n  local r = {expr}\nend\nreturn api\n")
    sb = Sandbox(path, time_limit_s=5.0)
    api = sb.load_script()
    with pytest.raises(LuaScriptError) as info:
        sb.call_method(api, "go")
    return info.value


def wrapped(values, dtype):
    """What the docstring of dmlab.system._tensor_types promises: integers truncate toward zero and
    wrap modulo 2^bits; FloatTensor rounds to float32."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.array(values, np.float64).astype(dtype)
    bits = dtype.itemsize * 8
    low = [math.trunc(v) % 2 ** bits for v in values]
    return np.array([i - 2 ** bits if dtype.kind == "i" and i >= 2 ** (bits - 1) else i for i in low], dtype)


# -- construction ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name, dtype", CLASSES.items())
def test_constructors_of_every_class(lua, name, dtype):
    out = lua(f"""local C = tensor.{name}
      return {{zeros = C(3, 2), nested = C{{{{1, 2, 3}}, {{4, 5, 6}}}}, range = C{{range = {{2, 9, 3}}}},
              ones = C.ones{{2, 2}}, empty = C(), empty_table = C{{}}, type = C(1):type(),
              size = C(4, 5):size(), shape = C(4, 5):shape(), converted = C(tensor.DoubleTensor{{1.5, 2}})}}""")
    assert out["zeros"].dtype == dtype and out["zeros"].shape == (3, 2) and not out["zeros"].any()
    np.testing.assert_array_equal(out["nested"], np.array([[1, 2, 3], [4, 5, 6]], dtype))
    np.testing.assert_array_equal(out["range"], np.array([2, 5, 8], dtype))
    np.testing.assert_array_equal(out["ones"], np.ones((2, 2), dtype))
    assert out["empty"].size == 0 and out["empty_table"].size == 0
    assert out["type"] == f"tensor.{name}" and out["size"] == 20 and out["shape"] == [4, 5]
    np.testing.assert_array_equal(out["converted"], wrapped([1.5, 2], dtype))


def test_ranges_and_the_tensor_alias(lua):
    out = lua("""return {a = tensor.Int64Tensor{range = {5}}, b = tensor.Int64Tensor{range = {3, 5}},
                         c = tensor.DoubleTensor{range = {1, 2, 0.5}},
                         d = tensor.DoubleTensor{range = {1, 2.75, 1}},
                         e = tensor.DoubleTensor{range = {7, 3, -1}},
                         f = tensor.FloatTensor{range = {3e8, 3e8 + 1, 0.5}},
                         same = rawequal(tensor.Tensor, tensor.DoubleTensor),
                         empty_shape = tensor.Tensor():shape()}""")
    assert out["a"].tolist() == [1, 2, 3, 4, 5] and out["b"].tolist() == [3, 4, 5]
    assert out["c"].tolist() == [1, 1.5, 2] and out["d"].tolist() == [1, 2] and out["e"].tolist() == [7, 6, 5, 4, 3]
    assert out["f"].tolist() == [3e8] and out["same"] and out["empty_shape"] == {}


@pytest.mark.parametrize("dtype_name", [name for name in CLASSES if name != "DoubleTensor"])
def test_numbers_convert_and_wrap(lua, dtype_name):
    values = [-300.7, -129, -128, -1, -0.5, 0, 3.7, 127, 128, 255, 256, 70000.9, 2.0 ** 31, -2.0 ** 31 - 1,
              2.0 ** 40 + 3, 1.5e19, -1.5e19, 2.0 ** 70]
    listed = ", ".join(repr(v) for v in values)
    out = lua(f"""local values = {{{listed}}}
      local direct = tensor.{dtype_name}(values)
      local by_method = tensor.DoubleTensor(values):{METHODS[dtype_name]}()
      local one = tensor.{dtype_name}(1)
      local each = {{}}
      for i, v in ipairs(values) do each[i] = one:val(v):val() end
      return {{direct, by_method, tensor.{dtype_name}(each)}}""")
    expected = wrapped(values, CLASSES[dtype_name])
    for got in out:
        np.testing.assert_array_equal(got, expected)


def test_integer_arithmetic_wraps_and_truncates(lua):
    out = lua("""return {add = tensor.ByteTensor{250, 5}:add(10), mul = tensor.ByteTensor{3, 200}:mul(2),
                         div = tensor.Int32Tensor{7, -7, 9}:div(2), half = tensor.ByteTensor{3}:mul(0.5),
                         sub = tensor.CharTensor{-120}:sub(10), i64 = tensor.Int64Tensor{math.maxinteger}:add(1),
                         cdiv = tensor.Int16Tensor{7, -7, 7, -8}:cdiv(tensor.Int16Tensor{2, 2, -2, 2}),
                         cmul = tensor.ByteTensor{16, 3}:cmul(tensor.ByteTensor{16, 3}),
                         sums = {tensor.ByteTensor{255, 255}:sum(), tensor.ByteTensor{2, 4, 8, 16}:product(),
                                 tensor.ByteTensor{5, 25, 100}:lengthSquared(),
                                 tensor.ByteTensor{128, 64}:dot(tensor.ByteTensor{16, 64})}}""")
    assert out["add"].tolist() == [4, 15] and out["mul"].tolist() == [6, 144] and out["half"].tolist() == [1]
    assert out["div"].tolist() == [3, -3, 4] and out["sub"].tolist() == [126]
    assert out["i64"].tolist() == [np.iinfo(np.int64).min]
    assert out["cdiv"].tolist() == [3, -3, -3, -4] and out["cmul"].tolist() == [0, 9]
    assert out["sums"] == [510, 1024, 5 * 5 + 25 * 25 + 100 * 100, 128 * 16 + 64 * 64]


# -- views ----------------------------------------------------------------------------------------

def _chain(rng, shape):
    """A random chain of views as (Lua method calls, the same as a numpy function)."""
    calls, steps, shape = [], [], list(shape)
    for _ in range(rng.integers(1, 5)):
        k = len(shape)
        op = rng.choice(["narrow", "select", "transpose", "reverse"] if k > 1 else ["narrow", "reverse"])
        d = int(rng.integers(0, k))
        if op == "narrow":
            i = int(rng.integers(0, shape[d]))
            n = int(rng.integers(1, shape[d] - i + 1))
            calls.append(f":narrow({d + 1}, {i + 1}, {n})")
            steps.append(lambda a, d=d, i=i, n=n: a[(slice(None),) * d + (slice(i, i + n),)])
            shape[d] = n
        elif op == "select":
            i = int(rng.integers(0, shape[d]))
            calls.append(f":select({d + 1}, {i + 1})")
            steps.append(lambda a, d=d, i=i: a[(slice(None),) * d + (i,)])
            del shape[d]
        elif op == "transpose":
            e = int(rng.integers(0, k))
            calls.append(f":transpose({d + 1}, {e + 1})")
            steps.append(lambda a, d=d, e=e: np.swapaxes(a, d, e))
            shape[d], shape[e] = shape[e], shape[d]
        else:
            calls.append(f":reverse({d + 1})")
            steps.append(lambda a, d=d: np.flip(a, d))
    return "".join(calls), steps


def test_view_chains_match_numpy_and_write_through(lua):
    rng = np.random.default_rng(7)
    shapes = [(3, 4, 5), (2, 3, 4, 2), (6, 5), (7,)]
    chains, snippets = [], []
    for n in range(40):
        shape = shapes[n % len(shapes)]
        calls, steps = _chain(rng, shape)
        chains.append((shape, steps))
        dims = ", ".join(map(str, shape))
        snippets.append(f"(function() local base = tensor.DoubleTensor{{range = {{{np.prod(shape)}}}}}"
                        f":reshape{{{dims}}} local v = base{calls} local before = v:clone() v:mul(-1):add(0.5)"
                        f" return {{before, base, v, v:sum(), v:toTable()}} end)()")
    out = lua("return {" + ",\n".join(snippets) + "}")
    for (shape, steps), (before, base, v, total, table) in zip(chains, out):
        ref = np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape)
        view = ref
        for step in steps:
            view = step(view)
        np.testing.assert_array_equal(before, np.atleast_1d(view))
        view *= -1
        view += 0.5
        np.testing.assert_array_equal(base, ref)
        np.testing.assert_array_equal(v, np.atleast_1d(view))
        assert total == pytest.approx(view.sum()) and np.array_equal(np.array(table), np.atleast_1d(view))


def test_select_call_reshape_and_copy_share_storage(lua):
    out = lua("""local z = tensor.DoubleTensor{range = {12}}:reshape{3, 4}
      z(2, 3):val(-1)
      z(3):fill(0)
      local r = z:reverse(1):reverse(2):reshape(12)  -- contiguous, in steps of -1
      r(1):val(100)
      local col = z:select(2, 1)
      col:copy(tensor.DoubleTensor{{7, 8, 9}})
      local written, reversed = z:clone(), r:clone()
      local ok, err = pcall(function() return z:transpose(1, 2):reshape(12) end)
      local t = z:transpose(1, 2)
      t:copy(tensor.DoubleTensor{range = {12}}:reshape{3, 4})
      return {written = written, reversed = reversed, z = z, r = r, ok = ok, err = err, val = z(1, 2):val(),
              same = z():narrow(1, 1, 1)}""")
    ref = np.arange(1, 13, dtype=np.float64).reshape(3, 4)
    ref[1, 2] = -1
    ref[2] = 0
    ref[2, 3] = 100
    ref[:, 0] = [7, 8, 9]
    np.testing.assert_array_equal(out["written"], ref)
    np.testing.assert_array_equal(out["reversed"], ref[::-1, ::-1].reshape(12))
    assert out["ok"] is False and "not contiguous" in out["err"]
    ref.T[...] = np.arange(1, 13).reshape(4, 3)
    np.testing.assert_array_equal(out["z"], ref)
    np.testing.assert_array_equal(out["r"], ref[::-1, ::-1].reshape(12))
    assert out["val"] == ref[0, 1] and out["same"].tolist() == [ref[0].tolist()]


# -- element-wise and combining methods -----------------------------------------------------------

def test_scalar_component_and_rounding_methods(lua):
    out = lua("""local z = tensor.DoubleTensor{{-2.25, -1.75}, {0.5, 1.0}}
      local c = tensor.DoubleTensor(2, 3):fill{-500, 25, 500}
      local bt = tensor.ByteTensor{{1, 2}, {3, 4}, {5, 6}}
      local bt2 = tensor.ByteTensor{{1, 2, 3}, {4, 5, 6}}
      return {floor = z:clone():floor(), ceil = z:clone():ceil(), round = z:clone():round(),
              halves = tensor.DoubleTensor{2.5, -2.5, 0.49999999999999994, -0.5}:round(),
              both = c:clone():clamp(0, 255), low = c:clone():clamp(0), high = c:clone():clamp(nil, 255),
              none = c:clone():clamp(), bytes = tensor.ByteTensor{0, 100, 255}:clamp(-5, 300),
              ints = tensor.Int32Tensor{-9, 0, 9}:clamp(-2.5, 2.5),
              add = tensor.DoubleTensor(4, 4):fill(5):add{1, 2, 3, 4},
              mul = tensor.DoubleTensor(4, 4):fill(0.5):mul{4, 6, 8, 10},
              sub = tensor.DoubleTensor(4, 4):fill(2):sub{4, 5, 6, 7},
              div = tensor.DoubleTensor(4, 4):fill(12):div{1, 2, 3, 4},
              cmul = bt:clone():cmul(bt2), cadd = bt:clone():cadd(bt2), cdiv = bt:clone():cdiv(bt2),
              csub = bt:clone():csub(bt2), copy = tensor.ByteTensor(3, 2):copy(bt2)}""")
    z = np.array([[-2.25, -1.75], [0.5, 1.0]])
    c = np.tile([-500.0, 25, 500], (2, 1))
    bt, bt2 = np.arange(1, 7).reshape(3, 2), np.arange(1, 7).reshape(2, 3)
    np.testing.assert_array_equal(out["floor"], np.floor(z))
    np.testing.assert_array_equal(out["ceil"], np.ceil(z))
    np.testing.assert_array_equal(out["round"], [[-2, -2], [1, 1]])
    np.testing.assert_array_equal(out["halves"], [3, -3, 0, -1])
    np.testing.assert_array_equal(out["both"], np.clip(c, 0, 255))
    np.testing.assert_array_equal(out["low"], np.clip(c, 0, None))
    np.testing.assert_array_equal(out["high"], np.clip(c, None, 255))
    np.testing.assert_array_equal(out["none"], c)
    assert out["bytes"].tolist() == [0, 100, 255] and out["ints"].tolist() == [-2, 0, 2]
    row = np.array([1.0, 2, 3, 4])
    np.testing.assert_array_equal(out["add"], np.full((4, 4), 5) + row)
    np.testing.assert_array_equal(out["mul"], np.full((4, 4), 0.5) * [4, 6, 8, 10])
    np.testing.assert_array_equal(out["sub"], np.full((4, 4), 2) - [4, 5, 6, 7])
    np.testing.assert_array_equal(out["div"], np.full((4, 4), 12) / row)
    np.testing.assert_array_equal(out["cmul"], bt * bt2.reshape(3, 2))
    np.testing.assert_array_equal(out["cadd"], bt + bt2.reshape(3, 2))
    np.testing.assert_array_equal(out["cdiv"], np.ones((3, 2)))
    np.testing.assert_array_equal(out["csub"], np.zeros((3, 2)))
    np.testing.assert_array_equal(out["copy"], bt2.reshape(3, 2))


def test_apply_and_apply_indexed(lua):
    out = lua("""local seen = {}
      local g = tensor.DoubleTensor(3, 4):transpose(1, 2)
      g:applyIndexed(function(v, index) seen[#seen + 1] = index; return index[1] * 10 + index[2] end)
      local partial = tensor.Int32Tensor{1, 2, 3, 4, 5}
      partial:apply(function(v) if v == 3 then return -v, false end return v * 100 end)
      local kept = tensor.DoubleTensor{1, 2, 3}:apply(function(v) if v ~= 2 then return v + 0.5 end end)
      local stopped = tensor.DoubleTensor{1, 2, 3}:applyIndexed(function(v, i) return 0, i[1] < 2 end)
      return {g = g, seen = seen, partial = partial, kept = kept, stopped = stopped}""")
    i, j = np.meshgrid(np.arange(1, 5), np.arange(1, 4), indexing="ij")
    np.testing.assert_array_equal(out["g"], i * 10 + j)
    assert out["seen"] == [[a, b] for a in range(1, 5) for b in range(1, 4)]
    assert out["partial"].tolist() == [100, 200, -3, 4, 5] and out["kept"].tolist() == [1.5, 2, 3.5]
    assert out["stopped"].tolist() == [0, 0, 3]


def matrix(m):
    """A nested Lua table of the rows of m."""
    return "{" + ", ".join("{" + ", ".join(repr(float(x)) for x in row) + "}" for row in m) + "}"


def test_mmul_dot_and_equality(lua):
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
    out = lua("""local a, b = tensor.DoubleTensor%s, tensor.DoubleTensor%s
      local at, bt = tensor.FloatTensor{{1, 2, 3}, {4, 5, 6}}, tensor.FloatTensor{{1, 0}, {0, 2}}
      local bytes = tensor.ByteTensor{{1, 2}, {3, 4}, {5, 6}}
      local B = tensor.ByteTensor
      return {prod = a:mmul(b:transpose(1, 2)), doc = bt:mmul(at), wrap = B{{16, 1}}:mmul(B{{16}, {3}}),
              dot = a:dot(b:narrow(1, 1, 3)),
              eq = {bytes == B{{1, 2}, {3, 4}, {5, 6}}, bytes ~= B{{1, 2}, {3, 4}, {7, 8}},
                    bytes ~= B{{1, 2, 3}, {4, 5, 6}}, bytes ~= tensor.Int32Tensor{{1, 2}, {3, 4}, {5, 6}},
                    bytes:transpose(1, 2) == B{{1, 3, 5}, {2, 4, 6}}, bytes ~= 7}}""" % (matrix(a), matrix(b)))
    np.testing.assert_allclose(out["prod"], a @ b.T, rtol=1e-12)
    np.testing.assert_array_equal(out["doc"], [[1, 2, 3], [8, 10, 12]])
    assert out["doc"].dtype == np.float32 and out["wrap"].tolist() == [[3]]  # (256 + 3) mod 256
    assert out["dot"] == pytest.approx(float((a * b[:3]).sum()))
    assert out["eq"] == [True] * 6


def test_shuffle_permutes_with_the_generator(lua):
    out = lua("""random:seed(5)
      local a = tensor.Int64Tensor{range = {20}}:shuffle(random)
      random:seed(5)
      local b = tensor.Int64Tensor{range = {20}}:shuffle(require 'dmlab.system.random')
      local m = tensor.DoubleTensor{range = {12}}:reshape{3, 4}
      m:select(2, 2):shuffle(random)
      return {a = a, b = b, m = m}""")
    assert sorted(out["a"].tolist()) == list(range(1, 21)) and out["a"].tolist() != list(range(1, 21))
    np.testing.assert_array_equal(out["a"], out["b"])
    m = out["m"]
    assert sorted(m[:, 1].tolist()) == [2, 6, 10] and (np.delete(m, 1, 1) == np.delete(
        np.arange(1, 13).reshape(3, 4), 1, 1)).all()


def test_val_to_table_and_text(lua):
    out = lua("""local t = tensor.Int64Tensor{{0, 0}, {0, 0}}
      t(1, 2):val(2)
      local before = t:val()
      t:val{{1, 2}, {2, 3}}
      return {before = before, after = t:toTable(), one = t(2, 2):val(), kind = math.type(t(2, 2):val()),
              text = tostring(tensor.DoubleTensor{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}),
              range = tostring(tensor.DoubleTensor{range = {1, 2, 0.5}}), single = tostring(t(1, 1)),
              empty = tostring(tensor.ByteTensor()),
              long = tensor.DoubleTensor{range = {2000}}:reshape{2, 1000}:tostring(),
              whole = #tensor.ByteTensor(3, 400):tostring(-1)}""")
    assert out["before"] == [[0, 2], [0, 0]] and out["after"] == [[1, 2], [2, 3]]
    assert out["one"] == 3 and out["kind"] == "integer"
    assert out["text"] == ("[dmlab.system.tensor.DoubleTensor]\nShape: [2, 2, 2]\n"
                           "[[[1, 2],\n  [3, 4]],\n\n [[5, 6],\n  [7, 8]]]")
    assert out["range"] == "[dmlab.system.tensor.DoubleTensor]\nShape: [3]\n[  1, 1.5,   2]"
    assert out["single"].endswith("Shape: [1]\n1") and out["empty"].endswith("Shape: [] Empty")
    assert out["long"].endswith("[[   1,    2,    3, ...,  998,  999, 1000],\n"
                                " [1001, 1002, 1003, ..., 1998, 1999, 2000]]")
    assert out["whole"] > 3 * 400 * 3


# -- transforms -----------------------------------------------------------------------------------

def rotation(degrees, axis):
    """Rodrigues' rotation matrix (counterclockwise about `axis`), homogeneous."""
    u = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    m = np.eye(4)
    angle = math.radians(degrees)
    m[:3, :3] = np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k
    return m


def test_transforms_are_transposed_homogeneous_matrices(lua):
    out = lua("""return {x = transform.rotateX(30), y = transform.rotateY(-45), z = transform.rotateZ(90),
                         any = transform.rotate(77, {1, 2, -2}), t = transform.translate{1, 2, 3},
                         s = transform.scale{2, 3, 4},
                         chain = transform.scale{2, 3, 4}:mmul(transform.rotateZ(90))
                                                          :mmul(transform.translate{1, 2, 3}),
                         point = tensor.FloatTensor{{1, 0, 0, 1}}:mmul(
                             transform.rotateZ(90):mmul(transform.translate{5, 0, 0}))}""")
    translate, scale = np.array([[1.0, 0, 0, 1], [0, 1, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]]), np.diag([2.0, 3, 4, 1])
    for key, matrix in [("x", rotation(30, [1, 0, 0])), ("y", rotation(-45, [0, 1, 0])), ("z", rotation(90, [0, 0, 1])),
                        ("any", rotation(77, [1, 2, -2])), ("t", translate), ("s", scale),
                        ("chain", translate @ rotation(90, [0, 0, 1]) @ scale)]:
        assert out[key].dtype == np.float32 and out[key].shape == (4, 4)
        np.testing.assert_allclose(out[key], matrix.T, atol=1e-6)
    np.testing.assert_allclose(out["point"], [[5, 1, 0, 1]], atol=1e-6)  # x turned to y, then moved by 5 along x


# -- errors ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("setup, expr, words", [
    ("tensor.DoubleTensor(2, 3)", "t:select(2, 4)", ["DoubleTensor:select", "index", "[1, 3]"]),
    ("tensor.DoubleTensor(2, 3)", "t(3)", ["__call", "[1, 2]"]),
    ("tensor.ByteTensor(2, 3)", "t:narrow(2, 2, 3)", ["narrow", "size", "[0, 2]"]),
    ("tensor.ByteTensor(2, 3)", "t:copy(tensor.ByteTensor(5))", ["copy", "6 and 5 elements"]),
    ("tensor.ByteTensor(2, 3)", "t:cadd(tensor.DoubleTensor(2, 3))",
     ["expected a tensor.ByteTensor", "tensor.DoubleTensor"]),
    ("tensor.ByteTensor(2, 3)", "t:fill('x')", ["fill", "must be a number", "string"]),
    ("tensor.ByteTensor(2, 3)", "t:fill{1, 2}", ["one number per index", "(3), got 2"]),
    ("tensor.Int32Tensor(2)", "t:div(0)", ["division by zero"]),
    ("tensor.DoubleTensor(2, 3)", "t:mmul(t)", ["mmul", "{2, 3} and {2, 3}"]),
    ("tensor.DoubleTensor(2, 3)", "t:transpose(1, 2):reshape(6)", ["not contiguous"]),
    ("tensor.DoubleTensor(2, 3)", "t:reshape(5)", ["holds 5 elements", "has 6"]),
    ("tensor.DoubleTensor(2, 3)", "t:val{{1, 2}}", ["shape {1, 2}", "{2, 3}"]),
    ("tensor.DoubleTensor(2, 3)", "t:clamp(3, 1)", ["minimum <= maximum"]),
    ("tensor.DoubleTensor(2, 3)", "t:shuffle({})", ["rank-1"]),
    ("tensor.DoubleTensor(3)", "t:shuffle(7)", ["random generator"]),
    ("tensor.DoubleTensor(3)", "t.size(5)", ["called on number"]),
    ("1", "tensor.ByteTensor{{1, 2}, {3}}", ["ragged"]),
    ("1", "tensor.ByteTensor{1, 'x'}", ["expected numbers, got a string"]),
    ("1", "tensor.DoubleTensor(3, -1)", ["non-negative integers"]),
    ("1", "tensor.ByteTensor(1 << 14, 1 << 14)", ["more than 134217728 elements"]),
    ("1", "tensor.DoubleTensor{range = {1, 1e12}}", ["more than 134217728 values"]),
    ("1", "tensor.DoubleTensor{range = {1, 5, 0}}", ["step must not be zero"]),
    ("1", "tensor.DoubleTensor{range = {5, 1}}", ["no values from 5.0 to 1.0"]),
    ("1", "tensor.DoubleTensor{file = {name = 'x'}}", ["reads no files"]),
    ("require 'dmlab.system.transform'", "t.rotate(30, {0, 0, 0})", ["non-zero vector"]),
    ("require 'dmlab.system.transform'", "t.translate{1, 2}", ["three numbers", "{1, 2, nil}"]),
])
def test_errors_are_clear_and_at_the_calling_line(tmp_path, setup, expr, words):
    err = error_at(tmp_path, setup, expr)
    assert (err.path, err.line) == (str(tmp_path / "level.lua"), 5) and all(word in str(err) for word in words)
    assert "raised in" not in str(err)  # the message itself points at the script


def test_non_finite_integers_and_bad_apply_results_are_errors(tmp_path):
    err = error_at(tmp_path, "tensor.ByteTensor{1, 2}", "t:mul(math.huge)")
    assert err.line == 5 and "must be finite, got inf" in str(err)
    err = error_at(tmp_path, "tensor.ByteTensor{1, 2}", "t:apply(function() return 'x' end)")
    assert err.line == 5 and "returned a string" in str(err)


def test_sizes_and_indices_that_are_not_whole_truncate_as_dmlab_reads_integers(lua):
    """DMLab reads a size or an index with Lua 5.1's lua_tointeger, which truncates toward zero: PsychLab sizes
    its images with fractions of the screen (0.1 * 512 = 51.2 pixels)."""
    out = lua("""local t = tensor.ByteTensor(2.9, 3.2):fill(7)
      local n = tensor.DoubleTensor{range = {5}}:narrow(1, 2.7, 2.2)
      return {shape = t:shape(), narrowed = n, picked = n(1.99):val()}""")
    assert out["shape"] == [2, 3]
    np.testing.assert_array_equal(out["narrowed"], [2.0, 3.0])
    assert out["picked"] == 2.0
