"""The ``cardlab`` command line.

    cardlab play-random --game kaiser --seed 1
    cardlab demo --game kaiser --deals 200 --seed 1
"""

from __future__ import annotations

import argparse
import sys

import pyspiel

GAMES = {
    "kaiser": "cardlab_kaiser",
    "twenty_eight": "cardlab_twenty_eight",
    "28": "cardlab_twenty_eight",
    "literature": "cardlab_literature",
}


class CliError(Exception):
    """An error to report as one line, exit code 2."""


def load(game: str, params: dict | None = None) -> pyspiel.Game:
    import cardlab  # noqa: F401  (registers the games)

    name = GAMES.get(game, game)
    if name not in GAMES.values() or name not in pyspiel.registered_names():
        raise CliError(f"unknown game {game!r}; choose from {', '.join(sorted(GAMES))}")
    try:
        return pyspiel.load_game(name, params or {})
    except (ValueError, pyspiel.SpielError) as error:
        raise CliError(str(error).splitlines()[0]) from error


def parse_params(items: list[str]) -> dict:
    params: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise CliError(f"game parameter {item!r} must look like key=value")
        lowered = value.lower()
        if lowered in ("true", "false"):
            params[key] = lowered == "true"
        else:
            try:
                params[key] = int(value)
            except ValueError:
                params[key] = value
    return params


def command_play_random(args: argparse.Namespace) -> None:
    from cardlab import agents
    from cardlab.arena import play_deal

    game = load(args.game, parse_params(args.param))
    bots = [agents.make(args.agent, game, seat, args.seed + seat) for seat in range(game.num_players())]
    state, returns = play_deal(game, bots, args.seed)
    print(f"{game}  (seed {args.seed}, agent {args.agent})")
    print(_game_log(state))
    print(f"returns: {', '.join(f'P{seat} {r:+g}' for seat, r in enumerate(returns))}")


def _game_log(state: pyspiel.State) -> str:
    """The whole game as text: the hands as dealt, the moves, then the final state."""
    replay = state.get_game().new_initial_state()
    lines: list[str] = []
    moves: list[str] = []
    for action in state.history():
        player = replay.current_player()
        if player >= 0:
            if not moves:
                lines += ["as dealt:", str(replay), ""]
            moves.append(f"P{player} {replay.action_to_string(player, action)}")
        replay.apply_action(action)
    lines.append("moves:")
    lines.extend("  " + ", ".join(moves[i:i + 8]) for i in range(0, len(moves), 8))
    lines += ["", "at the end:", str(state)]
    return "\n".join(lines)


def command_demo(args: argparse.Namespace) -> None:
    from cardlab import agents
    from cardlab.arena import play_duplicate_match

    game = load(args.game, parse_params(args.param))

    def factory(name: str):
        return lambda g, seat, seed: agents.make(name, g, seat, seed)

    print(f"{game}: {args.agent_a} vs {args.agent_b}, {args.deals} duplicate deals, seed {args.seed}")
    result = play_duplicate_match(
        game, factory(args.agent_a), factory(args.agent_b), args.deals, args.seed,
        names=(args.agent_a, args.agent_b), progress=not args.quiet,
    )
    print(result.table())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardlab", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play-random", help="play one game and print its log")
    play.add_argument("--game", required=True)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--agent", default="random", help="agent at every seat (default random)")
    play.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    play.set_defaults(run=command_play_random)

    demo = sub.add_parser("demo", help="a small duplicate match, printed as a table")
    demo.add_argument("--game", default="kaiser")
    demo.add_argument("--deals", type=int, default=200)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--agent-a", default="rules")
    demo.add_argument("--agent-b", default="random")
    demo.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    demo.add_argument("--quiet", action="store_true", help="no progress bar")
    demo.set_defaults(run=command_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except CliError as error:
        print(f"cardlab: error: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"cardlab: error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
