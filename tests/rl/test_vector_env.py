"""The batched RL environments (cardlab.rl) against the OpenSpiel games, step by step.

Every environment of a batch is followed by an OpenSpiel *twin*: the same
game replayed in Python from the environment's documented seeds (chance from
the deal seed's stream, each house seat by the same native agent with its
arena seed). At every step the twin must hold the same engine state, and the
batch must show the twin's ``observation_tensor`` (bit for bit), legal
actions, player to move and, at the end, its returns.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import cardlab.rl as rl
from cardlab.arena.entrants import NativeAgentBot
from cardlab.arena.native import agent_seed
from cardlab.core.rng import make_stream, random_below
from cardlab.games import SPECS, game_spec

BY_GAME = [pytest.param(spec.aliases[0], {}, id=spec.aliases[0]) for spec in SPECS]
#: One variant parameter set per game whose tensors differ from the standard game's.
VARIANTS = [
    pytest.param("kaiser", {"players": 2}, id="kaiser-2p-piles"),
    pytest.param("kaiser", {"kitty_34_card": True, "pass_two_to_partner": True}, id="kaiser-kitty-passing"),
    pytest.param("kaiser", {"match": True, "max_hands": 3}, id="kaiser-match"),
    pytest.param("28", {"players": 6}, id="28-6p"),
    pytest.param("28", {"cot": True, "thani": True, "pointless_hand_redeal": True}, id="28-variants"),
    pytest.param("literature", {"players": 4}, id="literature-4p"),
    pytest.param("literature", {"forced_claims": True, "challenge": True, "claim_any_time": True,
                                "eights_in_play": True, "players": 4}, id="literature-forced"),
]


class Twin:
    """One environment replayed through OpenSpiel from its seeds."""

    def __init__(self, env: rl.VectorEnv, index: int):
        self.env, self.index, self.episode = env, index, 0
        self.start()

    def start(self) -> None:
        env = self.env
        seed = env.deal_seed(self.index, self.episode)
        self.state = env.game.new_initial_state()
        self.chance = make_stream(seed)
        self.house = {}
        for seat, agent in enumerate(env._house_agents.agents):
            if agent >= 0:
                kind = int(env._house_agents.kinds[agent])
                policies = tuple(table[agent:agent + 1] for table in env._house_agents.policies)
                agent_stream_seed = int(agent_seed(np.uint64(seed), 0, seat, env.num_players))
                self.house[seat] = NativeAgentBot(env.game, seat, agent_stream_seed, kind,
                                                  env._house_agents.options[agent], policies)
        self.play_house()
        while self.state.is_terminal():  # the batch skips a game the caller never plays
            self.episode += 1
            self.start()

    def play_house(self) -> None:
        state = self.state
        while not state.is_terminal():
            if state.is_chance_node():
                legal = state.legal_actions()
                state.apply_action(legal[int(random_below(self.chance, len(legal)))])
            elif state.current_player() in self.house:
                state.apply_action(self.house[state.current_player()].step(state))
            else:
                return

    def step(self, action: int) -> tuple[bool, list[float], int, pyspiel.State]:
        """Apply the caller's action; (ended, returns, mover, final state) of the game it may end."""
        mover = self.state.current_player()
        self.state.apply_action(action)
        self.play_house()
        if not self.state.is_terminal():
            return False, [0.0] * self.env.num_players, mover, self.state
        final = self.state
        self.episode += 1
        self.start()
        return True, final.returns(), mover, final


def tensor(state: pyspiel.State, player: int, perfect_recall: bool) -> np.ndarray:
    values = state.information_state_tensor(player) if perfect_recall else state.observation_tensor(player)
    return np.asarray(values, dtype=np.float32)


def check_against_twins(env: rl.VectorEnv, twins: list[Twin], step: rl.Step) -> None:
    for i, twin in enumerate(twins):
        state = twin.state
        player = state.current_player()
        assert np.array_equal(env.state(i).array, state.array), f"env {i}: engine states differ"
        assert step.current_player[i] == player
        assert np.flatnonzero(step.legal_mask[i]).tolist() == state.legal_actions()
        expected = tensor(state, player, env.perfect_recall)
        assert step.observation.dtype == np.float32
        assert np.array_equal(step.observation[i].view(np.uint32), expected.view(np.uint32)), \
            f"env {i}: observation differs at {np.flatnonzero(step.observation[i] != expected)[:5]}"


