"""Study 4, agents: a duplicate round robin of every agent of a game, for ratings and strength vs time.

    python -m experiments.agents --game kaiser                   # full size (make notebooks)
    python -m experiments.agents --game kaiser --deals 4 --out /tmp/agents-kaiser

The tournament is the arena's (:func:`cardlab.arena.tournament.run_tournament`,
the compiled loop, resumable Parquet parts), so this study needs no frame of
its own: the agents, deals and seed of each game are set here, in one place.
ISMCTS plays at several simulation budgets, so the notebook can draw strength
against thinking time per move. PIMC (a few worlds per card) and the CFR
bidding policy join where the game has them: PIMC where the double-dummy
solver models the game (Kaiser, Twenty-Eight), ``cfr-bidding`` where the
bidding abstraction does and its policy file is found (``--cfr-policy-dir``;
without one it is left out, with the reason printed). ``--pimc-worlds 0
--cfr-policy-dir none`` leaves both out. The notebook is notebooks/agents.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyspiel

from cardlab.agents.pimc.bot import check_pimc_game
from cardlab.arena.entrants import AgentSpec
from cardlab.arena.pool import WorkerLostError
from cardlab.arena.tournament import BACKENDS, TournamentSettings, run_tournament
from cardlab.cfr.bidding import check_modelled
from cardlab.games import game_spec
from cardlab.results import ResultsError
from experiments.frame import data_dir

ROOT = Path(__file__).resolve().parent.parent
SEED = 2026
#: ISMCTS budgets (simulations per move) every game is played at.
BUDGETS = (30, 100, 300)
#: Deals of each game's round robin at full size (every pair plays each deal in both seatings).
DEALS = {"kaiser": 100, "twenty_eight": 100, "literature": 20}
#: Worlds PIMC solves double dummy per card (few: it is the slowest entrant); 0 leaves it out.
PIMC_WORLDS = 4
#: How PIMC bids in each game's round robin. Twenty-Eight's simulation bidding solves every trump
#: suit of every bidding world from the first card (about 30 s of CPU a deal at 8 worlds, 25 times
#: its card play), more than a 100-deal round robin can pay, so there PIMC plays its cards and bids
#: by the rules (``pimc_strength`` measures the simulation bidder on its own).
PIMC_BIDDING = {"kaiser": "simulation", "twenty_eight": "rules"}
#: Where the CFR bidding policies are looked for (``python -m experiments.cfr_bidding --policy-dir``
#: writes ``<game>-coarse.npz``; cardlab ships them in this folder); ``none`` leaves ``cfr-bidding`` out.
CFR_POLICY_DIR = "cardlab/agents/policies"


def ismcts_entrant(simulations: int) -> AgentSpec:
    """ISMCTS at a budget of simulations per move, with rule-based rollouts and the game's defaults."""
    return AgentSpec(f"ismcts-{simulations}", "ismcts", {"simulations": simulations, "rollout": "rules"})


def cfr_policy(game: str, policy_dir: str) -> Path:
    return Path(policy_dir) / f"{game_spec(game).name}-coarse.npz"


def pimc_options(game: str, worlds: int) -> dict:
    """PIMC's options in ``game``'s round robin: the game's own bidding default stays unwritten."""
    bidding = PIMC_BIDDING[game_spec(game).aliases[0]]
    return {"worlds": worlds} if bidding == "simulation" else {"worlds": worlds, "bidding": bidding}


