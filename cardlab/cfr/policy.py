"""Tabular policies: looked up by information state, saved to ``.npz``, shown to OpenSpiel.

A :class:`PolicyTable` holds, for each information set by name, its legal
actions and their probabilities. Names are information-state strings or
decimal 64-bit information-state keys (``naming``), whichever the tree was
built with; a cardlab state answers both.

File format (one ``.npz``, read without pickle): arrays ``names`` (unicode),
``offsets`` (``int64``, the actions of set ``i`` are ``offsets[i]:offsets[i + 1]``),
``actions`` (``int64``), ``probabilities`` (``float64``), optionally a solver's
state to resume from (any other arrays: ``regrets``, ``cumulative``, ...), and
``metadata``: a JSON text with ``format``, ``version``, ``game``,
``parameters``, ``naming``, ``solver``, ``iterations``, ``commit`` (of the
code that trained it) and ``checksum`` (SHA-256 of the arrays). A policy
loaded for a game is refused (``ValueError``, naming the parameter that
differs) if it was trained on another game or other parameters, and so is a
file that is not such a policy or whose arrays do not match their checksum.
A file is a user's, and a checksum anyone can recompute: every array is
checked too (types, shapes, offsets rising from 0, action ids, probabilities
in [0, 1] summing to 1 in each set), and nothing in it is ever unpickled.
Saving is atomic: a kill while writing leaves the old file whole.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as openspiel_policy

from cardlab.cfr.tree import GameTree
from cardlab.core.files import write_atomically

FORMAT = "cardlab-cfr-policy"
VERSION = 1
NAMINGS = ("string", "key")
_TABLE_ARRAYS = ("names", "offsets", "actions", "probabilities")
#: How far a set's probabilities may sum from 1 (they are normalized in float64).
SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class PolicyTable:
    """Action probabilities by information-set name, with what they were trained on.

    ``metadata`` always has ``game``, ``parameters`` and ``naming``;
    ``solver_state`` holds the arrays a training run resumes from (may be empty).
    """

    names: tuple[str, ...]
    offsets: np.ndarray
    actions: np.ndarray
    probabilities: np.ndarray
    metadata: dict[str, Any]
    solver_state: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {name: i for i, name in enumerate(self.names)})

    @property
    def naming(self) -> str:
        return self.metadata["naming"]

    def name_of(self, state: pyspiel.State, player: int) -> str:
        """The name of ``player``'s information state in ``state``, as this table names sets."""
        if self.naming == "key":
            return str(state.information_state_key(player))
        return state.information_state_string(player)

    def lookup(self, state: pyspiel.State, player: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The legal actions and their probabilities at ``player``'s information state, or None."""
        i = self._index.get(self.name_of(state, player))
        if i is None:
            return None
        low, high = self.offsets[i], self.offsets[i + 1]
        return self.actions[low:high], self.probabilities[low:high]

    def to_tabular_policy(self, game: pyspiel.Game) -> openspiel_policy.TabularPolicy:
        """The same policy as OpenSpiel's ``TabularPolicy`` over every state of ``game``.

        Information states the table does not cover keep the uniform policy.
        Enumerates the whole game: for games the size of the table's.
        """
        check_game(self.metadata, game)
        tabular = openspiel_policy.TabularPolicy(game)
        for state in tabular.states:
            player = state.current_player()
            found = self.lookup(state, player)
            if found is None:
                continue
            row = tabular.state_index(state)
            tabular.action_probability_array[row, :] = 0.0
            tabular.action_probability_array[row, found[0]] = found[1]
        return tabular


def game_identity(game: pyspiel.Game) -> dict[str, Any]:
    """What a policy must have been trained on to play ``game``: its name and parameters."""
    return {"game": game.get_type().short_name,
            "parameters": json.loads(json.dumps(game.get_parameters(), sort_keys=True))}


def check_game(metadata: dict[str, Any], game: pyspiel.Game) -> None:
    """``ValueError`` unless the policy of ``metadata`` was trained on ``game`` with its parameters;
    the message names the game, or each parameter, that differs."""
    wanted = game_identity(game)
    trained_game, trained = metadata.get("game"), metadata.get("parameters")
    if trained_game != wanted["game"]:
        raise ValueError(f"policy was trained on {trained_game}, not on {wanted['game']}")
    if not isinstance(trained, dict):
        raise ValueError(f"policy file names no parameters of {trained_game}")
    now = wanted["parameters"]
    differ = sorted(key for key in set(trained) | set(now) if trained.get(key, None) != now.get(key, None))
    if differ:
        def shown(values: dict[str, Any]) -> str:
            return ", ".join(f"{key}={json.dumps(values[key])}" if key in values else f"no {key}"
                             for key in differ)
        raise ValueError(f"policy was trained on {trained_game} with {shown(trained)}, not with "
                         f"{shown(now)} (its other parameters agree)")


def _table_problem(arrays: dict[str, np.ndarray], game: pyspiel.Game | None) -> str | None:
    """What is wrong with a policy file's table, or None: kinds, shapes, offsets, actions, probabilities."""
    names, offsets, actions, probabilities = (arrays[name] for name in _TABLE_ARRAYS)
    if names.ndim != 1 or names.dtype.kind != "U":
        return "names must be a list of texts"
    for name, array, kinds in (("offsets", offsets, "iu"), ("actions", actions, "iu"),
                               ("probabilities", probabilities, "f")):
        if array.ndim != 1 or array.dtype.kind not in kinds:
            return f"{name} must be a list of {'numbers' if kinds == 'f' else 'integers'}"
    if len(offsets) != len(names) + 1 or len(probabilities) != len(actions):
        return "arrays have inconsistent sizes"
    if offsets[0] != 0 or offsets[-1] != len(actions) or (np.diff(offsets) < 1).any():
        return "offsets must rise from 0 to the number of actions, at least one action per set"
    if len(set(names.tolist())) != len(names):
        return "names an information set twice"
    most = game.num_distinct_actions() if game is not None else np.iinfo(np.int64).max
    if len(actions) and (actions.min() < 0 or actions.max() >= most):
        return f"has action ids outside 0..{most - 1}"
    if not np.isfinite(probabilities).all() or (probabilities < 0).any() or (probabilities > 1).any():
        return "probabilities must be numbers in [0, 1]"
    if len(names):
        sums = np.add.reduceat(probabilities, offsets[:-1])
        worst = int(np.argmax(np.abs(sums - 1)))
        if abs(sums[worst] - 1) > SUM_TOLERANCE:
            return f"probabilities of information set {worst} sum to {sums[worst]:.6g}, not 1"
        sets = np.repeat(np.arange(len(names)), np.diff(offsets))
        if len(np.unique(np.stack([sets, actions]), axis=1)[0]) != len(actions):
            return "names an action twice in one information set"
    return None


def policy_table(tree: GameTree, probabilities: np.ndarray, game: pyspiel.Game,
                 **metadata: Any) -> PolicyTable:
    """The table of a per-action array over ``tree`` (a solver's average policy) for ``game``."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if probabilities.shape != (tree.num_actions,):
        raise ValueError(f"policy has shape {probabilities.shape}; the tree has "
                         f"{tree.num_actions} information-set actions")
    info = {**game_identity(game), "naming": tree.naming, "tree": tree.summary(), **metadata}
    return PolicyTable(tree.infoset_names, tree.arrays.infoset_offset.copy(),
                       tree.arrays.infoset_actions.copy(), probabilities.copy(), info)


def to_tabular_policy(game: pyspiel.Game, tree: GameTree,
                      probabilities: np.ndarray) -> openspiel_policy.TabularPolicy:
    """A per-action array over ``tree`` as OpenSpiel's ``TabularPolicy`` of ``game``."""
    return policy_table(tree, probabilities, game).to_tabular_policy(game)


def code_commit() -> str:
    """The git commit of the code (``unknown`` outside a checkout), recorded with every policy."""
    try:
        result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent,
                                capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return result.stdout.strip()


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def save_policy(table: PolicyTable, path: str | Path) -> Path:
    """Write ``table`` (and its solver state, if any) to ``path`` (``.npz``) atomically; returns the path."""
    arrays = {"names": np.asarray(table.names, dtype=np.str_), "offsets": table.offsets,
              "actions": table.actions, "probabilities": table.probabilities,
              **table.solver_state}
    metadata = {"format": FORMAT, "version": VERSION, "commit": code_commit(),
                **table.metadata, "checksum": _checksum(arrays)}
    # Compressed: a sampling solver's state is mostly empty table slots (a bidding policy: 3.6 MB
    # plain, 0.6 MB compressed). Through a file object, or savez would append .npz to the name.
    return write_atomically(path, lambda out: np.savez_compressed(
        out, metadata=np.asarray(json.dumps(metadata, sort_keys=True)), **arrays))


def load_policy(path: str | Path, game: pyspiel.Game | None = None) -> PolicyTable:
    """Read a policy file, every array checked; with ``game``, refuse one trained on another game or
    parameters. Any fault is a one-line ``ValueError`` naming the file."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise ValueError(f"{path}: no such policy file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: a directory, not a policy file") from None
    except ValueError as error:  # numpy's own words would suggest unpickling, which cardlab never does
        what = "holds Python objects" if "pickle" in str(error) else f"is damaged ({error})"
        raise ValueError(f"{path}: not a readable policy file (it {what})") from None
    except (OSError, EOFError, zipfile.BadZipFile, RuntimeError) as error:
        raise ValueError(f"{path}: not a readable policy file ({type(error).__name__})") from None
    try:
        metadata = json.loads(str(arrays.pop("metadata")))
    except (KeyError, RecursionError, json.JSONDecodeError):
        raise ValueError(f"{path}: not a cardlab policy file (no metadata)") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise ValueError(f"{path}: not a cardlab policy file (format {metadata!r:.60})")
    if metadata.get("version") != VERSION:
        raise ValueError(f"{path}: policy file version {metadata.get('version')!r:.20}, "
                         f"this cardlab reads version {VERSION}")
    missing = [name for name in _TABLE_ARRAYS if name not in arrays]
    if missing or metadata.get("naming") not in NAMINGS:
        raise ValueError(f"{path}: policy file lacks {missing or 'its naming'}")
    if _checksum(arrays) != metadata.get("checksum"):
        raise ValueError(f"{path}: policy file is corrupt (its arrays do not match their checksum)")
    if game is not None:
        try:
            check_game(metadata, game)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
    problem = _table_problem(arrays, game)
    if problem is not None:
        raise ValueError(f"{path}: policy file {problem}")
    solver_state = {name: array for name, array in arrays.items() if name not in _TABLE_ARRAYS}
    return PolicyTable(tuple(str(name) for name in arrays["names"]), arrays["offsets"].astype(np.int64),
                       arrays["actions"].astype(np.int64), arrays["probabilities"].astype(np.float64),
                       metadata, solver_state)