def run_lockstep(env: rl.VectorEnv, steps: int, seed: int) -> int:
    """Step ``env`` with random legal actions beside its twins; returns the games finished."""
    rng = np.random.default_rng(seed)
    twins = [Twin(env, i) for i in range(env.num_envs)]
    step = env.reset()
    check_against_twins(env, twins, step)
    finished = 0
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in step.legal_mask])
        step = env.step(actions)
        ended = []
        for i, twin in enumerate(twins):
            done, returns, mover, final = twin.step(int(actions[i]))
            assert bool(step.terminated[i]) == done and not step.truncated[i]
            assert step.rewards[i].tolist() == returns
            if done:
                ended.append(i)
                k = len(ended) - 1
                assert step.info["final_player"][k] == mover
                assert np.array_equal(step.info["final_observation"][k],
                                      tensor(final, mover, env.perfect_recall))
        assert step.info["final_env"].tolist() == ended
        finished += len(ended)
        check_against_twins(env, twins, step)
    assert env.episodes.tolist() == [twin.episode for twin in twins]
    return finished


@pytest.mark.parametrize(("game", "params"), BY_GAME)
def test_self_play_matches_openspiel_step_by_step(game: str, params: dict) -> None:
    env = rl.make(game, num_envs=6, seed=11, params=params)
    steps = 800 if game == "literature" else 500
    assert run_lockstep(env, steps, seed=3) > 0


@pytest.mark.parametrize(("game", "params"), VARIANTS)
def test_variants_match_openspiel(game: str, params: dict) -> None:
    env = rl.make(game, num_envs=3, seed=5, params=params)
    assert env.observation_size == env.game.observation_tensor_size()
    run_lockstep(env, 150, seed=4)


@pytest.mark.parametrize(("game", "params"), BY_GAME)
def test_rules_opponents_play_as_in_the_arena(game: str, params: dict) -> None:
    """One open seat, the house played inside numba by the same agent as the arena's bots."""
    env = rl.make(game, num_envs=4, seed=21, params=params, seats=[1], opponents="rules")
    assert run_lockstep(env, 200, seed=8) > 0
    assert set(np.unique([env.state(i).current_player() for i in range(4)])) <= {1}


def test_mixed_house_agents_and_a_team_of_open_seats() -> None:
    env = rl.make("kaiser", num_envs=3, seed=2, seats=[0, 2], opponents={1: "random", 3: "rules"})
    run_lockstep(env, 120, seed=1)


def test_information_state_tensors_match() -> None:
    env = rl.make("28", num_envs=3, seed=9, observation="information_state")
    assert env.observation_size == env.game.information_state_tensor_size()
    run_lockstep(env, 150, seed=2)


@pytest.mark.parametrize(("game", "params"), BY_GAME + VARIANTS)
def test_compact_observations_divide_into_the_float_ones(game: str, params: dict) -> None:
    """int16 counts over the documented divisors give the float32 tensor bit for bit."""
    floats = rl.make(game, num_envs=4, seed=7, params=params)
    compact = rl.make(game, num_envs=4, seed=7, params=params, dtype="compact")
    assert compact.observation_dtype == np.int16
    rng = np.random.default_rng(0)
    a, b = floats.reset(), compact.reset()
    for _ in range(300):
        decoded = (b.observation / compact.observation_divisors).astype(np.float32)
        assert np.array_equal(decoded.view(np.uint32), a.observation.view(np.uint32))
        assert np.array_equal(a.legal_mask, b.legal_mask)
        final = (b.info["final_observation"] / compact.observation_divisors).astype(np.float32)
        assert np.array_equal(final.view(np.uint32), a.info["final_observation"].view(np.uint32))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in a.legal_mask])
        a, b = floats.step(actions), compact.step(actions)


def test_the_same_env_plays_the_same_games_in_any_batch() -> None:
    """Environments 0..7 in one batch, or as 0..2 and 3..7: the same trajectories for the same actions."""
    whole = rl.make("kaiser", num_envs=8, seed=99, seats=[0], opponents="rules")
    parts = [rl.make("kaiser", num_envs=3, seed=99, seats=[0], opponents="rules"),
             rl.make("kaiser", num_envs=5, seed=99, seats=[0], opponents="rules", first_env=3)]
    rng = np.random.default_rng(5)
    step = whole.reset()
    pieces = [part.reset() for part in parts]
    for _ in range(100):
        joined = [np.concatenate([getattr(piece, name) for piece in pieces])
                  for name in ("observation", "legal_mask", "current_player", "rewards", "terminated")]
        for name, value in zip(("observation", "legal_mask", "current_player", "rewards", "terminated"),
                               joined, strict=True):
            assert np.array_equal(getattr(step, name), value), name
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in step.legal_mask])
        step = whole.step(actions)
        pieces = [parts[0].step(actions[:3]), parts[1].step(actions[3:])]
    again = rl.make("kaiser", num_envs=8, seed=99, seats=[0], opponents="rules").reset()
    assert np.array_equal(again.observation, whole.reset().observation)


