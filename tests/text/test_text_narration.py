"""The text of text games, composed on device as tokens (``jaxlab.render.text.narration``).

Games come from the ``textworld`` package (coin collector, tw-simple, and a
small hand-built house whose descriptions and objective we replace with our
own so that its texts can be checked word for word), imported and compiled
with their text; the texts are decoded on the host and checked against the
game's facts.
"""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

textworld = pytest.importorskip("textworld")

from textworld.challenges import CHALLENGES  # noqa: E402
from textworld.generator.game import GameOptions  # noqa: E402

from jaxlab.bank import Bank  # noqa: E402
from jaxlab.errors import UnknownNameError  # noqa: E402
from jaxlab.kernels.text import kernel
from jaxlab.levels.text.grammar import strip_markup  # noqa: E402
from jaxlab.levels.text.tables import share_vocab  # noqa: E402
from jaxlab.levels.text.vocab import AND, COMMA, NEWLINE, PAD, UNK, shipped_words  # noqa: E402
from jaxlab.render.text import narration
from jaxlab.text import TextEnv, Vocab, compile_spec, read_textworld  # noqa: E402

HOUSE_PLAN = ["open chest", "take apple from chest", "open oak door", "go east", "put apple on table"]
KITCHEN = ("-= Kitchen =-\nA small kitchen that smells of bread. There is a closed chest here. "
           "On the floor you see a coin.\nThere is a closed oak door leading east.")


def _house(path):
    """A kitchen (a closed chest holding an apple, a coin on the floor) east of it, through a door, a den."""
    from textworld import GameMaker
    from textworld.generator.game import Event, GameProgression, Quest
    from textworld.generator.inform7 import Inform7Game

    maker = GameMaker()
    kitchen, den = maker.new_room("kitchen"), maker.new_room("den")
    maker.add_fact("closed", maker.new_door(maker.connect(kitchen.east, den.west), name="oak door"))
    maker.set_player(kitchen)
    chest = maker.new(type="c", name="chest")
    kitchen.add(chest)
    maker.add_fact("closed", chest)
    apple = maker.new(type="f", name="apple")
    chest.add(apple)
    maker.add_fact("edible", apple)
    den.add(maker.new(type="s", name="table"))
    kitchen.add(maker.new(type="o", name="coin"))
    progression, inform7, actions = GameProgression(maker.build(), track_quests=False), Inform7Game(maker.build()), []
    for command in HOUSE_PLAN:
        action = progression.valid_actions[inform7.gen_commands_from_actions(progression.valid_actions).index(command)]
        progression.update(action)
        actions.append(action)
    maker.quests = [Quest(win_events=[Event(actions)])]
    maker.build().save(str(path))
    spec = read_textworld(path)
    return dataclasses.replace(spec, objective="Put the apple on the table in the den.", entity_desc={
        "r_0": "A small kitchen that smells of bread.\n\nThere is [if d_0 is open]an open[otherwise]a closed[end if] "
               "door.",
        "c_0": "An old oak chest. [if open]It is open.[otherwise]It is closed.[end if]"})


def _challenge(name, settings, seed, path):
    options = GameOptions()
    options.seeds = seed
    CHALLENGES[name][1](settings=settings, options=options).save(str(path))
    return read_textworld(path)


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    """{name: GameSpec}: two TextWorld challenges and the house."""
    folder = tmp_path_factory.mktemp("narration_games")
    return {"coin": _challenge("tw-coin_collector", {"level": 5}, 2, folder / "coin.json"),
            "simple": _challenge("tw-simple", {"rewards": "dense", "goal": "detailed", "test": False}, 1,
                                 folder / "simple.json"),
            "house": _house(folder / "house.json")}


@pytest.fixture(scope="module")
def compiled(specs):
    return {name: compile_spec(spec) for name, spec in specs.items()}


@pytest.fixture(scope="module")
def env(compiled):
    games, infos = zip(*compiled.values())
    return TextEnv(Bank.stack(games), list(infos),
                   observations=("feedback", "description", "inventory", "moves", "score"))


def _room_of(spec, info, facts):
    """The display name of the room the player is in, from the fact vector."""
    rooms = [e for e, t in spec.entity_types.items() if t == "r" and f"at(P, {e})" in info.facts]
    (room,) = [r for r in rooms if facts[info.facts.index(f"at(P, {r})")]]
    return spec.entity_names[room]


