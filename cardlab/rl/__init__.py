"""Reinforcement-learning environments over cardlab's engines, at numba speed.

:func:`make` gives a batch of games stepped together inside numba
(:class:`VectorEnv`); :mod:`cardlab.rl.gym` wraps it for Gymnasium and
:mod:`cardlab.rl.pettingzoo` for PettingZoo. OpenSpiel's own
``rl_environment.Environment`` takes the games as they are. See docs/rl.md.
"""

from cardlab.rl.vector import Step, VectorEnv, make

__all__ = ["Step", "VectorEnv", "make"]
