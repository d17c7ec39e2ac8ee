"""Fuzzing the TextWorld game-file loader: a valid game file (jaxlab's ``Game.save``), mutated.

Each example applies one mutation to the file (a byte flip, a truncation, two fields' values swapped,
NaN/Infinity or an overflowing number put in a field, a value of the wrong type, a key or item deleted,
a value wrapped in deep nesting, a control character or terminal escape put into a text or a key,
escaped or raw) and loads it with ``jaxlab.text.load``, what ``jaxlab.make``, the gym
drop-in and banks all read files with. The load either raises TextWorldFormatError (nothing else: no
KeyError, TypeError, IndexError, RecursionError, UnicodeDecodeError, ...) or gives a game whose texts
hold no control character but newline and tab; a bounded
number of the accepted games then play 100 random admissible commands each, all in one jitted,
vmapped scan over one padded bank, and their scores stay finite.
"""
from __future__ import annotations

import json
import math
import re

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxlab.bank import Bank
from jaxlab.text import TextEnv, TextWorldFormatError, load, make

EXAMPLES = 1000
STEPS = 100
#: the accepted games played (the first ones found); the rest are only loaded
PLAYED = 16
WRONG_VALUES = (None, True, 0, -3, 2.5, "", "north", [], [[]], {}, {"name": 1}, [{"name": "at", "arguments": []}])
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e999")
DEPTHS = (2, 40, 5_000, 200_000)
PLACEHOLDER = "\u2603mutated\u2603"
#: every C0 and C1 control character and DEL (newline and tab are allowed in text), and two escapes
CONTROLS = tuple(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]) + ("\x1b[2J", "\x1b]0;owned\x07")
REFUSED_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _paths(value, prefix=()):
    """Every path (tuple of keys and indices) below ``value``, parents before children."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield prefix + (key,)
        yield from _paths(item, prefix + (key,))


def _get(data, path):
    for key in path:
        data = data[key]
    return data


def _set(data, path, value):
    _get(data, path[:-1])[path[-1]] = value


def _mutate(raw: bytes, paths: list, data: st.DataObject) -> bytes:
    """One mutation of the game file ``raw`` (``paths``: every path in its JSON), drawn from ``data``."""
    kind = data.draw(st.sampled_from(("flip", "truncate", "swap", "non-finite", "wrong type", "delete", "deep",
                                      "control")))
    if kind == "flip":
        at, mask = data.draw(st.integers(0, len(raw) - 1)), data.draw(st.integers(1, 255))
        return raw[:at] + bytes([raw[at] ^ mask]) + raw[at + 1:]
    if kind == "truncate":
        return raw[:data.draw(st.integers(0, len(raw) - 1))]
    game, path = json.loads(raw), data.draw(st.sampled_from(paths))
    token = None
    if kind == "swap":
        other = data.draw(st.sampled_from([p for p in paths if p[:len(path)] != path and path[:len(p)] != p]))
        first, second = _get(game, path), _get(game, other)
        _set(game, path, second)
        _set(game, other, first)
    elif kind == "non-finite":
        token = data.draw(st.sampled_from(NON_FINITE))
    elif kind == "wrong type":
        _set(game, path, data.draw(st.sampled_from(WRONG_VALUES)))
    elif kind == "delete":
        del _get(game, path[:-1])[path[-1]]
    elif kind == "control":
        path = data.draw(st.sampled_from([p for p in paths if isinstance(_get(game, p), str)]))
        text, control = _get(game, path), data.draw(st.sampled_from(CONTROLS))
        at = data.draw(st.integers(0, len(text)))
        parent = _get(game, path[:-1])
        if isinstance(parent, dict) and data.draw(st.booleans()):  # into the key instead
            parent[path[-1][:at] + control + path[-1][at:]] = parent.pop(path[-1])
        else:
            _set(game, path, text[:at] + control + text[at:])
        return json.dumps(game, ensure_ascii=data.draw(st.booleans())).encode("utf-8")
    else:
        depth = data.draw(st.sampled_from(DEPTHS))
        token = "[" * depth + json.dumps(_get(game, path)) + "]" * depth
    if token is not None:
        _set(game, path, PLACEHOLDER)
    text = json.dumps(game)
    return (text.replace(json.dumps(PLACEHOLDER), token) if token is not None else text).encode("utf-8")


def _strings(value):
    """Every string in ``value`` (nested dicts, lists and tuples; keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _play(games, steps: int, seed: int = 0):
    """Scores (float32[N, steps]) of ``steps`` random admissible commands in each game, one jitted scan."""
    env = TextEnv(Bank.stack([g.game for g in games]), [g.info for g in games],
                  observations=("feedback", "admissible", "score"))

    @jax.jit
    def rollout(key):
        def episode(game_index, key):
            def step(state, key):
                admissible = env.observe(state)["admissible"]
                command = jax.random.categorical(key, jnp.where(admissible, 0.0, -1e9))
                state, time_step = env.step(state, command)
                return state, time_step.observation["score"]

            keys = jax.random.split(key, steps + 1)
            return jax.lax.scan(step, env.init_state(keys[0], game_index), keys[1:])[1]

        return jax.vmap(episode)(jnp.arange(len(games)), jax.random.split(key, len(games)))

    return np.asarray(rollout(jax.random.PRNGKey(seed)))


def test_mutated_game_files_load_or_fail_cleanly(tmp_path):
    path = make("tw-treasure_hunter", level=1, seed=0).save(tmp_path / "base.json")
    raw = (tmp_path / "base.json").read_bytes()
    paths = list(_paths(json.loads(raw)))
    accepted, outcomes = [], {"accepted": 0, "refused": 0}

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def load_mutated(data):
        mutated = tmp_path / "mutated.json"
        mutated.write_bytes(_mutate(raw, paths, data))
        try:
            game = load(mutated)
        except TextWorldFormatError as err:
            assert str(mutated) in str(err)
            outcomes["refused"] += 1
            return
        outcomes["accepted"] += 1
        assert math.isfinite(float(game.game.q_reward.sum()))
        spec = game.spec
        texts = (spec.objective, spec.walkthrough, spec.entity_names, spec.entity_desc, spec.metadata,
                 game.info.commands)
        assert not any(REFUSED_CONTROL.search(text) for text in _strings(texts))
        if len(accepted) < PLAYED:
            accepted.append(game)

    load_mutated()
    assert outcomes["refused"] > EXAMPLES // 4 and outcomes["accepted"] > 0, outcomes
    scores = _play([load(path)] + accepted, STEPS)
    assert scores.shape == (1 + len(accepted), STEPS) and np.isfinite(scores).all()
