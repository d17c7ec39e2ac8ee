"""jaxlab.bits against numpy: packed words (with and without a spare word, with leading axes) and prefix
counts, over flag arrays of sizes around a word's edges."""
import jax
import jax.numpy as jnp
import numpy as np

from jaxlab.bits import counts_before, packed_words


def _reference_words(flags: np.ndarray, words: int) -> np.ndarray:
    padded = np.zeros(flags.shape[:-1] + (32 * words,), bool)
    padded[..., :flags.shape[-1]] = flags
    weights = np.uint64(1) << np.arange(32, dtype=np.uint64)
    return (padded.reshape(flags.shape[:-1] + (words, 32)) * weights).sum(axis=-1).astype(np.uint32)


def test_packed_words_and_prefix_counts_match_numpy():
    rng = np.random.default_rng(0)
    for n in (1, 7, 31, 32, 33, 64, 154, 434):
        for p in (0.0, 0.1, 0.5, 1.0):
            flags = rng.random((3, n)) < p
            spare = np.asarray(jax.jit(packed_words)(jnp.asarray(flags)))
            exact = np.asarray(jax.jit(lambda f: packed_words(f, spare=False))(jnp.asarray(flags)))
            np.testing.assert_array_equal(spare, _reference_words(flags, n // 32 + 1))
            np.testing.assert_array_equal(exact, _reference_words(flags, -(-n // 32)))
            before = np.asarray(jax.jit(jax.vmap(counts_before))(jnp.asarray(flags)))
            np.testing.assert_array_equal(before, np.cumsum(flags, axis=-1) - flags)
