"""The kernel's and the narration's fast paths against plain references, over random fact vectors of
a bank of generated games (cooking games have irreversible actions and action plans):

- the admissible mask (packed 32-bit counts; and ``command_masks``: the player's room's actions, each
  span's bits) against "some action of the span applies";
- the played action looked up in a window of the widest span against a scan of every action;
- the plan steps still needed (``needs_any`` over static plan links) against the dense regression
  over the fact vector that TextWorld's dependency tree describes;
- texts composed with the bank's ``text_widths`` (trimmed lists, a short inventory buffer) against
  texts composed over every column.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlab.bank import Bank
from jaxlab.bits import set_bits
from jaxlab.kernels.text import command_masks, kernel
from jaxlab.levels.text.compiled_game import GameRows
from jaxlab.levels.text.generators import make_spec
from jaxlab.render.text import composition, narration
from jaxlab.text import compile_spec

BATCH, TEXT = 96, 256


def _bank():
    specs = [make_spec("tw-cooking", 10 + i, recipe=1 + i % 3, take=i % 3, go=(1, 6, 9)[i % 3], open=True,
                       cook=True, cut=bool(i % 2)) for i in range(4)]
    specs += [make_spec("tw-treasure_hunter", 5, level=20), make_spec("tw-coin_collector", 3, level=30)]
    return Bank.stack([compile_spec(s)[0] for s in specs])


BANK = _bank()


def _random_states(seed: int):
    """BATCH initial states of random games with random facts (about a third true) and random last commands."""
    rng = np.random.default_rng(seed)
    index = rng.integers(0, BANK.size, BATCH).astype(np.int32)
    states = jax.vmap(lambda i: kernel.initial_state(BANK.get(i), jax.random.PRNGKey(0), i))(jnp.asarray(index))
    facts = rng.random(states.facts.shape) < 0.35
    k = BANK.levels.cmd_span.shape[1]
    return states.replace(facts=jnp.asarray(facts), last_command=jnp.asarray(rng.integers(-1, k, BATCH), jnp.int32))


def _dense_needed(game, facts):
    """numpy reference: bool[E, F] facts each event still needs: for an event with a plan, the
    condition's facts, then backwards over the plan the preconditions of each step that adds a
    needed fact that is false (nothing for an event without a plan: it cannot become unfinishable)."""
    ev, pre, add = (np.asarray(getattr(game, n)) for n in ("ev_facts", "plan_pre", "plan_add"))
    needed = np.zeros((ev.shape[0], facts.shape[0]), bool)
    for row, e in enumerate(np.asarray(game.plan_event)):
        if e < 0:
            continue
        needed[e, ev[e][ev[e] >= 0]] = True
        for step in range(pre.shape[1] - 1, -1, -1):
            adds = add[row, step][add[row, step] >= 0]
            if any(needed[e, a] and not facts[a] for a in adds):
                needed[e, pre[row, step][pre[row, step] >= 0]] = True
    return needed


def _in_one_room(states, seed: int):
    """The states with the player in one room of its game, or (one in eight) in none: every other
    room fact false, as in every state the rules reach."""
    rng = np.random.default_rng(seed)
    facts = np.asarray(states.facts).copy()
    for b, g in enumerate(np.asarray(states.game_index)):
        rooms = np.asarray(BANK.levels.room_fact[g])
        rooms = rooms[rooms >= 0]
        facts[b, rooms] = False
        if len(rooms) and rng.random() < 7 / 8:
            facts[b, rng.choice(rooms)] = True
    return states.replace(facts=jnp.asarray(facts))


def test_admissible_and_the_windowed_action_match_plain_references():
    states = _in_one_room(_random_states(0), 0)
    width = kernel.widest_span(BANK.levels)
    assert 1 < width < BANK.levels.act_cmd.shape[1]  # the window is narrower than the action table
    masks = Bank(command_masks.command_masks(BANK.levels))
    assert masks.levels.need.shape[3] * 2 <= BANK.levels.act_pre.shape[1]  # the rooms' windows pay

    @jax.jit
    @jax.vmap
    def fast(state):
        rows = GameRows(BANK, state.game_index)
        return (kernel.admissible(rows, state.facts),
                command_masks.admissible(GameRows(masks, state.game_index), state.facts),
                kernel.chosen_action(rows, state.facts, state.last_command, width))

    mask, masked, (valid, action) = jax.device_get(fast(states))
    checked = 0
    for b in range(BATCH):
        game = BANK.get(int(states.game_index[b]))
        facts = np.asarray(states.facts[b])
        ok = np.asarray(kernel.applicable(game, facts))
        span = np.asarray(game.cmd_span)
        want = np.array([ok[s:e].any() for s, e in span])
        assert (mask[b] == want).all() and (masked[b] == want).all()
        checked += int(want.sum())
        full_valid, full_action = kernel.chosen_action(game, facts, states.last_command[b])
        assert valid[b] == bool(full_valid)
        if valid[b]:
            assert action[b] == int(full_action)
    assert checked > 3 * BATCH  # masks worth checking: several admissible commands per state


def test_needed_plan_steps_match_the_dense_regression():
    states = _random_states(1)
    num_f = BANK.levels.init_facts.shape[1]
    gone = jnp.stack([jnp.arange(num_f), jnp.full(num_f, -1), jnp.full(num_f, -1)], axis=1).astype(jnp.int32)

    @jax.jit
    @jax.vmap
    def per_fact(state):  # bool[F, E]: deleting fact f alone breaks what event e needs
        rows = GameRows(BANK, state.game_index)
        return jax.vmap(lambda g: kernel.needs_any(rows, state.facts, g))(gone)

    fast = np.asarray(per_fact(states))
    tracked = 0
    for b in range(BATCH):
        game = BANK.get(int(states.game_index[b]))
        dense = _dense_needed(game, np.asarray(states.facts[b]))
        e = dense.shape[0]
        assert (fast[b][:, :e] == dense.T).all(), b
        tracked += int(np.asarray(game.plan_readers).any())
    assert tracked > 0  # some games have plans whose steps feed later steps


@pytest.mark.parametrize("cooking", [True, False])
def test_texts_with_the_bank_widths_match_texts_over_every_column(cooking):
    bank = BANK if cooking else Bank.stack([compile_spec(make_spec("tw-treasure_hunter", s, level=5 + 5 * s))[0]
                                            for s in range(3)])
    rng = np.random.default_rng(2)
    index = jnp.asarray(rng.integers(0, bank.size, BATCH), jnp.int32)
    states = jax.vmap(lambda i: kernel.initial_state(bank.get(i), jax.random.PRNGKey(0), i))(index)
    states = states.replace(facts=jnp.asarray(rng.random(states.facts.shape) < 0.35),
                            last_command=jnp.asarray(rng.integers(-1, bank.levels.cmd_span.shape[1], BATCH), jnp.int32),
                            steps=jnp.asarray(rng.integers(0, 3, BATCH), jnp.int32))
    widths = narration.text_widths(bank.levels)
    assert widths.score < bank.levels.fixed_segs.shape[-1]  # the trims are exercised
    if not cooking:
        assert widths.inventory < bank.levels.view_segs.shape[-1] and widths.inventory_tokens < TEXT

    def texts(state, w):
        rows = GameRows(bank, state.game_index)
        return (narration.feedback(rows, state, TEXT, w), narration.description(rows, state.facts, TEXT, w),
                narration.inventory(rows, state.facts, TEXT, w))

    trimmed = jax.jit(jax.vmap(lambda s: texts(s, widths)))(states)
    plain = jax.jit(jax.vmap(lambda s: texts(s, None)))(states)
    for a, b in zip(trimmed, plain):
        assert (np.asarray(a) == np.asarray(b)).all()
    assert (np.asarray(trimmed[2]) > 0).sum(axis=1).max() > 3  # inventories say something


def test_a_step_that_does_not_follow_the_policy_changes_nothing_else():
    """``kernel.step(..., track_policy=False)`` (an env that observes neither the policy nor the
    intermediate reward) gives the same state but for the policy, which keeps its value, and an
    intermediate reward of 0."""
    states = _random_states(2)
    commands = jnp.asarray(np.random.default_rng(3).integers(-1, BANK.levels.cmd_span.shape[1], BATCH), jnp.int32)

    @jax.jit
    def both(states, commands):
        def one(state, command):
            rows = GameRows(BANK, state.game_index)
            return tuple(kernel.step(rows, state, command, track_policy=t) for t in (True, False))
        return jax.vmap(one)(states, commands)

    (tracked, reward_t), (untracked, reward_u) = jax.device_get(both(states, commands))
    np.testing.assert_array_equal(reward_t, reward_u)
    for name in ("facts", "score", "moves", "steps", "won", "lost", "q_completed", "ev_dead", "last_action"):
        np.testing.assert_array_equal(getattr(tracked, name), getattr(untracked, name), err_msg=name)
    jax.tree.map(np.testing.assert_array_equal, untracked.policy, jax.device_get(states.policy))
    assert not np.asarray(untracked.intermediate_reward).any()
    moved = np.asarray(tracked.last_action) >= 0
    assert moved.sum() > 5 and any(not np.array_equal(a[moved], b[moved]) for a, b in
                                   zip(jax.tree.leaves(tracked.policy), jax.tree.leaves(jax.device_get(states.policy))))


def test_command_masks_of_one_game_and_a_span_wider_than_32_actions():
    """One game's masks are its bank row; a command of more than 32 actions in a window would need a
    third word: no masks, and ``TextEnv`` takes the counting path."""
    game = BANK.get(0)
    one = command_masks.command_masks(game)
    facts = np.asarray(game.init_facts)
    assert (np.asarray(command_masks.admissible(one, jnp.asarray(facts)))
            == np.asarray(kernel.admissible(game, jnp.asarray(facts)))).all()
    span = np.asarray(game.cmd_span).copy()
    span[0] = [0, 40]
    assert command_masks.command_masks(game.replace(cmd_span=jnp.asarray(span))) is None


def test_a_player_who_could_be_in_two_rooms_gets_one_window():
    """A game whose start has two room facts, or with an action that adds a room fact without leaving
    one, gets one window of all its actions: the mask then equals the counting path for any facts."""
    game = BANK.get(2)  # tw-cooking in 9 rooms
    rooms = np.asarray(game.room_fact)[np.asarray(game.room_fact) >= 0]
    made = command_masks.command_masks(game)
    assert len(rooms) == 9 and (np.asarray(made.room_fact)[:9] == rooms).all()  # a window per room
    add = np.asarray(game.act_add).copy()
    add[0, -1] = rooms[1]  # the first action also puts the player in a second room
    start = np.asarray(game.init_facts).copy()
    start[rooms[:2]] = True
    rng = np.random.default_rng(3)
    for odd in (game.replace(act_add=jnp.asarray(add)), game.replace(init_facts=jnp.asarray(start))):
        masks = command_masks.command_masks(odd)
        assert masks.need.shape[0] == 1 and masks.room_fact.shape == (0,)
        for _ in range(8):
            facts = jnp.asarray(rng.random(start.shape) < 0.35)
            assert (np.asarray(command_masks.admissible(masks, facts))
                    == np.asarray(kernel.admissible(odd, facts))).all()


def test_set_bits_finds_the_set_flags_in_order():
    rng = np.random.default_rng(4)
    cases = [np.zeros(154, bool), np.ones(154, bool), np.ones(20, bool), rng.random(7) < 0.5]
    cases += [rng.random(n) < p for n in (31, 32, 33, 96, 154, 300) for p in (0.05, 0.3, 0.9)]
    for flags in cases:
        for m in (1, 5, 32):
            at, count = jax.jit(set_bits, static_argnums=1)(jnp.asarray(flags), m)
            want = np.nonzero(flags)[0][:m]
            assert int(count) == flags.sum()
            assert (np.asarray(at)[:len(want)] == want).all() and (np.asarray(at)[len(want):] == 0).all()


def _walk_states(steps: int, seed: int):
    """The states of a random walk (uniform over admissible commands) of BATCH episodes of BANK's games,
    stacked over ``steps`` steps: the texts a player meets, most of them short."""
    from jaxlab.kernels.text.env import TextEnv
    env = TextEnv(BANK, observations=("admissible",), text_length=TEXT)
    step = jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(seed), BATCH)
    states, ts = jax.jit(jax.vmap(env.reset))(keys)
    seen = []
    for i in range(steps):
        logits = jnp.where(ts.observation["admissible"], 0.0, -jnp.inf)
        command = jax.random.categorical(jax.random.PRNGKey(seed * 1000 + i), logits).astype(jnp.int32)
        states, ts = step(states, command)
        seen.append(states)
    return jax.tree.map(lambda *a: jnp.concatenate(a), *seen)


def test_short_texts_from_holding_segments_match_texts_over_every_slot(monkeypatch):
    """``compose``'s short path (the first 32 holding segments in 64 tokens, the rest composed in full;
    the slots of the widest views' tail checked only on the rows whose view reaches them) against
    composing every slot in full, on the states of random walks and on random facts (where many
    segments hold, so most rows take the full path); the short path must carry most of a walk's rows,
    and some rows but not all must reach the tail."""
    walked = _walk_states(12, 5)
    states = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), walked, _random_states(6))
    widths = narration.text_widths(BANK.levels)
    assert widths.view_common < widths.view

    def feedback(state):
        return narration.feedback(GameRows(BANK, state.game_index), state, TEXT, widths)

    short = np.asarray(jax.jit(jax.vmap(feedback))(states))
    monkeypatch.setattr(narration, "SHORT_FEEDBACK", TEXT)
    full = np.asarray(jax.jit(jax.vmap(lambda s: feedback(s)))(states))
    np.testing.assert_array_equal(short, full)

    def whole(state):
        rows = GameRows(BANK, state.game_index)
        seq = narration.feedback_segments(rows, state, widths)
        tail = jnp.any(seq[widths.head + widths.view_common:widths.head + widths.view] >= 0)
        return composition.compose_short(rows, seq, composition.segment_holds(rows, state.facts, seq), 64)[1], tail

    took, tail = map(np.asarray, jax.jit(jax.vmap(whole))(states))
    walks = len(took) - BATCH
    assert took[:walks].mean() > 0.8 and not took[walks:].all()  # both paths are exercised
    assert 0 < tail.mean() < 1


def test_a_game_row_read_in_place_equals_the_bank_read():
    """``GameRows``' flat read of one index array (negative indices count from the end, JAX clamps past
    the ends) equals the bank's own (game, index) read, vmapped or not."""
    table = BANK.levels.seg_pos
    idx = jnp.asarray([-3, -1, 0, 1, table.shape[1] - 1, table.shape[1], table.shape[1] + 7, -table.shape[1] - 2],
                      jnp.int32)
    for g in range(BANK.size):
        np.testing.assert_array_equal(np.asarray(GameRows(BANK, jnp.int32(g)).seg_pos[idx]),
                                      np.asarray(table[g, idx]))
    games = jnp.arange(BANK.size, dtype=jnp.int32)
    read = jax.jit(jax.vmap(lambda g: GameRows(BANK, g).seg_pos[idx]))(games)
    np.testing.assert_array_equal(np.asarray(read), np.asarray(table[games[:, None], idx[None, :]]))