def test_max_steps_truncates_and_restarts() -> None:
    env = rl.make("kaiser", num_envs=2, seed=1, max_steps=3)
    step = env.reset()
    for count in range(1, 7):
        step = env.step(np.array([np.flatnonzero(m)[0] for m in step.legal_mask]))
        assert step.truncated.tolist() == [count % 3 == 0] * 2
        assert not step.terminated.any() and not step.rewards.any()


@pytest.mark.slow  # compiles the batch with ISMCTS in the house
def test_search_opponents_run_inside_the_batch() -> None:
    env = rl.make("kaiser", num_envs=2, seed=3, seats=[0], opponents="ismcts:simulations=20")
    run_lockstep(env, 30, seed=6)


# ---- bad input ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kaiser_env() -> rl.VectorEnv:
    return rl.make("kaiser", num_envs=4, seed=0)


def test_an_illegal_action_names_the_env_and_the_legal_ones_and_changes_nothing(kaiser_env) -> None:
    step = kaiser_env.reset()
    before = [kaiser_env.state(i).array.copy() for i in range(4)]
    actions = np.array([np.flatnonzero(m)[0] for m in step.legal_mask])
    illegal = int(np.flatnonzero(~step.legal_mask[2])[0])
    actions[2] = illegal
    with pytest.raises(ValueError, match=rf"env 2: action {illegal} is not legal .*legal: "):
        kaiser_env.step(actions)
    assert all(np.array_equal(kaiser_env.state(i).array, before[i]) for i in range(4))
    kaiser_env.step(np.array([np.flatnonzero(m)[0] for m in step.legal_mask]))  # still usable


@pytest.mark.parametrize(("actions", "message"), [
    (np.zeros(3, dtype=np.int64), r"shape \(4,\)"),
    (np.zeros((4, 1), dtype=np.int64), r"shape \(4,\)"),
    (np.zeros(4, dtype=np.float64), "must be integers"),
    (np.zeros(4, dtype=bool), "must be integers"),
    (np.array([0, 0, 500, 0]), r"env 2: action 500 is not an action id"),
    (np.array([0, -1, 0, 0]), r"env 1: action -1 is not an action id"),
])
def test_malformed_actions_are_refused(kaiser_env, actions, message) -> None:
    kaiser_env.reset()
    with pytest.raises(ValueError, match=message):
        kaiser_env.step(actions)


@pytest.mark.parametrize(("arguments", "message"), [
    ({"num_envs": 0}, "num_envs must be"),
    ({"num_envs": -3}, "num_envs must be"),
    ({"num_envs": 2.5}, "num_envs must be"),
    ({"seed": -1}, "seed must be"),
    ({"seed": 2**64}, "seed must be"),
    ({"seats": [4]}, "seats must be"),
    ({"seats": []}, "at least one seat"),
    ({"seats": [0, 0]}, "each once"),
    ({"params": {"min_bid": 9}}, "min_bid"),
    ({"params": {"no_such": 1}}, "no parameter 'no_such'"),
    ({"seats": [0], "opponents": "py:os:system"}, "not a native agent"),
    ({"seats": [0], "opponents": "ismcts:time_ms=5"}, "not a native agent"),
    ({"seats": [0], "opponents": "nobody"}, "not a native agent"),
    ({"seats": [0], "opponents": ["rules", "rules"]}, "one agent per house seat"),
    ({"observation": "pixels"}, "observation must be"),
    ({"dtype": "float16"}, "dtype must be"),
])
def test_bad_arguments_are_refused_at_make(arguments, message) -> None:
    with pytest.raises(ValueError, match=message):
        rl.make("kaiser", **{"num_envs": 2, "seed": 0, **arguments})


def test_unknown_game_and_use_after_close() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        rl.make("chess")
    env = rl.make("kaiser", num_envs=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.array([0]))
    env.reset()
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.array([0]))
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()


def test_the_batch_state_is_small() -> None:
    env = rl.make("kaiser", num_envs=4096)
    assert env.state_bytes < 50e6
    assert game_spec("kaiser").kernel_id == 0
