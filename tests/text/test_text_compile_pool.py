"""Compiling many games in worker processes gives exactly what a serial compile gives, and a bad game
in a worker's chunk raises the error a serial compile raises."""
from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from jaxlab.levels.text.compile_pool import MIN_GAMES_PER_PROCESS, compile_many
from jaxlab.levels.text.generators import make_spec
from jaxlab.text import LogicSyntaxError, compile_spec

COUNT = 2 * MIN_GAMES_PER_PROCESS


def _specs():
    return [make_spec("tw-treasure_hunter" if i % 2 else "tw-coin_collector", i, level=1 + i % 20)
            for i in range(COUNT)]


def test_two_processes_compile_what_one_does():
    specs = _specs()
    parallel, serial = compile_many(specs, processes=2), compile_many(specs, processes=1)
    assert len(parallel) == len(serial) == COUNT
    for (game_a, info_a), (game_b, info_b) in zip(parallel, serial):
        assert info_a == info_b
        for a, b in zip(jax.tree_util.tree_leaves(game_a), jax.tree_util.tree_leaves(game_b)):
            assert isinstance(a, jax.Array) and a.dtype == b.dtype and (np.asarray(a) == np.asarray(b)).all()


def test_a_bad_game_in_a_worker_chunk_raises_the_serial_error():
    specs = _specs()
    specs[-1] = dataclasses.replace(specs[-1], logic="rules { broken")  # in the worker's chunk
    with pytest.raises(LogicSyntaxError) as serial:
        compile_spec(specs[-1])
    with pytest.raises(LogicSyntaxError) as parallel:
        compile_many(specs, processes=2)
    assert str(parallel.value) == str(serial.value)


def test_processes_must_be_a_positive_integer():
    for bad in (0, -1, True):
        with pytest.raises(ValueError, match="processes must be a positive integer"):
            compile_many(_specs()[:2], processes=bad)
