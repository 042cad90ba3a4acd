"""The entrants of a tournament: their specs, the files they read, and the players made of them.

A spec names an agent and its options, as on the command line::

    rules                          a numba-native agent (random, rules)
    ismcts:simulations=500,uct_c=2  a registered agent with options
    py:my_module:make_bot:depth=3   any pyspiel.Bot from a Python factory

``--agents`` holds several specs separated by commas; a ``key=value`` item
continues the options of the spec before it. A factory is called as
``factory(game, player, seed, **options)``, like the registry's.

Every agent is one of three sorts:

- **native**: it has a kind code in the table of built-in agents
  (:data:`cardlab.agents.builtin.BUILTIN`), so games among native agents
  only run inside the compiled loop (:mod:`cardlab.arena.native`);
- **registry**: made by :func:`cardlab.agents.make`;
- **python**: made by a ``py:module:function`` factory.

Registry and python agents are ``pyspiel.Bot`` objects, played through the
slower Python loop; native agents take part there too, as
:class:`NativeAgentBot`, which calls the very kernel the compiled loop calls
with the same stream, so a deal gives the same game on either loop.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from cardlab.agents import cfr_bidding, net
from cardlab.agents.builtin import BUILTIN, BuiltinAgent
from cardlab.agents.checks import check_can_move
from cardlab.agents.ismcts import OPTIONS as ISMCTS_OPTIONS
from cardlab.agents.ismcts.bot import beliefs_path, network_of
from cardlab.agents.ismcts.options import uses_beliefs, uses_policy_network
from cardlab.agents.network import flat_weights
from cardlab.agents.options import OptionSet, parse_options
from cardlab.agents.pimc.bot import check_pimc_game
from cardlab.arena import native
from cardlab.cfr.bidding_policy import policy_arrays, policy_capacity
from cardlab.core.interrupt import deferred_interrupts
from cardlab.core.rng import make_stream
from cardlab.games import GameSpec, game_names, game_spec


class AgentSpecError(ValueError):
    """A spec that cannot be parsed, names no agent, or has a bad option."""


#: Agents the compiled loop can play, by name: the built-in agents with a kind code.
NATIVE_AGENTS: dict[str, BuiltinAgent] = {name: agent for name, agent in BUILTIN.items()
                                          if agent.kind is not None}


@dataclass(frozen=True)
class AgentSpec:
    """One entrant: a unique ``label``, the agent ``name`` and its ``options``."""

    label: str
    name: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def is_python_factory(self) -> bool:
        return self.name.startswith("py:")

    def text(self) -> str:
        """The spec as it would be written on the command line."""
        opts = ",".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.name}:{opts}" if opts else self.name

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "name": self.name, "options": dict(self.options)}


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """``name[:key=value,...]`` (or ``py:module:function[:key=value,...]``) -> name, options."""
    spec = spec.strip()
    if not spec:
        raise AgentSpecError("empty agent spec")
    parts = spec.split(":")
    if parts[0] == "py":
        if len(parts) < 3 or not parts[1] or not parts[2]:
            raise AgentSpecError(f"agent spec {spec!r}: a Python factory is written py:module:function")
        name, rest = ":".join(parts[:3]), parts[3:]
    else:
        name, rest = parts[0], parts[1:]
    if len(rest) > 1:
        raise AgentSpecError(f"agent spec {spec!r}: too many ':'")
    items = [item for item in rest[0].split(",") if item] if rest else []
    try:
        return name, parse_options(items, f"agent spec {spec!r}: option")
    except ValueError as error:
        raise AgentSpecError(str(error)) from error


def parse_agent_list(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Split ``--agents`` into specs: an item ``key=value`` continues the previous spec's options."""
    specs: list[str] = []
    for item in text.split(","):
        item = item.strip()
        head = item.split("=", 1)[0]
        if "=" in item and ":" not in head and specs:
            specs[-1] += ("," if "=" in specs[-1] else ":") + item
        else:
            specs.append(item)
    return [parse_agent(spec) for spec in specs]


def labelled(
    agents: list[tuple[str, dict[str, Any]]], labels: list[str | None] | None = None
) -> list[AgentSpec]:
    """Give every agent a unique label: its name, or ``name#2`` for a second one of that name."""
    result: list[AgentSpec] = []
    seen: dict[str, int] = {}
    for i, (name, options) in enumerate(agents):
        label = (labels[i] if labels else None) or name
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label}#{seen[label]}"
        result.append(AgentSpec(label, name, options))
    if len({a.label for a in result}) != len(result):
        raise AgentSpecError(f"agent labels must be unique, got {[a.label for a in result]}")
    return result


# ---- the files a result depends on --------------------------------------------------------
#: The option sets of the built-in agents that read files (an option of kind ``text`` is a path).
FILE_OPTIONS: dict[str, OptionSet] = {name: agent.options for name, agent in BUILTIN.items()
                                      if any(option.kind == "text" for option in agent.options)}