class _Player:
    """Plays one game of ``env`` with a jitted step, decoding every text."""

    def __init__(self, env, game_index):
        self.env, self.g = env, game_index
        self.step, observe = _JITTED.setdefault(id(env), (jax.jit(env.step), jax.jit(env.observe)))
        self.state = env.init_state(jax.random.PRNGKey(0), game_index)
        self.obs = observe(self.state)

    def text(self, name="feedback"):
        return self.env.decode(self.obs[name])

    def play(self, command):
        cid = command if isinstance(command, int) else self.env.command_id(self.g, command)
        assert isinstance(command, int) or cid >= 0, command
        self.state, ts = self.step(self.state, cid)
        self.obs = ts.observation
        return self.text()


_JITTED = {}  # id(env) -> (jitted env.step, jitted env.observe)
_feedback = jax.jit(narration.feedback, static_argnums=2)  # (game, state, length) -> int32[length]
_kernel_step = jax.jit(kernel.step)


# -- vocabulary ---------------------------------------------------------------

def test_vocab_round_trip_and_fixed_ids():
    vocab = Vocab(("king-size", "said", "she", "twice"))
    texts = ["-= Living Room =-\nYou are carrying: an apple, a key and a coin.", "That's not a verb I recognise.",
             "You can't go that way.\n*** You lost! ***", 'She said "take the king-size bed" (twice)!']
    for text in texts:
        assert vocab.decode(vocab.encode(text)) == text
    assert shipped_words()[:5] == ("<pad>", "<unk>", "<nl>", ",", "and")
    assert (PAD, UNK, NEWLINE, COMMA, AND) == (0, 1, 2, 3, 4)
    assert Vocab().encode("You see a zyzzyva.")[3] == UNK and vocab.decode([0, 0]) == ""
    extended = Vocab(("zyzzyva",))
    assert extended.encode("zyzzyva")[0] == len(shipped_words())
    assert extended.decode(extended.encode("A zyzzyva.")) == "A zyzzyva."


def test_strip_markup():
    desc = ("The chest looks strong. [if open]It is open.[else if closed]It is shut.[otherwise]Locked.[end if] "
            "It [if c_0 is locked]a [if x]nested[end if] lock[end if]holds [a list of things in the c_0] things.")
    assert strip_markup(desc) == "The chest looks strong. It holds things."


def test_bank_shares_one_vocabulary(compiled):
    (g1, i1), (g2, i2) = compiled["coin"], compiled["house"]
    assert set(i1.words) != set(i2.words)
    a_games, a_infos, a_vocab = share_vocab([g1, g2], [i1, i2])
    b_games, b_infos, b_vocab = share_vocab([g2, g1], [i2, i1])
    assert a_vocab.words == b_vocab.words and a_infos[0].words == b_infos[1].words
    np.testing.assert_array_equal(np.asarray(a_games[0].txt_tokens), np.asarray(b_games[1].txt_tokens))
    for game, info, shared in ((g1, i1, a_games[0]), (g2, i2, a_games[1])):
        own = Vocab(info.words)
        for row, row_shared in zip(np.asarray(game.txt_tokens), np.asarray(shared.txt_tokens)):
            assert own.decode(row) == a_vocab.decode(row_shared)
    env = TextEnv(Bank.stack([g1, g2]), [i1, i2], observations=("inventory",))  # a bank stacked before sharing
    assert env.vocab.words == a_vocab.words and {i.words for i in env.infos} == {a_vocab.words[len(shipped_words()):]}
    shape = a_games[1].txt_tokens.shape
    np.testing.assert_array_equal(np.asarray(env.bank.levels.txt_tokens[1])[:shape[0], :shape[1]],
                                  a_games[1].txt_tokens)


# -- what the games say ---------------------------------------------------------

def test_house_texts_word_for_word(env, specs):
    g = list(specs).index("house")
    p = _Player(env, g)
    assert p.text() == "Put the apple on the table in the den.\n" + KITCHEN
    assert p.text("description") == KITCHEN and p.text("inventory") == "You are carrying nothing."
    expected = [
        ("insert coin into chest", "You aren't carrying the coin."),  # the chest is closed too: the first reason
        ("open chest", "You open the chest. The chest contains an apple."),
        ("examine chest", "An old oak chest. It is open. The chest contains an apple."),
        ("take apple from chest", "You take the apple from the chest."),
        ("take apple from chest", "You already have that."),
        ("go east", "The oak door is closed."),
        ("open oak door", "You open the oak door."),
        ("take coin", "You pick up the coin from the ground."),
        ("inventory", "You are carrying: an apple and a coin."),
        ("go east", "-= Den =-\nYou are in the den. There is a table here.\nThere is an open oak door leading west."),
        ("drop coin", "You drop the coin on the ground."),
        ("drop coin", "You aren't carrying the coin."),
        ("go east", "You can't go that way."),
        ("put apple on table", "You put the apple on the table.\nYour score has just gone up by one point.\n"
                               "*** The end ***"),
    ]
    for command, text in expected:
        assert p.play(command) == text, command
    assert p.text("description") == ("-= Den =-\nYou are in the den. There is a table here. On the table you see "
                                     "an apple. On the floor you see a coin.\nThere is an open oak door leading west.")


