"""Shared by the memory-task tests: compile short test programs with XLA's backend optimisation off
(about half the compile time; the results are the same programs' results)."""
import jax
import pytest

QUICK = {"xla_backend_optimization_level": 0}


@pytest.fixture(scope="session")
def quick_compile():
    """``quick_compile(f, *args)``: ``jax.jit(f)`` compiled for ``args`` with optimisation off."""
    def compile_(f, *args):
        return jax.jit(f).lower(*args).compile(QUICK)
    return compile_
