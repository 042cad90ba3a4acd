"""Training and judging hand-inference models: ``cardlab train --algo holders``.

A position is a decision of a game the teacher (``rules``) plays against
itself: the mover's observation, and for each card in another hand the seat
holding it (:func:`cardlab.agents.inference.card_holders`), the label. The
model learns the cross-entropy of those labels under its per-card softmax
over the seats that hold cards (:func:`holder_loss`), each card one
classification; one network learns every seat's view (each relative to its
observer).

It is judged against what a searcher without it believes: the
*uniform-over-consistent-worlds sampler* (``kernels.resample``, the worlds
ISMCTS and PIMC draw), whose probability that a seat holds a card is the
share of its worlds that put the card there (:func:`sampler_log_beliefs`,
smoothed so that no held card gets probability zero: the smoothing that
scores the sampler best is the one reported). The measure is the mean log-loss
per hidden card, in nats, on positions of games the model never saw.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pyspiel
from numba import njit

from cardlab.agents.inference import card_holders, holder_log_beliefs, holding_seats
from cardlab.agents.network import NetworkModel, flat_weights, holder_outputs
from cardlab.core.rng import make_stream
from cardlab.games import game_spec, kernels
from cardlab.learn.network import ILLEGAL_LOGIT, Params, apply
from cardlab.learn.rollouts import Collector, Teacher

#: Worlds the sampler draws per position to estimate its beliefs.
SAMPLER_DRAWS = 256
#: The sampler's smoothing: a pseudo-count per (card, holding seat); the best of these is reported.
SMOOTHING = (0.01, 0.03, 0.1, 0.3, 1.0)


@njit(cache=True)
def label_positions(game, states, players, holders, holding):
    """For each state: the column of the seat holding each card in another hand (-1 for none,
    :func:`card_holders`) and which of the seats after the mover hold cards."""
    for i in range(states.shape[0]):
        card_holders(game, states[i], players[i], holders[i])
        holding_seats(game, states[i], players[i], holding[i])


@dataclass
class Positions:
    """Decisions of teacher self-play, labelled: compact observations, holders, holding seats, and
    the engine states and movers (for the sampler)."""

    observations: np.ndarray
    holders: np.ndarray
    holding: np.ndarray
    states: np.ndarray
    players: np.ndarray

    def __len__(self) -> int:
        return len(self.players)


def labelled_step(collector: Collector, teacher: Teacher, kernel_id: int, cards: int, others: int
                  ) -> Positions:
    """The decision in every environment of ``collector``, labelled; then the teacher's move there."""
    observations, _, players = collector.observation()
    states = collector.states()
    holders = np.empty((len(players), cards), dtype=np.int64)
    holding = np.empty((len(players), others), dtype=np.bool_)
    label_positions(kernel_id, states, players, holders, holding)
    collector.step(collector.framed(teacher.actions(states)))
    return Positions(observations, holders.astype(np.int8), holding, states, players)


def collect_positions(game: pyspiel.Game, count: int, seed: int, teacher: str = "rules",
                      num_envs: int = 256, stride: int = 5) -> Positions:
    """``count`` labelled positions of ``teacher``'s self-play under ``seed``: every ``stride``-th
    decision of ``num_envs`` games at a time (so that every phase of the game is in)."""
    spec = game_spec(game.get_type().short_name)
    cards, others = holder_outputs(game)
    collector = Collector(game, num_envs, seed, None, "absolute")
    player = Teacher(teacher, game, num_envs, seed + 1)
    collector.reset(seed)
    parts, total, step = [], 0, 0
    try:
        while total < count:
            part = labelled_step(collector, player, spec.kernel_id, cards, others)
            if step % stride == 0:
                parts.append(part)
                total += len(part)
            step += 1
    finally:
        collector.close()
    return Positions(*(np.concatenate([getattr(p, name) for p in parts])[:count]
                       for name in Positions.__dataclass_fields__))