def test_losing_text_and_eaten_food(compiled):
    game, info = compiled["house"]
    vocab = Vocab(info.words)
    state = kernel.initial_state(game, jax.random.PRNGKey(0))
    for command in ("open chest", "take apple from chest", "eat apple"):
        state, _ = _kernel_step(game, state, info.command_id(command))
    assert bool(state.lost)
    assert vocab.decode(_feedback(game, state, 256)) == (
        "You eat the apple. Not bad.\n*** You lost! ***")
    state, _ = _kernel_step(game, state, info.command_id("eat apple"))
    assert vocab.decode(_feedback(game, state, 256)) == "There is nothing left of the apple."


def test_textworld_walkthroughs(env, specs, compiled):
    for g, name in enumerate(specs):
        spec, (_, info) = specs[name], compiled[name]
        p = _Player(env, g)
        start = _room_of(spec, info, np.asarray(p.state.facts))
        assert f"-= {start.title()} =-\n" in p.text()
        assert p.text().startswith(spec.objective.strip().split()[0])
        assert p.text().endswith(p.text("description"))
        for command in info.walkthrough:
            text = p.play(command)
            verb = command.split()[0]
            if verb == "go":
                room = _room_of(spec, info, np.asarray(p.state.facts))
                seen = text.split("\nYour score has just gone up by ")[0]   # the score line follows the room
                assert text.startswith(f"-= {room.title()} =-\n") and seen == p.text("description"), (name, command)
            elif verb == "take":
                thing = command[5:].split(" from ")[0]
                assert text.startswith(f"You pick up the {thing} from the ground." if " from " not in command
                                       else f"You take the {thing} from the "), (name, command, text)
                assert f" {thing}" in p.text("inventory")
        assert text.endswith("*** The end ***") and bool(p.state.won), name


def test_inadmissible_and_unknown_commands_change_nothing(env, specs):
    g = list(specs).index("coin")
    p = _Player(env, g)
    before = p.state
    unknown, way = "That's not a verb I recognise.", "You can't go that way."
    cases = (("go west", way), ("go south", way), ("drop coin", "You aren't carrying the coin."),
             ("take coin", "You can't see any such thing."), (-1, unknown), (env.num_commands + 3, unknown))
    for command, text in cases:
        assert p.play(command) == text, command
        np.testing.assert_array_equal(np.asarray(p.state.facts), np.asarray(before.facts))
        assert int(p.state.moves) == 0 and float(p.state.score) == 0.0
    k = len(env.infos[g].commands)
    padding = int(np.argmin(np.asarray(env.bank.levels.cmd_valid[g])))
    assert padding >= k > 0
    assert p.play(padding) == unknown


def test_observations_setting(compiled):
    game, info = compiled["coin"]
    env = TextEnv(Bank.stack([game]), [info], observations=("admissible", "inventory"), text_length=16)
    state, ts = jax.jit(env.reset)(jax.random.PRNGKey(1))
    assert set(ts.observation) == {"admissible", "inventory"} and set(env.observation_spec()) == set(ts.observation)
    assert ts.observation["inventory"].shape == (16,) and ts.observation["inventory"].dtype == jnp.int32
    assert env.decode(ts.observation["inventory"]) == "You are carrying nothing."
    assert env.decode(np.stack([ts.observation["inventory"]] * 2)) == ["You are carrying nothing."] * 2
    with pytest.raises(UnknownNameError, match="feedbak.*Did you mean 'feedback'"):
        TextEnv(Bank.stack([game]), [info], observations=("feedbak",))
    default = TextEnv(Bank.stack([game]), [info])
    assert "feedback" in default.observation_spec() and "description" not in default.observation_spec()


def test_truncation_keeps_whole_segments(compiled):
    game, info = compiled["simple"]
    vocab = Vocab(info.words)
    state = kernel.initial_state(game, jax.random.PRNGKey(0))
    full = np.asarray(_feedback(game, state, 1024))
    total = int((full != PAD).sum())
    assert total > 120 and not full[total:].any()
    for length in (40, total - 1):  # cut after the last whole segment that fits: here, a sentence's end
        cut = np.asarray(_feedback(game, state, length))
        n = int((cut != PAD).sum())
        assert cut.shape == (length,) and 0 < n < length and not cut[n:].any()
        np.testing.assert_array_equal(cut[:n], full[:n])
        assert vocab.words[full[n - 1]] in (".", "!", "?", "<nl>"), vocab.decode(cut)
    np.testing.assert_array_equal(np.asarray(_feedback(game, state, 5)), full[:5])  # the first segment is longer


