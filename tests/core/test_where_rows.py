"""jaxlab.env.where_rows: a rare, costly rule computed only on the rows that need it, with the
results of a plain ``jnp.where`` row by row, unbatched, vmapped (sparse block or every row), nested
and jitted."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.env import BLOCKS_FROM, in_blocks, where_rows


def costly(x, table):
    """A vector result from a batched row and an unbatched table."""
    return {"sum": jnp.sum(jnp.sin(x[:, None] * table), axis=0), "top": jnp.argmax(x).astype(jnp.int32)}


def nothing(x, table):
    return {"sum": jnp.full(table.shape[1:], -1.0), "top": jnp.int32(-7)}


def rule(flag, x, table, shares=(16, 4)):
    return where_rows(flag, costly, nothing, (x, table), shares)


def plain(flags, xs, table):
    want = jax.vmap(costly, in_axes=(0, None))(xs, table)
    base = jax.vmap(nothing, in_axes=(0, None))(xs, table)
    return jax.tree_util.tree_map(
        lambda w, b: np.where(np.asarray(flags).reshape((-1,) + (1,) * (w.ndim - 1)), w, b), want, base)


def check(got, want):
    for name in want:
        np.testing.assert_array_equal(np.asarray(got[name]), want[name], err_msg=name)


TABLE = jnp.linspace(0.0, 3.0, 5 * 6).reshape(5, 6)


@pytest.mark.parametrize("flagged", [0, 1, 8, 9, 31, 32, 33, 80, 128])
@pytest.mark.parametrize("shares", [(16, 4), (8,)])
def test_vmapped_rows_equal_a_plain_where_sparse_or_dense(flagged, shares):
    """128 rows: blocks of 8 and 32 rows (shares 16 and 4) or of 16 (share 8); more flagged rows than the
    largest block holds are computed block after block."""
    assert 128 >= BLOCKS_FROM
    xs = jax.random.normal(jax.random.PRNGKey(flagged), (128, 5))
    flags = jnp.zeros(128, bool).at[jax.random.permutation(jax.random.PRNGKey(1), 128)[:flagged]].set(True)
    got = jax.jit(jax.vmap(lambda f, x: rule(f, x, TABLE, shares)))(flags, xs)
    check(got, plain(flags, xs, TABLE))


def test_unbatched_is_a_cond_and_jit_agrees():
    x = jnp.arange(5.0)
    for flag in (True, False):
        want = (costly if flag else nothing)(x, TABLE)
        check(rule(jnp.bool_(flag), x, TABLE), jax.tree_util.tree_map(np.asarray, want))
        check(jax.jit(rule)(jnp.bool_(flag), x, TABLE), jax.tree_util.tree_map(np.asarray, want))


def test_nested_vmap_and_an_unbatched_flag():
    xs = jax.random.normal(jax.random.PRNGKey(3), (3, 64, 5))
    flags = jax.random.bernoulli(jax.random.PRNGKey(4), 0.05, (3, 64))
    got = jax.jit(jax.vmap(jax.vmap(rule, in_axes=(0, 0, None)), in_axes=(0, 0, None)))(flags, xs, TABLE)
    want = plain(flags.reshape(-1), xs.reshape(192, 5), TABLE)
    check({k: np.asarray(v).reshape((192,) + v.shape[2:]) for k, v in got.items()}, want)
    # the same flag for every row (not batched) and a batched row
    for flag in (True, False):
        got = jax.vmap(rule, in_axes=(None, 0, None))(jnp.bool_(flag), xs[0], TABLE)
        check(got, plain(jnp.full(64, flag), xs[0], TABLE))


def test_a_batch_under_blocks_from_and_share_one():
    """A small batch (every row computed) and shares that make no block."""
    xs = jax.random.normal(jax.random.PRNGKey(5), (3, 5))
    for flags in ([True, False, False], [True, True, False], [True, True, True]):
        flags = jnp.array(flags)
        for shares in ((1,), (8,), (16, 4)):
            got = jax.vmap(lambda f, x: rule(f, x, TABLE, shares))(flags, xs)
            check(got, plain(flags, xs, TABLE))


def test_inside_a_scan_under_vmap_and_jit():
    """The rule as a kernel uses it: in the body of a ``lax.scan`` that is vmapped and jitted."""
    xs = jax.random.normal(jax.random.PRNGKey(6), (64, 4, 5))
    flags = jax.random.bernoulli(jax.random.PRNGKey(7), 0.05, (64, 4))

    def episode(f, x):
        return jax.lax.scan(lambda c, fx: (c + 1, rule(fx[0], fx[1], TABLE)), 0, (f, x))[1]

    got = jax.jit(jax.vmap(episode))(flags, xs)
    want = plain(flags.reshape(-1), xs.reshape(256, 5), TABLE)
    check({k: np.asarray(v).reshape((256,) + v.shape[2:]) for k, v in got.items()}, want)


def test_blocks_only_from_blocks_from_rows():
    """A batch of BLOCKS_FROM rows or more chooses its block with a cond; a smaller one computes every row."""
    def program(rows):
        xs, flags = jnp.zeros((rows, 5)), jnp.zeros(rows, bool)
        return str(jax.make_jaxpr(jax.vmap(rule, in_axes=(0, 0, None)))(flags, xs, TABLE))

    assert "cond[" in program(BLOCKS_FROM) and "cond[" not in program(BLOCKS_FROM - 1)


def test_in_blocks_takes_the_blocked_path_only_where_where_rows_makes_blocks():
    """``in_blocks(plain, blocked)``: unbatched and under BLOCKS_FROM rows ``plain``, from BLOCKS_FROM rows
    (on the CPU) ``blocked``; the two differ here only to show which ran."""
    def plain(x):
        return x * 0

    def blocked(x):
        return x * 0 + 1

    assert int(in_blocks(plain, blocked, (jnp.int32(5),))) == 0
    for rows, want in ((BLOCKS_FROM - 1, 0), (BLOCKS_FROM, 1)):
        got = jax.jit(jax.vmap(lambda x: in_blocks(plain, blocked, (x,))))(jnp.arange(rows))
        assert (np.asarray(got) == want).all()