def optional_entrants(game: str, pimc_worlds: int = PIMC_WORLDS,
                      cfr_policy_dir: str = CFR_POLICY_DIR) -> tuple[tuple[AgentSpec, ...], list[str]]:
    """PIMC and cfr-bidding where ``game`` has them, and why each one left out is left out."""
    loaded = pyspiel.load_game(game_spec(game).name)
    chosen, reasons = [], []
    if pimc_worlds > 0:
        try:
            check_pimc_game(loaded)
            chosen.append(AgentSpec(f"pimc-{pimc_worlds}", "pimc", pimc_options(game, pimc_worlds)))
        except ValueError as error:
            reasons.append(f"pimc left out: {error}")
    if cfr_policy_dir != "none":
        path = cfr_policy(game, cfr_policy_dir)
        try:
            check_modelled(loaded)
            if not path.exists() and not (ROOT / path).exists():  # the notebooks run in notebooks/
                raise ValueError(f"no policy {path} (train one: python -m experiments.cfr_bidding "
                                 f"--game {game} --policy-dir {cfr_policy_dir})")
            chosen.append(AgentSpec("cfr-bidding", "cfr-bidding", {"policy": str(path)}))
        except ValueError as error:
            reasons.append(f"cfr-bidding left out: {error}")
    return tuple(chosen), reasons


def entrants(budgets: tuple[int, ...] = BUDGETS,
             extra: tuple[AgentSpec, ...] = ()) -> tuple[AgentSpec, ...]:
    """random, rules, ISMCTS at each budget, and ``extra`` (:func:`optional_entrants`)."""
    return (AgentSpec("random", "random"), AgentSpec("rules", "rules"), *map(ismcts_entrant, budgets),
            *extra)


def settings(game: str, deals: int, budgets: tuple[int, ...] = BUDGETS,
             extra: tuple[AgentSpec, ...] = ()) -> TournamentSettings:
    return TournamentSettings(game_spec(game).name, {}, entrants(budgets, extra), deals, SEED,
                              chunk_size=max(1, min(25, deals // 4)))


def dataset(game: str) -> str:
    return f"agents-{game_spec(game).aliases[0]}"


def command(game: str, manifest: dict) -> str:
    """The command that plays the tournament of ``manifest`` again."""
    settings = manifest["settings"]
    played = {agent["name"]: agent["options"] for agent in settings["agents"]}
    default = {spec.name: spec.options for spec in optional_entrants(game)[0]}
    budgets = tuple(agent["options"]["simulations"] for agent in settings["agents"]
                    if agent["name"] == "ismcts")
    extra = [] if budgets == BUDGETS else ["--budgets", ",".join(map(str, budgets))]
    if played.get("pimc") != default.get("pimc"):
        extra += ["--pimc-worlds", str(played.get("pimc", {}).get("worlds", 0))]
    if played.get("cfr-bidding") != default.get("cfr-bidding"):
        policy = played.get("cfr-bidding", {}).get("policy")
        extra += ["--cfr-policy-dir", "none" if policy is None else str(Path(policy).parent)]
    return " ".join(["python -m experiments.agents --game", game, "--deals", str(settings["deals"]), *extra])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.agents", description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(DEALS))
    parser.add_argument("--deals", type=int, default=None, help="default: the game's full size")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)),
                        help="ISMCTS simulations per move, comma-separated (default: %(default)s)")
    parser.add_argument("--pimc-worlds", type=int, default=PIMC_WORLDS,
                        help="PIMC's worlds per card, where the game has it; 0 leaves it out "
                             "(default: %(default)s)")
    parser.add_argument("--cfr-policy-dir", default=CFR_POLICY_DIR,
                        help="folder of the cfr-bidding policies (<game>-coarse.npz); none leaves it out "
                             "(default: %(default)s)")
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
        if args.pimc_worlds < 0:
            raise ValueError(f"--pimc-worlds must be 0 (none) or more, got {args.pimc_worlds}")
        extra, reasons = optional_entrants(args.game, args.pimc_worlds, args.cfr_policy_dir)
        for reason in reasons:
            print(reason, file=sys.stderr)
        run_tournament(settings(args.game, deals, budgets, extra), out, backend=args.backend,
                       workers=args.workers, progress=not args.no_progress,
                       command=" ".join(["python -m experiments.agents", *given]))
    except (ResultsError, ValueError, WorkerLostError) as error:
        raise SystemExit(f"error: {str(error).splitlines()[0]}") from None
    print(out)


if __name__ == "__main__":
    main()