def test_jit_vmap_and_padded_bank_match_one_game(env, compiled):
    """Random commands (valid or not): the batched feedback (jit of vmap over a padded bank, in its shared
    vocabulary) reads the same as each game played alone, unbatched, in its own vocabulary."""
    count, steps = env.num_games, 6
    ids = jax.random.randint(jax.random.PRNGKey(5), (count, steps), -1, env.num_commands)
    mask_pick = jax.random.uniform(jax.random.PRNGKey(6), (count, steps)) < 0.7

    def episode(g, cmds, picks):
        state = env.init_state(jax.random.PRNGKey(0), g)

        def one(state, xs):
            cmd, pick = xs
            adm = kernel.admissible(env.game(state), state.facts)
            chosen = jnp.where(pick & jnp.any(adm), jnp.argmax(adm), cmd)
            state, ts = env.step(state, chosen)
            return state, (chosen, ts.observation["feedback"])

        first = env.observe(state)["feedback"]
        _, (chosen, texts) = jax.lax.scan(one, state, (cmds, picks))
        return chosen, jnp.concatenate([first[None], texts])

    chosen, texts = jax.jit(jax.vmap(episode))(jnp.arange(count), ids, mask_pick)
    for g, (game, info) in enumerate(compiled.values()):
        vocab = Vocab(info.words)
        state = kernel.initial_state(game, jax.random.PRNGKey(0), g)
        alone = [vocab.decode(_feedback(game, state, env.text_length))]
        for cmd in np.asarray(chosen[g]):
            if not bool(state.done):  # the env keeps an ended episode as it is
                state, _ = _kernel_step(game, state, int(cmd))
            alone.append(vocab.decode(_feedback(game, state, env.text_length)))
        assert env.decode(texts[g]) == alone, g


def test_score_lines_say_how_many_points(specs):
    """TextWorld's "Your score has just gone up by n point(s)." after a command that scores, before the
    won text; none after a command that does not score."""
    spec = specs["house"]
    two = dataclasses.replace(spec, quests=tuple(dataclasses.replace(q, reward=2.0) for q in spec.quests))
    game, info = compile_spec(two)
    vocab = Vocab(info.words)
    state = kernel.initial_state(game, jax.random.PRNGKey(0))
    texts = []
    for command in info.walkthrough:
        state, reward = _kernel_step(game, state, info.command_id(command))
        texts.append((float(reward), vocab.decode(_feedback(game, state, 256))))
    assert texts[-1][0] == 2.0 and "\nYour score has just gone up by two points.\n*** The end ***" in texts[-1][1]
    assert all("Your score" not in text for reward, text in texts[:-1] if reward == 0)


def test_room_states_as_textworld_says_them_and_host_texts_never_cut(tmp_path):
    """A locked chest is "locked" in its room, a container no fact opens or closes is "closed" (as
    TextWorld's Inform 7 world has it), and the host's first text keeps an objective of hundreds of
    words and the whole room after it: its buffer is the longest text the game can say."""
    from textworld import GameMaker

    from jaxlab.text import BatchEnv, EnvInfos, start

    maker = GameMaker()
    store, yard = maker.new_room("storeroom"), maker.new_room("yard")
    maker.add_fact("closed", maker.new_door(maker.connect(store.north, yard.south), name="iron door"))
    maker.set_player(store)
    chest, bin_ = maker.new(type="c", name="chest"), maker.new(type="c", name="bin")
    store.add(chest)
    store.add(bin_)
    maker.add_fact("locked", chest)
    coin = maker.new(type="o", name="coin")
    store.add(coin)
    maker.quests = [maker.new_quest_using_commands(["take coin"])]
    game = maker.build()
    game.objective = " ".join(f"Then walk to the yard and look at the sky number {i}." for i in range(60))
    path = tmp_path / "store.json"
    game.save(str(path))

    infos = EnvInfos(description=True)
    host = start(str(path), infos)
    longest = narration.longest_text(host.env.bank.levels)
    assert host.env.text_length == BatchEnv([str(path)], infos).env.text_length == longest > 700
    state = host.reset()
    feedback, description = state["feedback"], state["description"]
    assert "There is a locked chest here." in description and "There is a closed bin here." in description
    assert "closed iron door leading north" in description
    assert feedback.startswith("Then walk to the yard") and "sky number 59." in feedback
    assert feedback.endswith(description.split("\n")[-1]), feedback[-200:]
    assert len(feedback.split()) > 700
