"""A tournament's config file: the TOML form of ``cardlab tournament``'s options.

::

    game = "kaiser"
    deals = 10000
    agents = ["rules", {name = "ismcts", label = "ismcts-500", options = {simulations = 500}}]

Every key is checked for its name and TOML type here, in one line of error,
before any game is loaded; the command line's options win over the file's.
"""

from __future__ import annotations

import tomllib
from typing import Any

from cardlab.arena.entrants import parse_agent
from cardlab.games.spec import KIND_NAMES

#: Every key of a tournament config file, with its TOML type (an integer is never a boolean).
TOURNAMENT_KEYS = {"game": str, "params": dict, "agents": list, "deals": int, "seed": int, "workers": int,
                   "out": str, "backend": str, "address": str, "chunk_size": int}
_TOML_TYPES = {**KIND_NAMES, dict: "a table", list: "a list"}


class ConfigError(ValueError):
    """A config file that cannot be read, or a key or value it must not hold."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_config(path: str | None) -> dict[str, Any]:
    """The TOML file at ``path`` (``{}`` if none): any of :data:`TOURNAMENT_KEYS`, each of its type."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as stream:
            config = tomllib.load(stream)
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config {path}: {error}") from error
    unknown = sorted(set(config) - set(TOURNAMENT_KEYS))
    if unknown:
        known = ", ".join(sorted(TOURNAMENT_KEYS))
        raise ConfigError(f"config {path}: unknown key(s) {', '.join(unknown)}; known: {known}")
    for key, value in config.items():
        if type(value) is not TOURNAMENT_KEYS[key]:
            raise ConfigError(f"config {path}: {key} must be {_TOML_TYPES[TOURNAMENT_KEYS[key]]}, "
                              f"got {_shown(value)}")
    return config


def config_agents(agents: object) -> tuple[list[tuple[str, dict[str, Any]]], list[str | None]]:
    """The agents and their labels (``None``: the name) of a config's ``agents`` list.

    An item is a spec string or a table ``{name = SPEC, label = TEXT, options = TABLE}``
    whose options add to the spec's.
    """
    if not isinstance(agents, list):
        raise ConfigError("config: agents must be a list")
    parsed, labels = [], []
    for item in agents:
        if isinstance(item, str):
            parsed.append(parse_agent(item))
            labels.append(None)
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            extra = sorted(set(item) - {"name", "label", "options"})
            if extra:
                raise ConfigError(f"config: agent {item['name']!r} has unknown key(s) {', '.join(extra)}")
            if not isinstance(item.get("options", {}), dict) or not isinstance(item.get("label", ""), str):
                raise ConfigError(f"config: agent {item['name']!r} needs options as a table and a label as "
                                  f"a string, got {_shown(item)}")
            name, options = parse_agent(item["name"])
            parsed.append((name, {**options, **dict(item.get("options", {}))}))
            labels.append(item.get("label"))
        else:
            raise ConfigError(f"config: an agent is a spec string or a table with a name, got {item!r}")
    return parsed, labels