def input_files(spec: AgentSpec, game: pyspiel.Game) -> dict[str, Path]:
    """The files agent ``spec`` reads in ``game``, by what they are: its policy (given or the default
    shipped one), a ``py:`` factory's module. A run's results depend on their bytes."""
    files: dict[str, Path] = {}
    if spec.is_python_factory:
        module = spec.name.split(":")[1]
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is not None and found.origin and Path(found.origin).is_file():
            files["module"] = Path(found.origin)
    for option in FILE_OPTIONS.get(spec.name, ()):
        if option.kind == "text" and isinstance(spec.options.get(option.name), str):
            files[option.name] = Path(spec.options[option.name])
    if spec.name == "cfr-bidding" and "policy" not in files:
        files["policy"] = cfr_bidding.policy_path(None, game)
    searching = spec.name == "ismcts"
    if "model" not in files and (spec.name == "net" or searching and uses_policy_network(spec.options)):
        files["model"] = net.model_path(None, game)
    if searching and uses_beliefs(spec.options) and "inference_model" not in files:
        files["inference_model"] = beliefs_path(None, game)
    return files


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes ("missing" if it cannot be read)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "missing"
    return digest.hexdigest()


def input_hashes(specs: tuple[AgentSpec, ...] | list[AgentSpec],
                 game: pyspiel.Game) -> dict[str, dict[str, str]]:
    """``{label: {what: sha256}}`` of every file the agents read: what a resumed run must find unchanged."""
    hashes = {}
    for spec in specs:
        try:
            files = input_files(spec, game)
        except ValueError:  # a game the agent does not play: making the bot says so
            files = {}
        if files:
            hashes[spec.label] = {what: file_sha256(path) for what, path in files.items()}
    return hashes


# ---- making players ----------------------------------------------------------------
def is_native(spec: AgentSpec, game: pyspiel.Game) -> bool:
    """True if the compiled loop can play ``spec`` in ``game`` (its options included)."""
    return (spec.name in NATIVE_AGENTS and NATIVE_AGENTS[spec.name].runs_compiled(spec.options)
            and game.get_type().short_name in game_names())


def native_row(spec: AgentSpec, game: GameSpec) -> np.ndarray:
    """The options row of native agent ``spec`` in ``game``; ``AgentSpecError`` if an option is bad."""
    try:
        return NATIVE_AGENTS[spec.name].options_row(spec.options, game)
    except ValueError as error:
        raise AgentSpecError(f"agent {spec.text()!r}: {error}") from error


def python_factory(name: str) -> Callable[..., pyspiel.Bot]:
    """The function named by ``py:module:function``."""
    _, module_name, function_name = name.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AgentSpecError(f"agent {name!r}: cannot import module {module_name!r} ({error})") from error
    factory = getattr(module, function_name, None)
    if not callable(factory):
        raise AgentSpecError(f"agent {name!r}: module {module_name!r} has no function {function_name!r}")
    return factory


