"""The committed hand-inference models against the uniform-over-consistent-worlds sampler.

    python -m experiments.hand_inference --games kaiser 28 literature --positions 4000 --seed 2027 \\
        --out experiments/results/hand-inference.json

For each game: ``--positions`` decisions of the rule-based player's self-play
(every fifth decision of 256 games at a time, a seed the training never saw:
it measured on ``--eval-seed`` 20240601), and for each the true seat of every
card in another hand. Scores the model committed for the game
(``cardlab/agents/models/<game>_holders.npz``) and the game's consistent
sampler (``kernels.resample``, 256 worlds per position, at the smoothing
that scores it best), and, for scale, the uniform belief over the seats that
hold cards: the mean log-loss per hidden card in nats, and the model's
advantage over the sampler with a 95% bootstrap interval over positions
(2,000 resamples). Writes them with the command and each model's training
record to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import cardlab  # noqa: F401
from cardlab.agents.ismcts.bot import beliefs_path
from cardlab.agents.network import load_model
from cardlab.games import game_spec

#: Bootstrap resamples of the positions for the advantage's interval.
BOOTSTRAP = 2000


def per_position_losses(log_beliefs: np.ndarray, holders: np.ndarray) -> np.ndarray:
    """Each position's summed log-loss over its hidden cards (0 where it has none)."""
    held = holders >= 0
    columns = np.maximum(holders, 0)[..., None].astype(np.int64)
    picked = np.take_along_axis(log_beliefs, columns, axis=2)[..., 0]
    return -np.where(held, picked, 0.0).sum(axis=1)


def compare(game_alias: str, positions_count: int, seed: int) -> dict:
    """The model, the sampler and the uniform belief on the same held-out positions of ``game_alias``."""
    from cardlab.learn.holders import (
        SAMPLER_DRAWS,
        collect_positions,
        model_log_beliefs,
        sampler_counts,
        sampler_log_beliefs,
        sampler_score,
    )

    spec = game_spec(game_alias)
    game = spec.load()
    path = beliefs_path(None, game)
    model = load_model(path, game, head="holders")
    positions = collect_positions(game, positions_count, seed)
    counts = sampler_counts(game, positions, seed=seed)
    sampler_loss, smoothing = sampler_score(counts, positions)
    cards = (positions.holders >= 0).sum(axis=1)
    model_losses = per_position_losses(model_log_beliefs(game, model, positions), positions.holders)
    sampler_losses = per_position_losses(sampler_log_beliefs(counts, positions.holding, smoothing),
                                         positions.holders)
    holding = positions.holding[:, None, :].repeat(counts.shape[1], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        uniform = np.log(np.where(holding, 1.0, 0.0) / holding.sum(axis=2, keepdims=True))
    uniform_losses = per_position_losses(uniform, positions.holders)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(positions), size=(BOOTSTRAP, len(positions)))
    advantage = ((sampler_losses[draws].sum(axis=1) - model_losses[draws].sum(axis=1))
                 / cards[draws].sum(axis=1))
    training = model.metadata["training"]
    return {"game": spec.name, "positions": len(positions), "hidden_cards": int(cards.sum()), "seed": seed,
            "log_loss": {"model": round(float(model_losses.sum() / cards.sum()), 5),
                         "sampler": round(float(sampler_loss), 5),
                         "uniform_over_holding_seats": round(float(uniform_losses.sum() / cards.sum()), 5)},
            "sampler": {"draws": SAMPLER_DRAWS, "smoothing": smoothing},
            "model_advantage_nats_per_card": round(float((sampler_losses.sum() - model_losses.sum())
                                                         / cards.sum()), 5),
            "ci95": [round(float(x), 5) for x in np.percentile(advantage, [2.5, 97.5])],
            "model": {"file": f"cardlab/agents/models/{path.name}", "commit": model.metadata.get("commit"),
                      "positions": training["progress"]["decisions"],
                      "cpu_seconds": training["progress"]["cpu_seconds"], "zoo": model.metadata.get("zoo")}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kaiser", "28", "literature"])
    parser.add_argument("--positions", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    results = [compare(game, args.positions, args.seed) for game in args.games]
    command = "python -m experiments.hand_inference " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.write_text(json.dumps({"command": command, "games": results}, indent=2) + "\n")
    for result in results:
        losses, (low, high) = result["log_loss"], result["ci95"]
        print(f"{result['game']}: log-loss per hidden card, model {losses['model']:.4f}, sampler "
              f"{losses['sampler']:.4f}, uniform {losses['uniform_over_holding_seats']:.4f}; model better by "
              f"{result['model_advantage_nats_per_card']:+.4f} [{low:+.4f}, {high:+.4f}] nats over "
              f"{result['positions']} positions ({result['hidden_cards']} hidden cards)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
