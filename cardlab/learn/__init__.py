"""Learned agents: policy-and-value networks trained by self-play on the batched environments.

``cardlab train --algo ppo --game kaiser ...`` (:mod:`cardlab.learn.train`)
trains a network on :mod:`cardlab.rl` batches with JAX (the ``learn``
extra) and saves it as a model file that the ``net`` agent plays with its
forward pass in numba (:mod:`cardlab.agents.network`), no deep-learning
library needed. See docs/learning.md.
"""
