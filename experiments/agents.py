"""Study 4, agents: a duplicate round robin of every agent of a game, for ratings and strength vs time.

    python -m experiments.agents --game kaiser                   # full size (make notebooks)
    python -m experiments.agents --game kaiser --deals 4 --out /tmp/agents-kaiser

The tournament is the arena's (:func:`cardlab.arena.tournament.run_tournament`,
the compiled loop, resumable Parquet parts), so this study needs no frame of
its own: the agents, deals and seed of each game are set here, in one place.
ISMCTS plays at several simulation budgets, so the notebook can draw strength
against thinking time per move. The notebook is notebooks/agents.py.
"""

from __future__ import annotations

import argparse
import sys

from cardlab.arena.agents import AgentSpec
from cardlab.arena.pool import WorkerLostError
from cardlab.arena.tournament import BACKENDS, TournamentSettings, run_tournament
from cardlab.games import game_spec
from cardlab.results import ResultsError
from experiments.frame import data_dir

SEED = 2026
#: ISMCTS budgets (simulations per move) every game is played at.
BUDGETS = (30, 100, 300)
#: Deals of each game's round robin at full size (every pair plays each deal in both seatings).
DEALS = {"kaiser": 100, "twenty_eight": 100, "literature": 20}


def entrants(budgets: tuple[int, ...] = BUDGETS) -> tuple[AgentSpec, ...]:
    """random, rules and ISMCTS at each budget (rule-based rollouts and the game's defaults)."""
    ismcts = tuple(AgentSpec(f"ismcts-{n}", "ismcts", {"simulations": n, "rollout": "rules"})
                   for n in budgets)
    return (AgentSpec("random", "random"), AgentSpec("rules", "rules"), *ismcts)


def settings(game: str, deals: int, budgets: tuple[int, ...] = BUDGETS) -> TournamentSettings:
    return TournamentSettings(game_spec(game).name, {}, entrants(budgets), deals, SEED,
                              chunk_size=max(1, min(25, deals // 4)))


def dataset(game: str) -> str:
    return f"agents-{game_spec(game).aliases[0]}"


def command(game: str, manifest: dict) -> str:
    """The command that plays the tournament of ``manifest`` again."""
    settings = manifest["settings"]
    budgets = tuple(agent["options"]["simulations"] for agent in settings["agents"]
                    if agent["name"] == "ismcts")
    extra = [] if budgets == BUDGETS else ["--budgets", ",".join(map(str, budgets))]
    return " ".join(["python -m experiments.agents --game", game, "--deals", str(settings["deals"]), *extra])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.agents", description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(DEALS))
    parser.add_argument("--deals", type=int, default=None, help="default: the game's full size")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)),
                        help="ISMCTS simulations per move, comma-separated (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--backend", default="processes", choices=BACKENDS,
                        help="the arena's backend: worker processes, this process, or a Ray cluster")
    parser.add_argument("--out", default=None)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    deals = DEALS[args.game] if args.deals is None else args.deals
    out = args.out or data_dir() / dataset(args.game)
    given = sys.argv[1:] if argv is None else argv
    try:
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        try:
            budgets = tuple(int(n) for n in args.budgets.split(","))
        except ValueError:
            raise ValueError(f"--budgets must be whole numbers separated by commas, got {args.budgets!r}") \
                from None
        if not budgets or min(budgets) < 1 or len(set(budgets)) != len(budgets):
            raise ValueError(f"--budgets must be distinct positive numbers, got {args.budgets!r}")
        run_tournament(settings(args.game, deals, budgets), out, backend=args.backend, workers=args.workers,
                       progress=not args.no_progress,
                       command=" ".join(["python -m experiments.agents", *given]))
    except (ResultsError, ValueError, WorkerLostError) as error:
        raise SystemExit(f"error: {str(error).splitlines()[0]}") from None
    print(out)


if __name__ == "__main__":
    main()
