"""Training runs of policy-and-value networks: ``cardlab train --algo ppo|bc --game G --steps N --out F``.

A run learns from ``steps`` decisions of games stepped in batches
(:mod:`cardlab.learn.rollouts`), an update each time ``batch`` decisions of
finished games are in (:mod:`cardlab.learn.ppo`). Its checkpoint is the model
file itself (:mod:`cardlab.agents.network`): playable as ``net:model=F`` at
any moment, with the optimizer's state and the run's record beside the
weights: settings, decisions, updates, CPU seconds, and the strength
measured against ``rules`` (or the ``eval_opponents``) on a fixed duplicate
set every ``eval_minutes``.

Seeded and resumable. A run is cut into *segments* that end at checkpoints:
a segment deals its games from ``derive_seed(seed, updates)`` (the updates
done when it starts) and draws the network's actions from a key of the same,
so a run depends only on its seed, its settings and where its checkpoints
fall; a checkpoint every ``checkpoint_every`` updates, and one wherever Ctrl-C
or SIGTERM stopped it. Resuming reads the checkpoint back and starts the next
segment there: a run stopped at a checkpoint and resumed gives the very
weights of a run that never stopped. Games still being played when a
segment ends are dropped (at most one game per environment a segment).
Checkpoints are written atomically, the one before kept beside it
(``run.previous.npz``), and a resume falls back to it if the latest is unreadable.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pyspiel
from tqdm import tqdm

from cardlab.agents.network import (
    NetworkModel,
    action_links,
    holder_outputs,
    load_model,
    model_metadata,
    save_model,
)
from cardlab.cfr.train import TrainingStopped
from cardlab.core.files import check_checkpoint_path, keep_previous, load_or_previous
from cardlab.core.interrupt import StopRequest
from cardlab.core.limits import check_count, check_seed
from cardlab.core.rng import derive_seed
from cardlab.learn.evaluate import duplicate_strength
from cardlab.learn.holders import (
    Positions,
    collect_positions,
    labelled_step,
    sampler_counts,
    sampler_score,
    score_holders,
)
from cardlab.learn.network import from_model, init_params, to_model
from cardlab.learn.ppo import Learner, Settings
from cardlab.learn.rollouts import Collector, Teacher, Transitions, episode_targets

ALGORITHMS = ("ppo", "bc", "holders")
#: The head each algorithm trains (:data:`cardlab.agents.network.HEADS`).
HEAD_OF = {"ppo": "policy", "bc": "policy", "holders": "holders"}
#: The algorithms whose games the teacher plays.
TAUGHT = ("bc", "holders")
#: The most decisions one run may learn from.
MAX_STEPS = 10**13
#: The starting weight of a hand-inference logit's first link, "this seat may hold this card" (Literature's
#: deductions): a seat ruled out starts at e ** -8 of the odds, as good as a mask, which training may move.
MAY_HOLD_WEIGHT = 8.0
#: Seeds of the parts of a run, drawn from its seed: so none repeats another's stream.
_TEACHER, _SHUFFLE, _POLICY, _EXPLORE, _OWN_MOVES = 1 << 40, 2 << 40, 3 << 40, 4 << 40, 5 << 40


@dataclass(frozen=True)
class Run:
    """What a training run is: the game, the algorithm and its numbers, what it plays against."""

    game: pyspiel.Game
    algo: str
    steps: int  # decisions to learn from, in all
    seed: int = 0
    settings: Settings = field(default_factory=Settings)
    opponents: str | None = None  # a native agent the learner plays against; None: self-play
    teacher: str = "rules"  # the agent ``bc`` imitates, whose games ``holders`` labels
    init: str | None = None  # a model file to start from
    checkpoint_every: int = 20  # updates between checkpoints
    eval_opponents: tuple[str, ...] = ("rules",)  # each measured against, on the same deals
    eval_deals: int = 500  # holders: held-out positions
    eval_minutes: float = 10.0  # at a checkpoint, measure if this long has passed since the last time
    eval_seed: int = 20240601

    def check(self) -> None:
        """Every number in its range, the algorithm known (``ValueError`` naming the bad one)."""
        if self.algo not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algo!r}; choose from {', '.join(ALGORITHMS)}")
        check_count(self.steps, "steps", MAX_STEPS)
        check_seed(self.seed, "the seed")
        check_seed(self.eval_seed, "the evaluation seed")
        check_count(self.checkpoint_every, "checkpoint_every", 10**9)
        if isinstance(self.eval_deals, bool) or self.eval_deals != 0:  # 0: never measure
            check_count(self.eval_deals, "eval_deals", 10**7)
        if not 0 <= self.eval_minutes <= 10**6:
            raise ValueError(f"eval_minutes must be in 0..1000000, got {self.eval_minutes!r}")
        if not self.eval_opponents:
            raise ValueError("give at least one agent to measure the model against")
        if self.algo == "holders" and self.opponents is not None:
            raise ValueError("--algo holders learns from the teacher's games: give no opponents")
        for name in ("explore", "own_moves"):
            if getattr(self.settings, name) and self.algo != "bc":
                raise ValueError(f"the setting {name} is for --algo bc (its teacher's games), "
                                 f"not {self.algo}")

    def identity(self) -> dict[str, Any]:
        """What a resumed run must share with the saved one, or its streams would fork."""
        return {"algo": self.algo, "seed": self.seed, "settings": self.settings.to_json(),
                "opponents": self.opponents, "teacher": self.teacher if self.algo in TAUGHT else None,
                "init": self.init, "checkpoint_every": self.checkpoint_every}


@dataclass
class Progress:
    """Where a run is: what the checkpoint records besides the weights."""

    decisions: int = 0  # decisions played (learnt from, or dropped with a segment's unfinished games)
    updates: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)  # strength measurements

    def to_json(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "updates": self.updates,
                "cpu_seconds": round(self.cpu_seconds, 1),
                "wall_seconds": round(self.wall_seconds, 1), "history": self.history}


def check_run_out(out: str | Path, resume: bool) -> None:
    check_checkpoint_path(out, resume, "model")


def load_checkpoint(out: str | Path, game: pyspiel.Game, head: str = "policy") -> NetworkModel:
    """The run saved in ``out``; if that file is unreadable, the previous checkpoint (said on stderr)."""
    return load_or_previous(out, lambda path: load_model(path, game, head))


class Trainer:
    """One run: the collector, the learner, and the run's progress, checkpointed into ``out``."""

    def __init__(self, run: Run, out: str | Path, resume: bool = False, command: str = ""):
        run.check()
        check_run_out(out, resume)
        self.run, self.out, self.command = run, Path(out), command
        settings = run.settings
        head = HEAD_OF[run.algo]
        start = load_model(run.init, run.game, head) if run.init is not None else None
        saved = load_checkpoint(out, run.game, head) if resume else None
        # A run goes on in the shape, action frame and links of the model it continues (a model
        # trained before the mover's frame and the links existed keeps its own); a new one has all.
        previous = saved if saved is not None else start
        hidden = settings.hidden if previous is None else previous.hidden
        frame = "mover" if previous is None else previous.action_frame
        links = previous is None or previous.links > 0
        self.collector = Collector(run.game, settings.num_envs, run.seed, run.opponents, frame)
        c = self.collector
        self.metadata = model_metadata(run.game, "observation", hidden, frame, links, head)
        self.progress = Progress()
        if resume:
            self._check_resumable(saved)
            params = from_model(saved)
        elif start is not None:
            params = from_model(start)
        else:
            params = init_params(jax.random.PRNGKey(int(derive_seed(run.seed, 0)) >> 33), c.inputs, hidden,
                                 self.metadata["actions"],
                                 action_links(run.game, head) if self.metadata["links"] else None)
            if head == "holders":  # no value to learn: its head stays zero (no gradient moves it)
                params["value_w"] = jax.numpy.zeros_like(params["value_w"])
                if self.metadata["links"]:  # a seat the deductions rule out starts ruled out
                    params["link_w"] = params["link_w"].at[:, 0].set(MAY_HOLD_WEIGHT)
        self.learner = Learner(run.algo, settings, params)
        if resume:
            try:
                self.learner.restore_optimizer(saved.state)
            except ValueError as error:
                raise ValueError(f"{out}: the saved run cannot be resumed ({error})") from None
        self.teacher = (Teacher(run.teacher, run.game, c.num_envs, int(derive_seed(run.seed, _TEACHER)))
                        if run.algo in TAUGHT else None)
        self.held_out: tuple[Positions, tuple[float, float]] | None = None  # holders: positions, sampler
        self.holder_outputs = holder_outputs(run.game)  # holders: (cards, other seats)
        self.buffer = Transitions.empty(settings.rollout * c.num_envs * 2, c.inputs, c.num_actions,
                                        c.num_players)
        self._last_eval = -np.inf
        self._last_stats: dict[str, float] = {}  # the latest update's statistics

    def _check_resumable(self, saved: NetworkModel) -> None:
        training = saved.metadata.get("training")
        if not isinstance(training, dict) or not isinstance(training.get("run"), dict):
            raise ValueError(f"{self.out}: not a training checkpoint (no run recorded); start from it "
                             "with --init instead")
        recorded, now = training["run"], self.run.identity()
        for key in now:
            if recorded.get(key) != now[key]:
                raise ValueError(f"{self.out}: the saved run used {key} {json.dumps(recorded.get(key))}, "
                                 f"not {json.dumps(now[key])}")
        try:
            progress = training["progress"]
            self.progress = Progress(int(progress["decisions"]), int(progress["updates"]),
                                     float(progress["cpu_seconds"]), float(progress["wall_seconds"]),
                                     list(progress["history"]))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{self.out}: the saved run's progress is unreadable ({error!r:.60})") from None

    # -- the loop -----------------------------------------------------------------------------------
    def train(self, progress: bool = True) -> NetworkModel:
        """Learn until ``steps`` decisions, checkpointing; Ctrl-C or SIGTERM saves and raises
        :class:`~cardlab.cfr.train.TrainingStopped`."""
        run, p = self.run, self.progress
        if p.decisions > run.steps:
            raise ValueError(f"{self.out}: the saved run has {p.decisions} decisions, more than the "
                             f"{run.steps} asked for")
        model = None
        description = f"{run.algo} {run.game.get_type().short_name}"
        with StopRequest() as stop, tqdm(total=run.steps, initial=p.decisions, unit="dec", unit_scale=True,
                                         disable=not progress, desc=description) as bar:
            while model is None or p.decisions < run.steps:
                stats = self._segment(bar, stop) or self._last_stats
                self._last_stats = stats
                model = self._checkpoint(stats, bar, final=p.decisions >= run.steps or stop.requested)
                if stop.requested:
                    raise TrainingStopped(self.out, p.decisions, run.steps, unit="decision")
        return model

    def _segment(self, bar: tqdm, stop: StopRequest) -> dict[str, float]:
        """Updates until the next checkpoint (or the end, or a stop); the last update's statistics."""
        run, p, c, buffer = self.run, self.progress, self.collector, self.buffer
        settings = run.settings
        first_update = p.updates
        c.reset(int(derive_seed(run.seed, first_update)))
        buffer.clear()
        key = jax.random.PRNGKey(int(derive_seed(run.seed, _POLICY + first_update)) >> 33)
        pool: list[dict[str, np.ndarray]] = []
        pooled = 0
        stats: dict[str, float] = {}
        step = 0
        while p.decisions < run.steps and not stop.requested:
            cpu, wall = time.process_time(), time.perf_counter()
            finished = self._collect(key, first_update, step)
            step += settings.rollout
            if len(finished["observations"]):
                pool.append(finished)
                pooled += len(finished["observations"])
            done = settings.rollout * c.num_envs
            p.decisions += done
            if pooled >= settings.batch:
                batch = {name: np.concatenate([part[name] for part in pool]) for name in pool[0]}
                rng = np.random.default_rng([run.seed, _SHUFFLE, p.updates])
                stats = self.learner.train(batch, c.divisors, rng)
                stats["decisions"] = float(pooled)
                pool, pooled = [], 0
                p.updates += 1
            p.cpu_seconds += time.process_time() - cpu
            p.wall_seconds += time.perf_counter() - wall
            bar.update(done)
            if stats:
                shown = ("loss", "entropy", "agreement", "accuracy")
                bar.set_postfix({name: f"{stats[name]:.3g}" for name in shown if name in stats}
                                | self._shown_strength(), refresh=False)
            if p.updates - first_update >= run.checkpoint_every:
                break
        return stats

    def _collect(self, key: jax.Array, first_update: int, step: int) -> dict[str, np.ndarray]:
        """``rollout`` decisions in every environment; what of them the learner learns from now:
        the decisions of the games that ended (ppo, bc), or every one labelled (holders)."""
        rollout = self.run.settings.rollout
        if self.run.algo == "holders":
            c = self.collector
            parts = [labelled_step(c, self.teacher, self.teacher.kernel_id, *self.holder_outputs)
                     for _ in range(rollout)]
            return {"observations": np.concatenate([p.observations for p in parts]),
                    "holders": np.concatenate([p.holders for p in parts]),
                    "holding": np.concatenate([p.holding for p in parts])}
        for at in range(step, step + rollout):
            self._play_one(jax.random.fold_in(key, at), (first_update, at))
        return self._finish_games()

    def _play_one(self, key: jax.Array, at: tuple[int, int]) -> None:
        """One decision in every environment: the learner's (PPO) or the teacher's (imitation).

        ``at`` (the segment's first update, the step in it) seeds imitation's
        exploring and own moves, so that they too depend only on where the run is.
        """
        c, buffer, settings = self.collector, self.buffer, self.run.settings
        observations, masks, players = c.observation()
        n = len(players)
        played = None
        if self.teacher is not None:
            actions = c.framed(self.teacher.actions(c.states()))
            log_probabilities = values = np.zeros(n, dtype=np.float32)
            if settings.own_moves:
                own, _, _ = self.learner.act(c.floats(observations), masks, key)
                taken = np.random.default_rng([self.run.seed, _OWN_MOVES, *at]).random(n) < settings.own_moves
                played = np.where(taken, own, actions)
            if settings.explore:
                played = exploring_moves(actions if played is None else played, masks, settings.explore,
                                         np.random.default_rng([self.run.seed, _EXPLORE, *at]))
        else:
            actions, log_probabilities, values = self.learner.act(c.floats(observations), masks, key)
        ended, rewards = c.step(actions if played is None else played)
        buffer.grow(buffer.size + n)
        rows = slice(buffer.size, buffer.size + n)
        buffer.observations[rows] = observations
        buffer.masks[rows] = masks
        buffer.actions[rows] = actions
        buffer.log_probabilities[rows] = log_probabilities
        buffer.values[rows] = values
        buffer.envs[rows] = np.arange(n)
        buffer.players[rows] = players
        buffer.ends[rows] = ended
        buffer.rewards[rows] = rewards
        buffer.size += n

    def _finish_games(self) -> dict[str, np.ndarray]:
        """The decisions of the games that ended, with their targets; the others stay in the buffer."""
        c, b = self.collector, self.buffer
        size = b.size
        advantages = np.zeros(size, dtype=np.float32)
        returns = np.zeros(size, dtype=np.float32)
        finished = np.zeros(size, dtype=bool)
        trace = 1.0 if self.teacher is not None else self.run.settings.trace
        episode_targets(b.envs[:size], b.players[:size], b.values[:size], b.ends[:size], b.rewards[:size],
                        c.num_envs, c.num_players, np.float32(trace), advantages, returns, finished)
        rows = np.flatnonzero(finished)
        out = {"observations": b.observations[rows], "mask": b.masks[rows], "actions": b.actions[rows],
               "log_probabilities": b.log_probabilities[rows], "advantages": advantages[rows],
               "returns": returns[rows]}
        b.keep(np.flatnonzero(~finished))
        return out

    # -- checkpoints and strength -------------------------------------------------------------------
    def _checkpoint(self, stats: dict[str, float], bar: tqdm, final: bool) -> NetworkModel:
        run, p = self.run, self.progress
        model = self._save(stats)
        due = time.perf_counter() - self._last_eval >= 60 * run.eval_minutes
        measured = bool(p.history) and p.history[-1]["updates"] == p.updates
        if run.eval_deals and (final or due) and not measured:
            for measurement in self._measure(model):
                p.history.append({"decisions": p.decisions, "updates": p.updates,
                                  "cpu_seconds": round(p.cpu_seconds, 1), **measurement})
            self._last_eval = time.perf_counter()
            bar.set_postfix(self._shown_strength(), refresh=True)
            model = self._save(stats)
        return model

    def _measure(self, model: NetworkModel) -> list[dict[str, Any]]:
        """The strength against each evaluation opponent; or (holders) the log-loss on the held-out
        positions beside the consistent sampler's, its positions and beliefs drawn once a run."""
        run = self.run
        if run.algo != "holders":
            return [duplicate_strength(run.game, self.out, opponent, run.eval_deals, run.eval_seed).to_json()
                    for opponent in run.eval_opponents]
        if self.held_out is None:
            positions = collect_positions(run.game, run.eval_deals, run.eval_seed, run.teacher)
            self.held_out = positions, sampler_score(sampler_counts(run.game, positions, seed=run.eval_seed),
                                                     positions)
        positions, sampler = self.held_out
        return [score_holders(run.game, model, positions, sampler).to_json()]

    def _shown_strength(self) -> dict[str, str]:
        history = self.progress.history
        if not history:
            return {}
        last = [entry for entry in history if entry["updates"] == history[-1]["updates"]]
        if "log_loss" in last[0]:
            return {"log-loss": f"{last[0]['log_loss']:.4f}", "sampler": f"{last[0]['sampler_log_loss']:.4f}"}
        return {"vs " + entry["opponent"]: f"{entry['mean']:+.2f}" for entry in last}

    def _save(self, stats: dict[str, float]) -> NetworkModel:
        training = {"run": self.run.identity(), "progress": self.progress.to_json(), "steps": self.run.steps,
                    "last_update": {name: round(value, 6) for name, value in stats.items()},
                    "command": self.command, "evaluation": {"opponents": list(self.run.eval_opponents),
                                                            "deals": self.run.eval_deals,
                                                            "seed": self.run.eval_seed}}
        model = to_model(self.learner.params, {**self.metadata, "training": training},
                         self.learner.optimizer_arrays())
        keep_previous(self.out)
        save_model(model, self.out)
        return model

    def close(self) -> None:
        self.collector.close()


