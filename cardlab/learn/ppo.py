"""The learning steps: PPO with action masks, and imitation of a teacher agent (behaviour cloning).

**PPO** (Schulman et al. 2017) with the illegal actions masked out of the
softmax (Huang and Ontañón 2020: "A Closer Look at Invalid Action Masking"):
the clipped surrogate of the policy ratio on GAE advantages, a value loss on
the games' returns, an entropy bonus, Adam with the gradient's global norm
clipped. One network plays every seat (parameter sharing: each seat sees the
game from its own side, the tensors are relative to the observer), so a
self-play game gives four (or six) seats' decisions to learn from.

**Imitation** (``bc``): the cross-entropy of the teacher's action under the
masked policy, and the same value loss on the returns of the teacher's games,
which is the warm start of AlphaStar and Suphx: a network that plays like the
rule-based player before self-play improves on it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from cardlab.learn.holders import holder_loss
from cardlab.learn.network import Params, apply, masked_log_policy


@dataclass(frozen=True)
class Settings:
    """The learning run's numbers (``cardlab train --algo ppo|bc --set key=value``)."""

    num_envs: int = 512  # games stepped together
    rollout: int = 32  # decisions per game between two looks for finished games
    batch: int = 32768  # finished decisions that make one update (at least)
    minibatch: int = 4096  # decisions per gradient step
    epochs: int = 3  # passes over an update's decisions
    learning_rate: float = 3e-4
    clip: float = 0.2  # PPO's ratio clip
    entropy: float = 0.01  # weight of the policy's entropy bonus
    value_weight: float = 0.5  # weight of the value loss
    trace: float = 0.95  # GAE's lambda
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (256, 256)
    #: bc: the chance that a decision plays a uniformly random legal action instead of the
    #: teacher's, so that the value head also learns positions the teacher never reaches (a
    #: search's leaves: a bid of 12 no-trump); the policy still learns the teacher's move
    explore: float = 0.0
    #: bc: the chance that a decision plays the learner's own move (drawn from its policy) instead
    #: of the teacher's, its label still the teacher's: imitation on the states the learner's own
    #: play reaches (DAgger, Ross et al. 2011), where a long game's small errors compound
    own_moves: float = 0.0

    def to_json(self) -> dict[str, Any]:
        values = asdict(self)
        values["hidden"] = list(self.hidden)
        for later in ("explore", "own_moves"):  # as runs recorded them before they existed, to resume
            if not values[later]:
                del values[later]
        return values


#: Every setting, its type and its valid range.
RANGES: dict[str, tuple[type, float, float]] = {
    "num_envs": (int, 2, 1 << 16), "rollout": (int, 1, 4096), "batch": (int, 1, 1 << 24),
    "minibatch": (int, 1, 1 << 20), "epochs": (int, 1, 100), "learning_rate": (float, 1e-8, 1.0),
    "clip": (float, 0.0, 10.0), "entropy": (float, 0.0, 10.0), "value_weight": (float, 0.0, 100.0),
    "trace": (float, 0.0, 1.0), "max_grad_norm": (float, 1e-6, 1e6), "explore": (float, 0.0, 1.0),
    "own_moves": (float, 0.0, 1.0),
}


def make_settings(values: dict[str, Any]) -> Settings:
    """:class:`Settings` from ``key=value`` texts or values, each checked (``ValueError`` naming it)."""
    known = set(RANGES) | {"hidden"}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    checked: dict[str, Any] = {}
    for key, value in values.items():
        if key == "hidden":
            widths = value.split("x") if isinstance(value, str) else list(value)
            try:
                checked[key] = tuple(int(width) for width in widths)
            except (TypeError, ValueError):
                raise ValueError(f"hidden must be widths like 256x256, got {value!r}") from None
            continue
        kind, low, high = RANGES[key]
        try:
            number = kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"setting {key} must be {'an integer' if kind is int else 'a number'}, "
                             f"got {value!r}") from None
        if isinstance(value, bool) or not low <= number <= high or (kind is int and number != float(value)):
            raise ValueError(f"setting {key} must be in {low:g}..{high:g}, got {value!r}")
        checked[key] = number
    settings = Settings(**checked)
    if settings.minibatch > settings.batch:
        raise ValueError(f"minibatch ({settings.minibatch}) must not exceed batch ({settings.batch})")
    return settings


def optimizer(settings: Settings) -> optax.GradientTransformation:
    return optax.chain(optax.clip_by_global_norm(settings.max_grad_norm), optax.adam(settings.learning_rate))


def act(params: Params, x: jax.Array, mask: jax.Array, key: jax.Array) -> tuple[jax.Array, ...]:
    """Actions drawn from the masked policy, their log-probabilities, and the values."""
    logits, values = apply(params, x)
    log_policy = masked_log_policy(logits, mask)
    actions = jax.random.categorical(key, log_policy)
    return actions, jnp.take_along_axis(log_policy, actions[:, None], axis=1)[:, 0], values


