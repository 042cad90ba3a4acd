"""The policy-and-value network in JAX, and its conversion to and from the model files ``net`` plays.

The network is the one :mod:`cardlab.agents.network` runs in numba: ReLU
hidden layers over the observation tensor, a policy head of logits over
every action id and a value head (the mover's return over the game's
utility scale). Parameters are a dict of arrays named as in the model file,
so exporting is a copy (:func:`to_model`) and a model file is a starting
point (:func:`from_model`). ``link_inputs`` (the observation entry each
action's logit reads, Literature's) rides along as a constant: no gradient
reaches it, so Adam never moves it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from cardlab.agents.network import NetworkModel, array_shapes, make_model

Params = dict[str, jax.Array]

#: A logit that no softmax gives weight to: where the action is illegal.
ILLEGAL_LOGIT = -1e9


def init_params(key: jax.Array, inputs: int, hidden: tuple[int, ...], actions: int,
                links: np.ndarray | None = None) -> Params:
    """He-initialized hidden layers; a policy head near zero (a near-uniform first policy) and a
    small value head, both as in common PPO practice (orthogonal scales 0.01 and 1); with
    ``links`` (:func:`cardlab.agents.network.action_links`), their weights at zero."""
    params: Params = {}
    shapes = array_shapes(inputs, hidden, actions, 0 if links is None else links.shape[1])
    keys = jax.random.split(key, len(shapes))
    for (name, shape), subkey in zip(shapes.items(), keys, strict=True):
        if name == "link_inputs":
            params[name] = jnp.asarray(links)
        elif name.startswith("hidden_w"):
            params[name] = jax.random.normal(subkey, shape) * np.sqrt(2.0 / shape[0])
        elif name == "policy_w":
            params[name] = jax.random.normal(subkey, shape) * (0.01 / np.sqrt(shape[0]))
        elif name == "value_w":
            params[name] = jax.random.normal(subkey, shape) * (1.0 / np.sqrt(shape[0]))
        else:
            params[name] = jnp.zeros(shape)
    return {name: value.astype(jnp.float32) for name, value in params.items()}


def hidden_layers(params: Params) -> int:
    return sum(1 for name in params if name.startswith("hidden_w"))


def apply(params: Params, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Logits ``[batch, actions]`` and values ``[batch]`` of observations ``x`` ``[batch, inputs]``."""
    h = x
    for k in range(hidden_layers(params)):
        h = jax.nn.relu(h @ params[f"hidden_w{k}"] + params[f"hidden_b{k}"])
    logits = h @ params["policy_w"] + params["policy_b"]
    if "link_inputs" in params:  # each action's own entries of the observation, weighted
        entries = jax.lax.stop_gradient(params["link_inputs"]).astype(jnp.int32)
        linked = jnp.where(entries >= 0, x[:, jnp.maximum(entries, 0)], 0.0)  # [batch, actions, links]
        logits = logits + (linked * params["link_w"]).sum(axis=-1)
    return logits, h @ params["value_w"] + params["value_b"][0]


def masked_log_policy(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """Log-probabilities of the softmax over the legal actions (``mask``); illegal ones near -1e9."""
    return jax.nn.log_softmax(jnp.where(mask, logits, ILLEGAL_LOGIT), axis=-1)


def to_model(params: Params, metadata: dict[str, Any], state: dict[str, np.ndarray] | None = None
             ) -> NetworkModel:
    """The model file's contents for ``params``.

    ``metadata`` comes from :func:`~cardlab.agents.network.model_metadata`.
    """
    return make_model({name: np.asarray(value, dtype=np.float32) for name, value in params.items()},
                      metadata, state)


def from_model(model: NetworkModel) -> Params:
    """The parameters of a saved model."""
    return {name: jnp.asarray(value) for name, value in model.arrays.items()}