# ---- the two beliefs ---------------------------------------------------------------------------------
@njit(cache=True)
def _sampled_holder_counts(game, states, players, draws, stream, counts):
    """``counts[i, c, k]``: of ``draws`` worlds the sampler draws for position ``i``, how many put
    card ``c`` with the seat ``k + 1`` after its mover."""
    holders = np.empty(counts.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        for _ in range(draws):
            world = kernels.resample(game, states[i], players[i], stream)
            card_holders(game, world, players[i], holders)
            for c in range(counts.shape[1]):
                if holders[c] >= 0:
                    counts[i, c, holders[c]] += 1


def sampler_counts(game: pyspiel.Game, positions: Positions, draws: int = SAMPLER_DRAWS,
                   seed: int = 0) -> np.ndarray:
    """How often the game's consistent sampler puts each card with each seat (:func:`sampler_log_beliefs`)."""
    cards, others = holder_outputs(game)
    counts = np.zeros((len(positions), cards, others), dtype=np.int32)
    _sampled_holder_counts(game_spec(game.get_type().short_name).kernel_id, positions.states,
                           positions.players, draws, make_stream(seed), counts)
    return counts


def sampler_log_beliefs(counts: np.ndarray, holding: np.ndarray, smoothing: float) -> np.ndarray:
    """The sampler's log-probability of each card at each holding seat: its share of the worlds,
    each (card, holding seat) given ``smoothing`` worlds more."""
    smoothed = np.where(holding[:, None, :], counts + smoothing, 0.0)
    totals = np.broadcast_to(smoothed.sum(axis=2, keepdims=True), smoothed.shape)
    shares = np.divide(smoothed, totals, out=np.zeros_like(smoothed), where=totals > 0)  # no hand left: 0
    with np.errstate(divide="ignore"):
        return np.log(shares)


@njit(cache=True)
def _model_log_beliefs(game, weights, shape, states, players, out):
    for i in range(states.shape[0]):
        holder_log_beliefs(game, weights, shape, states[i], players[i], out.shape[1], out.shape[2], out[i])


def model_log_beliefs(game: pyspiel.Game, model: NetworkModel, positions: Positions) -> np.ndarray:
    """The model's log-probability of each card at each seat after the mover, at every position."""
    cards, others = holder_outputs(game)
    out = np.empty((len(positions), cards, others), dtype=np.float64)
    _model_log_beliefs(game_spec(game.get_type().short_name).kernel_id, *flat_weights(model),
                       positions.states, positions.players, out)
    return out


def log_loss(log_beliefs: np.ndarray, holders: np.ndarray) -> float:
    """The mean, over every card in another hand at every position, of minus the log-probability
    ``log_beliefs`` gives to the seat that holds it (nats per card)."""
    held = holders >= 0
    rows, cards = np.nonzero(held)
    return float(-log_beliefs[rows, cards, holders[rows, cards]].mean())


@dataclass(frozen=True)
class HolderScore:
    """A hand-inference model against the consistent sampler on the same positions."""

    positions: int
    cards: int  # hidden cards scored, over all positions
    model: float  # log-loss, nats per hidden card
    sampler: float
    smoothing: float  # the sampler's best smoothing
    draws: int

    def to_json(self) -> dict[str, float]:
        return {"positions": self.positions, "hidden_cards": self.cards, "log_loss": round(self.model, 5),
                "sampler_log_loss": round(self.sampler, 5), "sampler_smoothing": self.smoothing,
                "sampler_draws": self.draws}


def sampler_score(counts: np.ndarray, positions: Positions) -> tuple[float, float]:
    """The sampler's log-loss at its best smoothing, and that smoothing."""
    scores = [(log_loss(sampler_log_beliefs(counts, positions.holding, a), positions.holders), a)
              for a in SMOOTHING]
    return min(scores)


def score_holders(game: pyspiel.Game, model: NetworkModel, positions: Positions,
                  sampler: tuple[float, float], draws: int = SAMPLER_DRAWS) -> HolderScore:
    """The model's log-loss on ``positions``, beside the sampler's (:func:`sampler_score`)."""
    return HolderScore(len(positions), int((positions.holders >= 0).sum()),
                       log_loss(model_log_beliefs(game, model, positions), positions.holders),
                       sampler[0], sampler[1], draws)


# ---- the loss --------------------------------------------------------------------------------------
def holder_loss(params: Params, batch: dict[str, jax.Array], settings: object) -> tuple[jax.Array, dict]:
    """The cross-entropy of each hidden card's holder under the per-card softmax over holding seats."""
    logits, _ = apply(params, batch["x"])
    holders, holding = batch["holders"].astype(jnp.int32), batch["holding"]
    logits = logits.reshape(holders.shape[0], holders.shape[1], holding.shape[1])
    log_beliefs = jax.nn.log_softmax(jnp.where(holding[:, None, :], logits, ILLEGAL_LOGIT), axis=-1)
    chosen = jnp.take_along_axis(log_beliefs, jnp.maximum(holders, 0)[..., None], axis=-1)[..., 0]
    held = holders >= 0
    loss = -jnp.where(held, chosen, 0.0).sum() / jnp.maximum(held.sum(), 1)
    guessed = jnp.where(held, jnp.argmax(log_beliefs, axis=-1) == holders, False)
    return loss, {"loss": loss, "accuracy": guessed.sum() / jnp.maximum(held.sum(), 1)}
