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
loaded for a game is refused (``ValueError``) if it was trained on another
game or other parameters, and so is a file that is not such a policy or whose
arrays do not match their checksum.
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

FORMAT = "cardlab-cfr-policy"
VERSION = 1
NAMINGS = ("string", "key")
_TABLE_ARRAYS = ("names", "offsets", "actions", "probabilities")


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
    """``ValueError`` unless the policy of ``metadata`` was trained on ``game`` with its parameters."""
    wanted = game_identity(game)
    trained = {"game": metadata.get("game"), "parameters": metadata.get("parameters")}
    if trained != wanted:
        raise ValueError(f"policy was trained on {trained['game']} with parameters "
                         f"{trained['parameters']}, not on {wanted['game']} with parameters "
                         f"{wanted['parameters']}")


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
    """Write ``table`` (and its solver state, if any) to ``path`` (``.npz``); returns the path."""
    arrays = {"names": np.asarray(table.names, dtype=np.str_), "offsets": table.offsets,
              "actions": table.actions, "probabilities": table.probabilities,
              **table.solver_state}
    metadata = {"format": FORMAT, "version": VERSION, "commit": code_commit(),
                **table.metadata, "checksum": _checksum(arrays)}
    path = Path(path)
    # Compressed: a sampling solver's state is mostly empty table slots (a bidding policy: 3.6 MB
    # plain, 0.6 MB compressed). Through a file object, or savez would append .npz to the name.
    with path.open("wb") as out:
        np.savez_compressed(out, metadata=np.asarray(json.dumps(metadata, sort_keys=True)), **arrays)
    return path


def load_policy(path: str | Path, game: pyspiel.Game | None = None) -> PolicyTable:
    """Read a policy file; with ``game``, refuse one trained on another game or parameters."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise ValueError(f"{path}: no such policy file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a readable policy file ({error})") from None
    try:
        metadata = json.loads(str(arrays.pop("metadata")))
    except (KeyError, json.JSONDecodeError):
        raise ValueError(f"{path}: not a cardlab policy file (no metadata)") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise ValueError(f"{path}: not a cardlab policy file (format {metadata!r:.60})")
    if metadata.get("version") != VERSION:
        raise ValueError(f"{path}: policy file version {metadata.get('version')}, "
                         f"this cardlab reads version {VERSION}")
    missing = [name for name in _TABLE_ARRAYS if name not in arrays]
    if missing or metadata.get("naming") not in NAMINGS:
        raise ValueError(f"{path}: policy file lacks {missing or 'its naming'}")
    if _checksum(arrays) != metadata.get("checksum"):
        raise ValueError(f"{path}: policy file is corrupt (its arrays do not match their checksum)")
    offsets = arrays["offsets"]
    if (offsets.ndim != 1 or len(offsets) != len(arrays["names"]) + 1
            or offsets[-1] != len(arrays["actions"]) != len(arrays["probabilities"])):
        raise ValueError(f"{path}: policy file arrays have inconsistent sizes")
    if game is not None:
        try:
            check_game(metadata, game)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
    solver_state = {name: array for name, array in arrays.items() if name not in _TABLE_ARRAYS}
    return PolicyTable(tuple(str(name) for name in arrays["names"]), offsets, arrays["actions"],
                       arrays["probabilities"], metadata, solver_state)
