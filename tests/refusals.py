"""Helpers the input-check tests share: a refused call, a parametrized bad input and state snapshots."""
import jax
import numpy as np
import pytest


def case(value, error, *fragments):
    """One parametrized bad input: ``value``, the exception it raises and fragments of its message."""
    return pytest.param(value, error, fragments, id=repr(value)[:60])


def refused(call, error, *fragments, one_line: bool = False):
    """``call()`` raises ``error`` (or a subclass) whose message holds every fragment (and no line
    break, with ``one_line``: no internals); returns the exception."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert not one_line or "\n" not in message, message
    return info.value


def leaves(tree):
    """Host copies of a pytree's leaves, to compare states."""
    return [np.array(leaf) for leaf in jax.tree_util.tree_leaves(jax.device_get(tree))]
