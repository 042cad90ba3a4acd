"""Gymnasium faces of the batched environments: one seat against the house, one game or a batch.

:class:`CardGameEnv` is a ``gymnasium.Env``: the learner plays one seat, and
the other seats are played inside numba by native agents (``opponents``).
:class:`CardGameVectorEnv` is a ``gymnasium.vector.VectorEnv`` over a whole
batch (:class:`cardlab.rl.VectorEnv`), resetting a finished game in the same
step (``AutoresetMode.SAME_STEP``: the last observation of a finished game is
in ``info["final_obs"]``). Both give the legal actions as ``info["action_mask"]``
and through ``action_masks()`` (the convention of sb3-contrib's MaskablePPO).

Registered ids: ``cardlab/Kaiser-v0``, ``cardlab/TwentyEight-v0``,
``cardlab/Literature-v0`` (``gymnasium.make`` and ``gymnasium.make_vec`` take the
keyword arguments of these classes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from cardlab.games import SPECS, kernels
from cardlab.rl.vector import Opponents, VectorEnv

#: What :class:`CardGameEnv` does with an illegal action: ``"lose"`` ends the game as a loss by the
#: most the game can lose (the convention of PettingZoo's TerminateIllegalWrapper), ``"raise"`` raises
#: ``ValueError``.
ILLEGAL_ACTIONS = ("lose", "raise")


def observation_box(env: VectorEnv) -> spaces.Box:
    """The observation space: flags in [0, 1], a ratio within what the compact int16 tensor can hold."""
    ratio = env.observation_divisors != 1.0
    limits = np.iinfo(np.int16)
    low = np.where(ratio, limits.min, 0).astype(np.float64)
    high = np.where(ratio, limits.max, 1).astype(np.float64)
    if env.observation_dtype == np.float32:
        low, high = low / env.observation_divisors, high / env.observation_divisors
    return spaces.Box(low.astype(env.observation_dtype), high.astype(env.observation_dtype),
                      dtype=env.observation_dtype)


class CardGameEnv(gymnasium.Env):
    """One seat of one game against the house (native agents inside numba).

    ``reward`` is the seat's return at the end of the game, 0 before;
    ``info["action_mask"]`` the legal actions. The other arguments are those
    of :func:`cardlab.rl.make`.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str = "kaiser", seat: int = 0, opponents: Opponents = "rules",
                 params: Mapping[str, Any] | None = None, observation: str = "observation",
                 dtype: str = "float32", illegal_action: str = "lose", seed: int = 0,
                 render_mode: str | None = None):
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.batch = VectorEnv(game, 1, seed, params, seats=[seat], opponents=opponents,
                               observation=observation, dtype=dtype)
        self.seat = self.batch.open_seats[0]
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = observation_box(self.batch)
        self.action_space = spaces.Discrete(self.batch.num_actions)
        self._step = None  # the batch's current step: the learner's decision
        self._game_over = False  # the last step ended a game (the batch has started the next)
        self._forfeited = False  # the last step forfeited a game by an illegal action

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._step = self.batch.reset(seed=int(seed))
        elif self._step is None:
            self._step = self.batch.reset()
        elif self._forfeited or not self._game_over:  # a game left unfinished is abandoned
            self._step = self.batch.reset(envs=[0])
        self._game_over = self._forfeited = False
        return self._step.observation[0].copy(), self._info(self._step)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._step is None:
            raise RuntimeError("step before reset: call reset() first")
        if self._game_over:
            raise RuntimeError("the game is over: call reset() first")
        mask = self._step.legal_mask[0]
        if not isinstance(action, int | np.integer) or isinstance(action, bool) \
                or not 0 <= action < mask.shape[0] or not mask[action]:
            if self.illegal_action == "raise":
                self.batch.step(np.array([action]))  # raises ValueError naming the action and the legal ones
            self._game_over = self._forfeited = True
            bound = kernels.utility_scale(self.batch.spec.kernel_id, self.batch.state(0).array)
            info = {**self._info(self._step), "illegal_action": True}
            return self._step.observation[0].copy(), -float(bound), True, False, info
        step = self.batch.step(np.array([action]))
        ended = bool(step.terminated[0] or step.truncated[0])
        observation = (step.info["final_observation"][0] if ended else step.observation[0]).copy()
        info = self._info(step)
        if ended:
            info["action_mask"] = np.zeros_like(step.legal_mask[0])
        self._step, self._game_over = step, ended
        return observation, float(step.rewards[0, self.seat]), bool(step.terminated[0]), \
            bool(step.truncated[0]), info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the current decision (none once the game is over)."""
        if self._step is None or self._game_over:
            return np.zeros(self.batch.num_actions, dtype=bool)
        return self._step.legal_mask[0].copy()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._step is None:
            return None
        return self.batch.state(0).observation_string(self.seat)

    def _info(self, step: Any) -> dict[str, Any]:
        return {"action_mask": step.legal_mask[0].copy(), "episode": int(step.info["episodes"][0])}


class CardGameVectorEnv(gymnasium.vector.VectorEnv):
    """A batch of games, one seat each against the house, as a Gymnasium vector environment.

    ``rewards[i]`` is the seat's return of a game env ``i`` finished this step.
    An illegal action raises ``ValueError`` naming the env (train with the
    masks in ``info["action_mask"]``). The other arguments are those of
    :func:`cardlab.rl.make`.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str = "kaiser", num_envs: int = 1, seat: int = 0, opponents: Opponents = "rules",
                 params: Mapping[str, Any] | None = None, observation: str = "observation",
                 dtype: str = "float32", seed: int = 0, first_env: int = 0):
        self.batch = VectorEnv(game, num_envs, seed, params, seats=[seat], opponents=opponents,
                               observation=observation, dtype=dtype, first_env=first_env)
        self.seat = self.batch.open_seats[0]
        self.num_envs = self.batch.num_envs
        self.single_observation_space = observation_box(self.batch)
        self.single_action_space = spaces.Discrete(self.batch.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space,
                                                                    self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.batch.num_actions))
        self._step = None

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            self._np_random, _ = gymnasium.utils.seeding.np_random(seed)
        self._step = self.batch.reset(seed=None if seed is None else int(seed))
        return self._step.observation, {"action_mask": self._step.legal_mask}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                   dict[str, Any]]:
        if self._step is None:
            raise RuntimeError("step before reset: call reset() first")
        step = self.batch.step(actions)
        info: dict[str, Any] = {"action_mask": step.legal_mask}
        ended = step.info["final_env"]
        if ended.size:
            final = np.full(self.num_envs, None, dtype=object)
            for row, env in enumerate(ended):
                final[env] = step.info["final_observation"][row]
            done = np.zeros(self.num_envs, dtype=bool)
            done[ended] = True
            info |= {"final_obs": final, "_final_obs": done}
        self._step = step
        return step.observation, step.rewards[:, self.seat].copy(), step.terminated, step.truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of every env's current decision, ``[num_envs, actions]``."""
        if self._step is None:
            raise RuntimeError("action_masks before reset: call reset() first")
        return self._step.legal_mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        self.batch.close()


#: Gymnasium's id of each game, from its title (``cardlab/Kaiser-v0``, ``cardlab/TwentyEight-v0``).
ENV_IDS = {f"cardlab/{spec.title.replace('-', '')}-v0": spec.aliases[0] for spec in SPECS}


def register() -> None:
    """Register every game with Gymnasium (done on import of this module)."""
    for env_id, game in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=CardGameEnv, kwargs={"game": game},
                               vector_entry_point=CardGameVectorEnv, disable_env_checker=False)


register()
