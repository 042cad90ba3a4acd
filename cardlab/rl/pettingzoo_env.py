"""PettingZoo's AEC (agent-environment cycle) face of a game: every seat an agent.

As in PettingZoo's classic card games, each agent's observation is a dict of
``"observation"`` (the game's observation tensor for that seat) and
``"action_mask"`` (int8, 1 for a legal action of the agent to move), and the
rewards are the game's returns at the end. The game is stepped by the numba
engine (a :class:`cardlab.rl.VectorEnv` of one environment with every seat
open); the observation of a seat not to move comes from the OpenSpiel state.

The parallel API does not fit: the three games are strictly turn-based, so at
every step one agent acts; ``is_parallelizable`` is False.

``env(game="kaiser", ...)`` returns the environment wrapped in PettingZoo's
order-enforcing and bounds-checking wrappers, ``raw_env`` the bare one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cardlab.rl.gym_env import observation_box
from cardlab.rl.vector import VectorEnv


class CardGameAEC(AECEnv):
    """A cardlab game with one PettingZoo agent per seat (``player_0``, ``player_1``, ...)."""

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: str = "kaiser", params: Mapping[str, Any] | None = None,
                 observation: str = "observation", dtype: str = "float32", seed: int = 0,
                 render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.batch = VectorEnv(game, 1, seed, params, observation=observation, dtype=dtype)
        self.metadata = {**self.metadata, "name": f"{self.batch.spec.name}_v0"}
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.batch.num_players)]
        box = observation_box(self.batch)
        mask = spaces.Box(0, 1, shape=(self.batch.num_actions,), dtype=np.int8)
        self.observation_spaces = {agent: spaces.Dict({"observation": box, "action_mask": mask})
                                   for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(self.batch.num_actions)
                              for agent in self.possible_agents}
        self._step = None
        self._final = None  # the OpenSpiel state of a finished game

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._step = self.batch.reset(seed=int(seed))
        elif self._step is None:
            self._step = self.batch.reset()
        elif self._final is None:  # a game left unfinished is abandoned
            self._step = self.batch.reset(envs=[0])
        self._final = None
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[int(self._step.current_player[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.batch.num_actions, dtype=np.int8)
        if self._final is not None:
            state = self._final
        else:
            state = self.batch.state(0)
            if seat == self._step.current_player[0]:
                mask[self._step.legal_mask[0]] = 1
                return {"observation": self._step.observation[0].copy(), "action_mask": mask}
        return {"observation": self._tensor(state, seat), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        step = self.batch.step(np.array([action]))
        self._cumulative_rewards[agent] = 0.0
        if step.terminated[0]:
            self._final = self.batch.game.state_class(self.batch.game, step.info["final_state"][0].copy())
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = float(step.rewards[0, seat])
                self.terminations[name] = True
        else:
            self.agent_selection = self.possible_agents[int(step.current_player[0])]
        self._step = step
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._step is None:
            return None
        return str(self._final if self._final is not None else self.batch.state(0))

    def close(self) -> None:
        self.batch.close()

    def _tensor(self, state: Any, seat: int) -> np.ndarray:
        values = state.information_state_tensor(seat) if self.batch.perfect_recall \
            else state.observation_tensor(seat)
        tensor = np.asarray(values, dtype=np.float32)
        if self.batch.observation_dtype != np.float32:  # compact: the counts behind the ratios
            tensor = np.rint(tensor.astype(np.float64) * self.batch.observation_divisors)
        return tensor.astype(self.batch.observation_dtype)


def raw_env(**kwargs: Any) -> CardGameAEC:
    """The bare AEC environment (arguments of :class:`CardGameAEC`)."""
    return CardGameAEC(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment in PettingZoo's usual wrappers (bounds, order of calls)."""
    wrapped = wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs))
    return wrappers.OrderEnforcingWrapper(wrapped)
