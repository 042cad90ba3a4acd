"""The environments through the interfaces RL code already uses: Gymnasium, PettingZoo, OpenSpiel."""

from __future__ import annotations

import gymnasium
import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import cardlab  # noqa: F401  (registers the games)
from cardlab.rl.gym_env import CardGameEnv, CardGameVectorEnv
from cardlab.rl.pettingzoo_env import env as pettingzoo_env

GAMES = ["kaiser", "28", "literature"]


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_env_passes_the_env_checker(game: str) -> None:
    env = CardGameEnv(game, seat=1, opponents="rules")
    check_env(env, skip_render_check=False)


def test_gymnasium_env_plays_whole_games_against_the_house() -> None:
    env = gymnasium.make("cardlab/Kaiser-v0", seat=2, opponents="random")
    rng = np.random.default_rng(0)
    returns = []
    observation, info = env.reset(seed=3)
    for _ in range(20):
        done = False
        while not done:
            assert observation in env.observation_space
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        returns.append(reward)
        observation, info = env.reset()
    assert any(r != 0 for r in returns)
    assert env.unwrapped.batch.episodes[0] == 20


def test_an_illegal_action_loses_the_game_or_raises() -> None:
    env = CardGameEnv("kaiser", seat=0)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and info["illegal_action"] and reward < 0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    _, info = env.reset()  # the forfeited game is abandoned for the next deal
    assert env.unwrapped.batch.episodes[0] == 1
    strict = CardGameEnv("kaiser", seat=0, illegal_action="raise")
    _, info = strict.reset(seed=1)
    with pytest.raises(ValueError, match=f"env 0: action {illegal} is not legal"):
        strict.step(illegal)


def test_gymnasium_vector_env_resets_in_the_same_step() -> None:
    env = gymnasium.make_vec("cardlab/TwentyEight-v0", num_envs=5, vectorization_mode="vector_entry_point",
                             seat=0, opponents="rules")
    assert isinstance(env.unwrapped, CardGameVectorEnv)
    observations, info = env.reset(seed=4)
    assert observations.shape == (5, env.single_observation_space.shape[0])
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]])
        observations, rewards, terminated, truncated, info = env.step(actions)
        assert observations in env.observation_space
        if terminated.any():
            finished += int(terminated.sum())
            assert info["_final_obs"].tolist() == terminated.tolist()
            for i in np.flatnonzero(terminated):
                assert info["final_obs"][i].shape == observations[i].shape
        assert not rewards[~terminated].any()
    assert finished > 0


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_aec_env_passes_the_api_test(game: str) -> None:
    api_test(pettingzoo_env(game=game), num_cycles=300)


def test_pettingzoo_rewards_are_the_returns_of_the_game() -> None:
    env = pettingzoo_env(game="kaiser", seed=5)
    env.reset(seed=5)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        legal = np.flatnonzero(observation["action_mask"])
        action = None if terminated or truncated else int(rng.choice(legal))
        env.step(action)
    final = env.unwrapped._final
    assert [totals[a] for a in env.possible_agents] == final.returns()
    assert sum(totals.values()) == 0


def test_openspiel_rl_environment_steps_the_games() -> None:
    from open_spiel.python import rl_environment

    for name in ("cardlab_kaiser", "cardlab_twenty_eight", "cardlab_literature"):
        env = rl_environment.Environment(pyspiel.load_game(name))
        rng = np.random.default_rng(0)
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            legal = time_step.observations["legal_actions"][player]
            time_step = env.step([int(rng.choice(legal))])
        assert sum(time_step.rewards) == 0


@pytest.mark.slow  # three thousand episodes of OpenSpiel Python agents
def test_openspiel_tabular_q_learning_improves_on_a_small_game() -> None:
    """OpenSpiel's own tabular Q-learner, through its rl_environment, on one-card Kaiser.

    Two learners (seats 0 and 2, a team) train against two random seats for three
    thousand episodes; greedy, they then score clearly more than random play does (random
    play: about 0.5 points a deal, the learners about 3).
    """
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import random_agent, tabular_qlearner

    game = pyspiel.load_game("cardlab_kaiser", {"hand_size": 1})
    env = rl_environment.Environment(game, seed=1)
    actions = env.action_spec()["num_actions"]
    learners = {seat: tabular_qlearner.QLearner(player_id=seat, num_actions=actions, step_size=0.1)
                for seat in (0, 2)}
    randoms = {seat: random_agent.RandomAgent(player_id=seat, num_actions=actions) for seat in range(4)}

    def play(agents: dict, episodes: int, learn: bool) -> float:
        total = 0.0
        for _ in range(episodes):
            time_step = env.reset()
            while not time_step.last():
                player = time_step.observations["current_player"]
                output = agents[player].step(time_step, is_evaluation=not learn)
                time_step = env.step([output.action])
            for agent in agents.values():
                agent.step(time_step, is_evaluation=not learn)
            total += time_step.rewards[0]
        return total / episodes

    np.random.seed(7)
    baseline = play(randoms, 1000, learn=False)
    play({**randoms, **learners}, 3000, learn=True)
    np.random.seed(7)
    trained = play({**randoms, **learners}, 1000, learn=False)
    assert trained > baseline + 1.0