def ppo_loss(params: Params, batch: dict[str, jax.Array], settings: Settings) -> tuple[jax.Array, dict]:
    logits, values = apply(params, batch["x"])
    log_policy = masked_log_policy(logits, batch["mask"])
    chosen = jnp.take_along_axis(log_policy, batch["actions"][:, None], axis=1)[:, 0]
    advantages = batch["advantages"]
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    ratio = jnp.exp(chosen - batch["log_probabilities"])
    surrogate = jnp.minimum(ratio * advantages,
                            jnp.clip(ratio, 1 - settings.clip, 1 + settings.clip) * advantages)
    policy_loss = -surrogate.mean()
    value_loss = 0.5 * ((values - batch["returns"]) ** 2).mean()
    entropy = -(jnp.where(batch["mask"], jnp.exp(log_policy) * log_policy, 0.0)).sum(axis=1).mean()
    loss = policy_loss + settings.value_weight * value_loss - settings.entropy * entropy
    return loss, {"loss": loss, "policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy,
                  "clipped": (jnp.abs(ratio - 1) > settings.clip).mean()}


def imitation_loss(params: Params, batch: dict[str, jax.Array], settings: Settings) -> tuple[jax.Array, dict]:
    logits, values = apply(params, batch["x"])
    log_policy = masked_log_policy(logits, batch["mask"])
    chosen = jnp.take_along_axis(log_policy, batch["actions"][:, None], axis=1)[:, 0]
    policy_loss = -chosen.mean()
    value_loss = 0.5 * ((values - batch["returns"]) ** 2).mean()
    loss = policy_loss + settings.value_weight * value_loss
    agreement = (jnp.argmax(jnp.where(batch["mask"], logits, -jnp.inf), axis=1) == batch["actions"]).mean()
    return loss, {"loss": loss, "policy_loss": policy_loss, "value_loss": value_loss, "agreement": agreement}


LOSSES = {"ppo": ppo_loss, "bc": imitation_loss, "holders": holder_loss}


class Learner:
    """The network's parameters and optimizer state, and the compiled steps that change them."""

    def __init__(self, algo: str, settings: Settings, params: Params):
        self.algo = algo
        self.settings = settings
        self.params = params
        self.optimizer = optimizer(settings)
        self.opt_state = self.optimizer.init(params)
        loss = LOSSES[algo]
        opt = self.optimizer

        def step(params: Params, opt_state: Any, batch: dict[str, jax.Array]) -> tuple:
            grads, stats = jax.grad(lambda p: loss(p, batch, settings), has_aux=True)(params)
            updates, opt_state = opt.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, stats

        self._step = jax.jit(step)
        self._act = jax.jit(act)

    def act(self, x: np.ndarray, mask: np.ndarray, key: jax.Array) -> tuple[np.ndarray, ...]:
        actions, log_probabilities, values = self._act(self.params, x, mask, key)
        return np.asarray(actions, dtype=np.int64), np.asarray(log_probabilities), np.asarray(values)

    def train(self, batch: dict[str, np.ndarray], divisors: np.ndarray,
              rng: np.random.Generator) -> dict[str, float]:
        """``epochs`` passes over ``batch`` in shuffled minibatches (a partial last one is left out).

        ``batch["observations"]`` are compact counts: each minibatch's are divided by
        ``divisors`` into the float32 tensors the network reads.
        """
        size = len(batch["observations"])
        minibatch = self.settings.minibatch
        totals: dict[str, float] = {}
        count = 0
        for _ in range(self.settings.epochs):
            order = rng.permutation(size)
            for start in range(0, size - minibatch + 1, minibatch):
                rows = order[start:start + minibatch]
                part = {name: values[rows] for name, values in batch.items() if name != "observations"}
                part["x"] = (batch["observations"][rows] / divisors).astype(np.float32)
                self.params, self.opt_state, stats = self._step(self.params, self.opt_state, part)
                for name, value in stats.items():
                    totals[name] = totals.get(name, 0.0) + float(value)
                count += 1
        return {name: value / max(count, 1) for name, value in totals.items()}

    # -- checkpoints: the optimizer state as numbered arrays ---------------------------------------
    def optimizer_arrays(self) -> dict[str, np.ndarray]:
        leaves = jax.tree_util.tree_leaves(self.opt_state)
        return {f"state_optimizer_{i}": np.asarray(leaf) for i, leaf in enumerate(leaves)}

    def restore_optimizer(self, arrays: dict[str, np.ndarray]) -> None:
        """The optimizer state of :meth:`optimizer_arrays`; ``ValueError`` if it does not fit."""
        leaves, tree = jax.tree_util.tree_flatten(self.opt_state)
        names = [f"state_optimizer_{i}" for i in range(len(leaves))]
        if sorted(arrays) != sorted(names):
            raise ValueError(f"the optimizer state has {len(arrays)} arrays, this run's {len(leaves)}")
        restored = []
        for name, leaf in zip(names, leaves, strict=True):
            value = arrays[name]
            if value.shape != np.shape(leaf) or value.dtype != np.asarray(leaf).dtype:
                raise ValueError(f"optimizer array {name} is {value.dtype}{list(value.shape)}, not "
                                 f"{np.asarray(leaf).dtype}{list(np.shape(leaf))}")
            restored.append(jnp.asarray(value))
        self.opt_state = jax.tree_util.tree_unflatten(tree, restored)