def exploring_moves(teacher: np.ndarray, masks: np.ndarray, explore: float,
                    rng: np.random.Generator) -> np.ndarray:
    """The teacher's moves, each replaced with probability ``explore`` by a uniformly random legal one."""
    random_legal = np.argmax(rng.random(masks.shape) * masks, axis=1)
    return np.where(rng.random(len(teacher)) < explore, random_legal, teacher)


def train(run: Run, out: str | Path, resume: bool = False, progress: bool = True,
          command: str = "") -> NetworkModel:
    """Run ``run`` into ``out`` (see the module docstring); returns the final checkpoint."""
    trainer = Trainer(run, out, resume, command)
    try:
        return trainer.train(progress)
    finally:
        trainer.close()


def strip_training_state(source: str | Path, target: str | Path, game: pyspiel.Game,
                         record: dict[str, Any] | None = None) -> NetworkModel:
    """The model of checkpoint ``source`` without its optimizer state (a file to commit), into ``target``;
    ``record`` (how the model was made and measured, for the model zoo) is kept in its metadata as ``zoo``."""
    model = load_model(source, game, head=None)
    metadata = {key: value for key, value in model.metadata.items() if key not in ("format", "version",
                                                                                   "checksum")}
    if record is not None:
        metadata["zoo"] = json.loads(json.dumps(record))
    stripped = NetworkModel(model.arrays, metadata)
    save_model(stripped, target)
    return stripped