class NativeAgentBot(pyspiel.Bot):
    """A native agent as a ``pyspiel.Bot``: the compiled loop's kernel, its seeding, options and table."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, kind: int, options: np.ndarray,
                 policies: tuple[np.ndarray, ...] | None = None):
        pyspiel.Bot.__init__(self)
        from cardlab.games import kernels

        self.game = game
        self.game_id = game_spec(game.get_type().short_name).kernel_id
        self.player = player
        self.kind = kind
        self.options = options
        self._kinds = np.array([kind], dtype=np.int64)
        self._allowed = native.agent_kinds(self._kinds)
        self._rows = options.reshape(1, -1)
        self._policies = native.empty_policies(1) if policies is None else policies
        self._stream = make_stream(seed)
        self._scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def step(self, state: pyspiel.State) -> int:
        check_can_move(f"native kind {self.kind}", self.game, self.player, state)
        with deferred_interrupts():  # one kernel call: Ctrl-C waits for it, never cuts into it
            action = int(native.native_agent_step(self.game_id, self._allowed, self._kinds, self._rows,
                                                  self._policies, state.array, self._stream,
                                                  self._scratch))
        if action not in state.legal_actions():
            raise RuntimeError(f"native agent kind {self.kind} chose illegal action {action}")
        return action


def bot_factory(spec: AgentSpec, game: pyspiel.Game) -> Callable[[pyspiel.Game, int, int], pyspiel.Bot]:
    """A ``factory(game, player, seed)`` for ``spec``, checked by making one bot now."""
    from cardlab import agents

    if is_native(spec, game):
        kinds, rows, policies = native_tables([spec], game)

        def factory(g: pyspiel.Game, player: int, seed: int) -> pyspiel.Bot:
            return NativeAgentBot(g, player, seed, int(kinds[0]), rows[0], policies)
    elif spec.is_python_factory:
        function = python_factory(spec.name)

        def factory(g: pyspiel.Game, player: int, seed: int) -> pyspiel.Bot:
            return function(g, player, seed, **spec.options)
    else:

        def factory(g: pyspiel.Game, player: int, seed: int) -> pyspiel.Bot:
            return agents.make(spec.name, g, player, seed, **spec.options)

    try:
        bot = factory(game, 0, 0)
    except AgentSpecError:
        raise
    except (ValueError, TypeError, pyspiel.SpielError) as error:
        raise AgentSpecError(f"agent {spec.text()!r}: {str(error).splitlines()[0]}") from error
    if not isinstance(bot, pyspiel.Bot):
        raise AgentSpecError(
            f"agent {spec.text()!r}: factory returned {type(bot).__name__}, not a pyspiel.Bot"
        )
    return factory


def native_tables(specs: list[AgentSpec],
                  game: pyspiel.Game) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """The ``kinds``, ``options`` and ``policies`` of the compiled loop in ``game``, indexed like ``specs``.

    Agents with a policy table (``cfr-bidding``) get theirs in ``policies``,
    all built at one capacity so that one array holds them, and ``net`` agents
    (and ISMCTS with ``prior=net`` or ``value=net``) their network's flat
    weights; the others get empty tables.
    """
    spec_of_game = game_spec(game.get_type().short_name)
    kinds = np.empty(len(specs), dtype=np.int64)
    options = native.empty_options(len(specs))
    tables, networks = {}, {}
    for i, spec in enumerate(specs):
        kinds[i] = NATIVE_AGENTS[spec.name].kind_for(spec.options)
        try:
            if kinds[i] == native.CFR_BIDDING:
                fine, greedy, tables[i] = cfr_bidding.native_policy(spec.options, game)
                options[i, native.BIDDING_FINE] = fine
                options[i, native.BIDDING_GREEDY] = greedy
            elif kinds[i] == native.NET:
                model, options[i, native.NET_TEMPERATURE] = net.load_for(spec.options, game)
                networks[i] = flat_weights(model)
            else:
                options[i] = native_row(spec, spec_of_game)
            if kinds[i] == native.ISMCTS_NETWORK:
                networks[i] = network_of(ISMCTS_OPTIONS.resolve(spec.options, spec_of_game), game)
            if kinds[i] == native.PIMC:  # the compiled loop must refuse what the bot refuses
                check_pimc_game(game)
        except AgentSpecError:
            raise
        except ValueError as error:
            raise AgentSpecError(f"agent {spec.text()!r}: {str(error).splitlines()[0]}") from error
    capacity = max((policy_capacity(table) for table in tables.values()), default=2)
    width = max((int(np.diff(table.offsets).max(initial=1)) for table in tables.values()), default=1)
    weights = max((len(flat) for flat, _ in networks.values()), default=1)
    policies = native.empty_policies(len(specs), capacity, width, weights)
    for i, table in tables.items():
        for target, values in zip(policies[:native.NETWORK_WEIGHTS], policy_arrays(table, capacity, width),
                                  strict=True):
            target[i] = values
    for i, (flat, shape) in networks.items():
        policies[native.NETWORK_WEIGHTS][i, :len(flat)] = flat
        policies[native.NETWORK_SHAPES][i] = shape
    return kinds, options, policies


def behaviour_tables(specs: list[AgentSpec | None], game: pyspiel.Game) -> tuple[
        tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]], list[tuple[int, str]]]:
    """The compiled tables of the native agents among ``specs``, kind -1 for the others (``None`` or
    not native), and each agent whose tables could not be built (a missing policy file) with why.

    What :func:`cardlab.arena.native.known_policies` and the variance-reduced
    estimator read: indexed like ``specs``, so a Python-loop tournament's rows
    name the same agents.
    """
    count = len(specs)
    kinds = np.full(count, -1, dtype=np.int64)
    options = native.empty_options(count)
    failures, chosen = [], []
    for i, spec in enumerate(specs):
        if spec is None or not is_native(spec, game):
            continue
        try:
            native_tables([spec], game)  # one at a time, to tell which one fails
        except ValueError as error:
            failures.append((i, str(error).splitlines()[0]))
            continue
        chosen.append(i)
    if not chosen:
        return (kinds, options, native.empty_policies(count)), failures
    some_kinds, some_options, some_policies = native_tables([specs[i] for i in chosen], game)
    kinds[chosen], options[chosen] = some_kinds, some_options
    policies = tuple(np.zeros((count, *table.shape[1:]), dtype=table.dtype) for table in some_policies)
    for full, table in zip(policies, some_policies, strict=True):
        full[chosen] = table
    return (kinds, options, policies), failures
