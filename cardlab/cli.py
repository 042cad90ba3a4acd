"""The ``cardlab`` command line.

    cardlab play-random --game kaiser --seed 1
    cardlab demo --game kaiser --deals 200 --seed 1
    cardlab tournament --game kaiser --agents rules,random --deals 10000 --seed 7 --out results/k1
    cardlab report results/k1 --estimator aivat
    cardlab exploit --game kaiser --agent rules --deals 200
    cardlab variants --game kaiser
    cardlab train --game leduc_poker --solver cfr+ --iterations 1000 --out leduc.npz
    cardlab solve --game kaiser --deal-seed 7
    cardlab play kaiser --seat 0 --partner ismcts --opponents rules --seed 1
    cardlab replay plays --deal 0
    cardlab advise kaiser --hand "AS KS QH 5H ..." --seat 1 --bids "pass 7"
    cardlab serve --port 8765 --results results
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pyspiel

from cardlab.core.interrupt import is_interrupt, sigterm_as_interrupt
from cardlab.core.limits import (
    MAX_DEALS,
    MAX_HINT_SIMULATIONS,
    MAX_INDEX,
    MAX_RESAMPLES,
    MAX_SEARCH_DRAWS,
    MAX_SEED,
    MAX_WORKERS,
    MAX_WORLDS,
    check_count,
    check_seed,
)

if TYPE_CHECKING:  # the games load only when a command needs them
    from cardlab.games.spec import GameSpec


class CliError(Exception):
    """An error to report as one line, exit code 2."""


def load(game: str, params: dict | None = None) -> pyspiel.Game:
    """The game named on the command line (an alias such as ``kaiser`` or its OpenSpiel name)."""
    from cardlab.games import game_spec

    try:
        spec = game_spec(game)
    except ValueError as error:
        raise CliError(str(error)) from error
    try:
        return spec.load(params)
    except (ValueError, TypeError, OverflowError, RuntimeError, pyspiel.SpielError) as error:
        raise CliError(str(error).splitlines()[0]) from error


def game_choices(names: Iterable[str] | None = None) -> str:
    """The games as help texts list them, from the specs: ``kaiser, twenty_eight (twenty-eight, 28) or
    literature (fish)``; ``names`` (OpenSpiel names) keeps those games only."""
    from cardlab.games import SPECS

    listed = [spec.aliases[0] + (f" ({', '.join(spec.aliases[1:])})" if spec.aliases[1:] else "")
              for spec in SPECS if names is None or spec.name in names]
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " or " + listed[-1]


def _seed_in_range(seed: int, what: str) -> None:
    try:
        check_seed(seed, what)
    except ValueError as error:
        raise CliError(str(error)) from error


def _count(value: int, what: str, high: int, low: int = 1) -> None:
    """A count of the command line within its documented range (:mod:`cardlab.core.limits`)."""
    try:
        check_count(value, what, high, low)
    except ValueError as error:
        raise CliError(str(error)) from error


def parse_params(items: list[str]) -> dict:
    """The ``--param KEY=VALUE`` game parameters, each value read as option text is."""
    from cardlab.agents.options import parse_options

    try:
        return parse_options(items, "game parameter")
    except ValueError as error:
        raise CliError(str(error)) from error


def command_play_random(args: argparse.Namespace) -> None:
    from cardlab import agents
    from cardlab.arena import play_deal

    _seed_in_range(args.seed, "--seed")
    game = load(args.game, parse_params(args.param))
    bots = [agents.make(args.agent, game, seat, (args.seed + seat) % MAX_SEED)
            for seat in range(game.num_players())]
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

    _seed_in_range(args.seed, "--seed")
    _count(args.deals, "--deals", MAX_DEALS)
    game = load(args.game, parse_params(args.param))

    def factory(name: str):
        return lambda g, seat, seed: agents.make(name, g, seat, seed)

    print(f"{game}: {args.agent_a} vs {args.agent_b}, {args.deals} duplicate deals, seed {args.seed}")
    result = play_duplicate_match(
        game, factory(args.agent_a), factory(args.agent_b), args.deals, args.seed,
        names=(args.agent_a, args.agent_b), progress=not args.quiet,
    )
    print(result.table())


def tournament_settings(args: argparse.Namespace):
    """Settings from the command line over the config file; validates game, agents and options."""
    from cardlab.arena.config import config_agents, read_config
    from cardlab.arena.entrants import bot_factory, is_native, labelled, parse_agent_list
    from cardlab.arena.tournament import TournamentSettings, default_chunk_size

    config = read_config(args.config)
    game_name = args.game or config.get("game")
    if not game_name:
        raise CliError("no game: give --game or game in the config")
    params = {**dict(config.get("params", {})), **parse_params(args.param)}
    deals = _setting(args.deals, config, "deals", 1000)
    seed = _setting(args.seed, config, "seed", 0)
    workers = _setting(args.workers, config, "workers", None)
    # The numbers before the game: loading it may compile its kernels, a minute on a first run.
    _count(deals, "deals", MAX_DEALS)
    _seed_in_range(seed, "seed")
    if workers is not None:
        _count(workers, "workers", MAX_WORKERS)
    game = load(game_name, params)
    if args.agents is not None:
        agents, labels = parse_agent_list(args.agents), None
    elif "agents" in config:
        agents, labels = config_agents(config["agents"])
    else:
        raise CliError("no agents: give --agents or agents in the config")
    specs = labelled(agents, labels)
    if len(specs) < 2:
        raise CliError(f"a tournament needs at least two agents, got {len(specs)}")
    for spec in specs:
        bot_factory(spec, game)  # fails now, in one line, on a bad name or option
    all_native = all(is_native(spec, game) for spec in specs)
    chunk_size = _setting(args.chunk_size, config, "chunk_size", None)
    if chunk_size is None:
        chunk_size = default_chunk_size(deals, all_native)
    try:
        settings = TournamentSettings(game.get_type().short_name, params, tuple(specs), deals, seed,
                                      chunk_size)
    except ValueError as error:
        raise CliError(str(error)) from error
    out = _setting(args.out, config, "out", None)
    if not out:
        raise CliError("no output directory: give --out or out in the config")
    return settings, Path(out), config


def _setting(given, config: dict, key: str, default):
    """The command line's value, else the config file's, else ``default`` (a given 0 stays 0)."""
    return given if given is not None else config.get(key, default)


def command_tournament(args: argparse.Namespace) -> int:
    from cardlab.arena.tournament import BACKENDS, run_tournament

    settings, out, config = tournament_settings(args)
    backend = _setting(args.backend, config, "backend", "processes")
    if backend not in BACKENDS:
        raise CliError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    workers = _setting(args.workers, config, "workers", None)
    if workers is None:
        workers = os.cpu_count() or 1
    _count(workers, "workers", MAX_WORKERS)
    address = _setting(args.address, config, "address", None)
    agents = ", ".join(f"{a.label}={a.text()}" if a.label != a.name else a.text() for a in settings.agents)
    if not args.quiet:
        print(f"{settings.game}: {agents}; {settings.deals} duplicate deals in {settings.num_chunks} chunks, "
              f"seed {settings.seed}, {backend} x {workers} -> {out}")
    summary = run_tournament(
        settings, out, backend=backend, workers=workers, address=address, progress=not args.quiet,
        command=shlex.join(["cardlab", *args.argv]),
    )
    if summary.interrupted:
        print(f"cardlab: interrupted with {summary.deals_done} of {settings.deals} deals written to {out}; "
              "rerun the same command to resume", file=sys.stderr)
        return 130
    if not args.quiet:
        print(f"{summary.deals_done} deals in {out} ({summary.chunks_played} chunks played now, "
              f"{summary.seconds:.1f} s); see: cardlab report {out}")
    return 0


def command_report(args: argparse.Namespace) -> None:
    from cardlab.analysis.report import report

    _count(args.resamples, "--resamples", MAX_RESAMPLES)
    _count(args.samples, "--samples", MAX_WORLDS)
    _count(args.workers, "--workers", MAX_WORKERS)
    _count(args.search_draws, "--search-draws", MAX_SEARCH_DRAWS, low=0)
    _count(args.stand_in_budget, "--stand-in-budget", MAX_WORLDS, low=0)
    _seed_in_range(args.seed, "--seed")
    text, written = report(args.results, plots=not args.no_plots, resamples=args.resamples, seed=args.seed)
    print(text)
    if args.estimator == "aivat":
        print()
        print(_aivat_report(args))
        written.append(Path(args.results) / "report" / "aivat.json")
    print()
    print("wrote " + ", ".join(str(path) for path in written))


def _aivat_report(args: argparse.Namespace) -> str:
    """The standings under the plain and the AIVAT estimator; ``report/aivat.json`` beside the summary."""
    import json

    from cardlab.analysis.report import compare_estimators, format_comparison
    from cardlab.evaluation.aivat import COLUMNS, POLICY_COLUMNS, reduce
    from cardlab.results import load_results

    columns = COLUMNS + [name for name in POLICY_COLUMNS if _has_column(args.results, name)]
    manifest, table = load_results(args.results, columns)
    reduced = reduce(manifest, table, args.samples, args.search_draws, args.stand_in_budget, args.workers,
                     progress=True)
    comparison = compare_estimators(reduced.plain, reduced.reduced, args.resamples, args.seed)
    summary = {"estimator": "aivat", "samples": reduced.samples, "search_draws": reduced.search_draws,
               "stand_in_budget": reduced.stand_in_budget, "terms": reduced.terms,
               "fallbacks": reduced.fallbacks, "notes": reduced.notes, "seconds": round(reduced.seconds, 1),
               **comparison.to_json()}
    (Path(args.results) / "report" / "aivat.json").write_text(json.dumps(summary, indent=1))
    note = (f"AIVAT: play-outs as the value function, {reduced.samples} samples a value; "
            f"{reduced.terms} correction terms in {reduced.seconds:.0f} s")
    if reduced.fallbacks:
        note += f"; {reduced.fallbacks} values kept the real cards (no consistent redraw)"
    return "\n".join([format_comparison(comparison), note, *reduced.notes])


def _has_column(directory: str, name: str) -> bool:
    """Whether the first part file of a results folder has the column ``name`` (older ones lack some)."""
    import pyarrow.parquet as pq

    parts = sorted(Path(directory).glob("part-*.parquet"))
    return bool(parts) and name in pq.read_schema(parts[0]).names


def command_exploit(args: argparse.Namespace) -> None:
    """Local best response against an agent: points per deal it loses, with a 95% interval."""
    import json

    from cardlab.agents.options import parse_options
    from cardlab.arena.entrants import AgentSpec, parse_agent
    from cardlab.evaluation.lbr import exploit

    load(args.game, parse_params(args.param))  # the game and parameters, checked first
    _seed_in_range(args.seed, "--seed")
    _count(args.deals, "--deals", MAX_DEALS)
    _count(args.workers, "--workers", MAX_WORKERS)
    _count(args.chunk_size, "--chunk-size", MAX_DEALS)
    name, options = parse_agent(args.agent)
    lbr = parse_options([item for item in args.lbr.split(",") if item], "--lbr option")
    result = exploit(args.game, parse_params(args.param), AgentSpec(name, name, options), args.deals,
                     args.seed, lbr, workers=args.workers, chunk_size=args.chunk_size,
                     progress=not args.quiet)
    print(result.text())
    if args.out:
        command = shlex.join(["cardlab", *args.argv])
        Path(args.out).write_text(json.dumps({**result.to_json(), "command": command}, indent=1))
        print(f"wrote {args.out}")


def command_variants(args: argparse.Namespace) -> None:
    """The game's parameters, one line each, then its named rule variants (docs/variants.md)."""
    from cardlab.games import game_spec

    try:
        spec = game_spec(args.game)
    except ValueError as error:
        raise CliError(str(error)) from error
    print(f"{spec.title} ({spec.name}) parameters:")
    for line in spec.parameter_lines():
        print(f"  {line}")
    print("variants:")
    for variant in spec.variants:
        settings = " ".join(variant.parameters) or "-"
        print(f"  {variant.name}  [{variant.variant_class}, {variant.status}]  {settings}")


def _training_game(name: str, params: dict) -> pyspiel.Game:
    """A cardlab game by alias, or any OpenSpiel game by its short name (``kuhn_poker``)."""
    from cardlab.games import game_spec

    try:
        game_spec(name)
    except ValueError:
        try:
            return pyspiel.load_game(name, params)
        except pyspiel.SpielError as error:
            raise CliError(str(error).splitlines()[0]) from error
    return load(name, params)


def command_train(args: argparse.Namespace) -> int:
    from cardlab.cfr.train import TrainingStopped, check_out, check_run

    if args.algo is not None:
        return _learn(args)
    if args.iterations is None:
        raise CliError("train: --iterations is required (or --algo ppo|bc|holders with --steps)")
    try:  # the numbers and --out before the game is loaded and its tree built
        check_run(args.iterations, args.checkpoints, args.seed, args.workers, args.merge_every)
        check_out(args.out, args.resume)
    except ValueError as error:
        raise CliError(str(error)) from error
    game = _training_game(args.game, parse_params(args.param))
    try:
        _train(args, game)
    except TrainingStopped as stop:
        print(f"cardlab: interrupted at {stop.unit} {stop.iteration} of {stop.iterations}, saved in "
              f"{stop.out}; to go on: {shlex.join(['cardlab', *_resumed(args.argv)])}", file=sys.stderr)
        return 130
    return 0


def _learn(args: argparse.Namespace) -> int:
    """``cardlab train --algo ppo|bc|holders``: a network (the ``learn`` extra)."""
    from cardlab.cfr.train import TrainingStopped

    try:
        from cardlab.learn.ppo import make_settings
        from cardlab.learn.train import Run, check_run_out, train
    except ImportError as error:
        raise CliError(f"--algo {args.algo} needs the learn extra: pip install 'cardlab[learn]' "
                       f"({error.name} is missing)") from error
    if args.steps is None:
        raise CliError(f"--algo {args.algo} needs --steps (decisions to learn from)")
    game = load(args.game, parse_params(args.param))
    try:
        settings = make_settings(dict(_key_value(text, "--set") for text in args.set))
        run = Run(game, args.algo, args.steps, args.seed, settings, args.opponents, args.teacher, args.init,
                  args.checkpoint_every, tuple(args.eval_opponent or ["rules"]), args.eval_deals,
                  args.eval_minutes)
        run.check()
        check_run_out(args.out, args.resume)
        model = train(run, args.out, args.resume, progress=not args.quiet,
                      command=shlex.join(["cardlab", *args.argv]))
    except TrainingStopped as stop:
        print(f"cardlab: interrupted at {stop.unit} {stop.iteration} of {stop.iterations}, saved in "
              f"{stop.out}; to go on: {shlex.join(['cardlab', *_resumed(args.argv)])}", file=sys.stderr)
        return 130
    except ValueError as error:
        raise CliError(str(error).splitlines()[0]) from error
    progress = model.metadata["training"]["progress"]
    history = progress["history"]
    last = "".join(f", log-loss {entry['log_loss']:.4f} (the sampler's {entry['sampler_log_loss']:.4f})"
                   if "log_loss" in entry else f", vs {entry['opponent']} {entry['mean']:+.3f} per deal"
                   for entry in history if entry["updates"] == history[-1]["updates"])
    print(f"{args.out}: {args.algo} on {game.get_type().short_name}, {progress['decisions']} decisions{last}")
    return 0


def _key_value(text: str, flag: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"{flag} takes KEY=VALUE, got {text!r}")
    return key, value


def _resumed(argv: list[str]) -> list[str]:
    """The command line ``argv`` with ``--resume``, once."""
    return argv if "--resume" in argv else [*argv, "--resume"]


def _train(args: argparse.Namespace, game: pyspiel.Game) -> None:
    from cardlab.cfr.solvers import SAMPLERS
    from cardlab.cfr.train import train, train_bidding, train_sampling

    if args.solver == "bidding":
        table = train_bidding(game, args.out, args.iterations, args.granularity, args.seed,
                              args.workers, args.merge_every, args.resume, args.checkpoints,
                              progress=not args.quiet)
        print(f"{args.out}: bidding MCCFR ({args.granularity}) on {game.get_type().short_name}, "
              f"{table.metadata['iterations']} iterations, {len(table.names)} information sets, "
              f"{table.metadata['seconds']} s")
        return
    if args.solver in SAMPLERS:
        if not game.get_type().short_name.startswith("cardlab_"):
            raise CliError(f"--solver {args.solver} (MCCFR) walks the cardlab engines: "
                           f"not {game.get_type().short_name}")
        table = train_sampling(game, args.out, args.iterations, args.solver, args.seed,
                               args.resume, args.checkpoints, progress=not args.quiet)
        print(f"{args.out}: {args.solver} MCCFR on {game}, {table.metadata['iterations']} "
              f"iterations, {len(table.names)} information sets")
        return
    table = train(game, args.out, args.iterations, args.solver, args.schedule, args.resume,
                  args.checkpoints, progress=not args.quiet)
    info = table.metadata
    print(f"{args.out}: {info['solver']} on {game}, {info['iterations']} iterations, "
          f"{info['tree']['infosets']} information sets, exploitability {info['exploitability']:.6g}")


def command_solve(args: argparse.Namespace) -> None:
    """The double-dummy table and par of a deal: seeded (as the arena deals it) or typed in.

    The contracts offered follow the game's parameters: Kaiser's low no trump
    only with ``--param low_no_trump=true``, bids from its ``min_bid``.
    """
    from cardlab.core.cards import cards_string
    from cardlab.games.double_dummy import SOLVED_PARAMETERS
    from cardlab.solver import analyse, deal_from_seed, par, parse_hands
    from cardlab.solver.analysis import contract_text
    from cardlab.solver.solve import game_id_of

    params = parse_params(args.param)
    game = load(args.game, params)
    name = game.get_type().short_name
    try:
        read = SOLVED_PARAMETERS[game_id_of(name)]
    except ValueError as error:
        raise CliError(str(error)) from error
    others = sorted(set(params) - set(read))
    if others:
        raise CliError(f"solve plays the standard {name} deal: it reads "
                       f"{', '.join(read) or 'no parameter'}, not {', '.join(others)}"
                       + (" (give --dealer)" if "dealer" in others else ""))
    if args.hands is not None:
        hands = parse_hands(name, args.hands)
    else:
        _seed_in_range(args.deal_seed, "--deal-seed")
        hands = deal_from_seed(name, args.deal_seed, args.dealer)
    for seat, hand in enumerate(hands):
        print(f"seat {seat}: {cards_string(int(hand))}")
    parameters = game.get_parameters()
    table = analyse(name, hands, low_no_trump=bool(parameters.get("low_no_trump", False)))
    print()
    print(table.text())
    best0, best1, par_contract = par(table, dealer=args.dealer, min_bid=int(parameters.get("min_bid", 6)))
    print()
    print(f"best for team 0: {contract_text(name, best0)}")
    print(f"best for team 1: {contract_text(name, best1)}")
    print(f"par:             {contract_text(name, par_contract)}")


def command_play(args: argparse.Namespace) -> int:
    """One hand against the bots at the terminal (cardlab.play.session); ``--resume`` goes on with one."""
    from cardlab.arena.entrants import AgentSpecError
    from cardlab.play.position import load_position
    from cardlab.play.record import check_games_folder, save_game
    from cardlab.play.session import LeftTableError, Session, check_table, make_bots, seat_labels

    if args.resume is not None:
        position = load_position(args.resume)
        if position.table is None:
            raise CliError(f"--resume {args.resume}: not a game left at the table (it has no \"table\")")
        if position.state.is_terminal():
            raise CliError(f"--resume {args.resume}: that game is over")
        game, seat = position.state.get_game(), position.seat
        seed, partner, opponents = (position.table[key] for key in ("seed", "partner", "opponents"))
        hint_simulations = position.table["hint_simulations"]
    else:
        if args.game is None:
            raise CliError(f"give the game to play ({game_choices()}), or --resume FILE")
        params = parse_params(args.param)
        if args.players is not None:
            params["players"] = args.players
        # The numbers before the game: loading it may compile its kernels on a first run.
        _seed_in_range(args.seed, "--seed")
        _count(args.hint_simulations, "--hint-simulations", MAX_HINT_SIMULATIONS)
        game = load(args.game, params)
        seat, seed, partner, opponents = args.seat, args.seed, args.partner, args.opponents
        hint_simulations = args.hint_simulations
    _seed_in_range(seed, "--seed")
    check_table(game, seat, hint_simulations)
    out = check_games_folder(args.out)  # before the first move, not after the last
    try:
        bots = make_bots(game, seat, partner, opponents, seed)
    except AgentSpecError as error:
        raise CliError(str(error)) from error
    labels = seat_labels(game.num_players(), seat, partner, opponents)
    session = Session(game, seat, bots, seed, labels, hint_simulations)
    if args.resume is not None:
        session.restore(position.state.history())
    table = {"seed": seed, "partner": partner, "opponents": opponents, "hint_simulations": hint_simulations}
    try:
        state = session.play()
    except LeftTableError:
        print("\nleft the table; the game is not saved")
        return 1
    except (KeyboardInterrupt, SystemError) as error:
        if not is_interrupt(error):
            raise
        path = _keep_unfinished(session, out, table)
        print(f"\ncardlab: interrupted; the game so far is in {path}; to go on: cardlab play --resume "
              f"{shlex.quote(str(path))} --out {shlex.quote(str(out))}", file=sys.stderr)
        return 130
    print(str(state))
    print(session.result_text())
    command = shlex.join(["cardlab", *args.argv])
    try:
        deal = save_game(out, state, labels, seed, session.seconds, session.moves_by_seat(), session.notes,
                         command)
    except (OSError, ValueError) as error:  # a disk full since the start: the game is kept all the same
        path = _keep_unfinished(session, out, table)
        raise CliError(f"cannot save the game in {out} ({str(error).splitlines()[0]}); its moves are "
                       f"in {path}") from error
    print(f"saved as game {deal} in {out}; see: cardlab replay {out} --deal {deal}")
    return 0


def _keep_unfinished(session, out: Path, table: dict) -> Path:
    """Write the game so far as a position file with its table, in ``out`` or else the temporary folder."""
    import tempfile

    from cardlab.play.position import save_position

    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    name = f"unfinished-seed{table['seed']}-{stamp}.json"
    for folder in (out, Path(tempfile.gettempdir())):
        try:
            return save_position(folder / name, session.state, session.seat, table)
        except OSError:
            continue
    raise CliError(f"cannot write {name} in {out} or {tempfile.gettempdir()}")


def command_replay(args: argparse.Namespace) -> None:
    """A stored deal step by step (cardlab.play.replay)."""
    from cardlab.play.record import load_deal
    from cardlab.play.replay import run_replay

    run_replay(load_deal(args.results, args.deal, args.seating), args.seat, args.all)


def command_advise(args: argparse.Namespace) -> None:
    """Bids by simulation (Kaiser, Twenty-Eight); claims by deduction and sampling (Literature)."""
    from cardlab.games import game_spec

    try:
        spec = game_spec(args.game)
    except ValueError as error:
        raise CliError(str(error)) from error
    _seed_in_range(args.seed, "--seed")
    _count(args.worlds, "--worlds", MAX_WORLDS)
    for what, value in (("--deal", args.deal), ("--seating", args.seating), ("--move", args.move)):
        _count(value, what, MAX_INDEX, low=0)
    if spec.claim_odds is not None:
        _advise_claims(args, spec)
        return
    from cardlab.play.advise import advise_bids, bidding_position

    if args.hand is None or args.seat is None:
        raise CliError("bid advice needs --hand and --seat")
    game = load(args.game, parse_params(args.param))
    state = bidding_position(game, args.hand, args.seat, args.bids)
    print(state.observation_string(args.seat))
    try:
        advice = advise_bids(state, args.seat, args.worlds, args.epsilon, args.players, args.seed,
                             args.quantile, args.solver)
    except ValueError as error:
        raise CliError(str(error).splitlines()[0]) from error
    print(advice.text())


def command_serve(args: argparse.Namespace) -> int:
    """The local page: play against the bots and replay stored deals in the browser (cardlab.play.web)."""
    from cardlab.play.web import WebApp, make_server

    server = make_server(WebApp(args.results, args.out), args.port, args.host)
    try:
        print(f"cardlab serve: http://{args.host}:{server.server_port}/ (Ctrl-C to stop); "
              f"games are saved in {args.out}", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM; finished games are already saved
        print("\nstopped", flush=True)
    finally:
        server.server_close()
    return 0


def _advise_claims(args: argparse.Namespace, spec: GameSpec) -> None:
    from cardlab.play.position import load_position
    from cardlab.play.record import load_deal
    from cardlab.play.replay import Replay

    if args.position is None:
        raise CliError("Literature advice needs a stored position: --position FILE, or --position DIR "
                       "--deal N --move K")
    if Path(args.position).is_file():  # a position file names the game, the move and the seat
        position = load_position(args.position)
        state, where = position.state, position.where
        seat = position.seat if args.seat is None else args.seat
    else:
        replay = Replay(load_deal(args.position, args.deal, args.seating))
        if not 1 <= args.move <= len(replay) + 1:
            raise CliError(f"--move must be 1..{len(replay) + 1} (the end), got {args.move}")
        state = replay.state_before(args.move - 1)
        where = f"before move {args.move} of deal {args.deal}"
        seat = state.current_player() if args.seat is None else args.seat
    if state.get_game().get_type().short_name != spec.name:
        raise CliError(f"{args.position} holds a game of {state.get_game().get_type().short_name}, "
                       f"not {spec.title}")
    if not 0 <= seat < state.num_players():
        raise CliError(f"--seat must be 0..{state.num_players() - 1}, got {seat} (give --seat at the end)")
    odds, worlds = spec.claim_odds(state, seat, args.worlds, args.seed)
    print(f"P{seat} {where}; {worlds} sampled worlds")
    print(f"{'half-suit':<10} {'certain':>8} {'team holds':>11} {'claim right':>12}  best claim")
    for row in odds:
        print(f"{row.half_suit:<10} {'yes' if row.certain else 'no':>8} {row.team_holds:>11.1%} "
              f"{row.best_claim_right:>12.1%}  {row.best_claim}")


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in the one-line form of every other error."""

    def error(self, message: str):
        self.exit(2, f"cardlab: error: {message.splitlines()[0]}\n")


WARMUP_GROUPS = ("openspiel", "tournament", "ismcts", "pimc", "solver", "rl", "play")


def command_warmup(args: argparse.Namespace) -> None:
    """Compile every kernel a game's commands use, ahead of time (cardlab.warmup)."""
    import time

    from cardlab.games import SPECS, game_spec
    from cardlab.warmup import warm_up

    try:
        names = [game_spec(game).name for game in args.game] if args.game else [spec.name for spec in SPECS]
    except ValueError as error:
        raise CliError(str(error)) from error
    names = list(dict.fromkeys(names))
    workers = args.workers if args.workers is not None else min(os.cpu_count() or 1, len(names))
    if workers < 1:
        raise CliError(f"workers must be a positive integer, got {workers}")
    groups = args.only or list(WARMUP_GROUPS)
    if not args.quiet:
        print(f"compiling {', '.join(groups)} kernels of {', '.join(names)} in {workers} process"
              f"{'es' if workers > 1 else ''} (what is cached already is only loaded)", flush=True)
    start = time.perf_counter()

    def report(name: str, spent: dict[str, float | str]) -> None:
        if not args.quiet or any(isinstance(value, str) for value in spent.values()):
            parts = [f"{group} {seconds}" if isinstance(seconds, str) else
                     f"{group} {seconds:.0f} s" if seconds else f"{group} cached"
                     for group, seconds in spent.items()]
            print(f"  {name}: {', '.join(parts)}", flush=True)

    results = warm_up(names, groups, workers, report)
    failed = [f"{name} {group}" for name, spent in results.items() for group, value in spent.items()
              if isinstance(value, str)]
    if failed:
        raise CliError(f"warm-up failed for {', '.join(failed)} (see above)")
    if not args.quiet:
        print(f"ready in {time.perf_counter() - start:.0f} s")


def build_parser() -> argparse.ArgumentParser:
    """The ``cardlab`` command line: one subcommand each, added by the ``_add_<command>`` below."""
    parser = _Parser(prog="cardlab", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_play_random, _add_demo, _add_tournament, _add_report, _add_exploit, _add_variants,
                _add_train, _add_solve, _add_play, _add_replay, _add_advise, _add_serve, _add_warmup):
        add(sub)
    return parser


def _add_play_random(sub: argparse._SubParsersAction) -> None:
    """``cardlab play-random``."""
    play = sub.add_parser("play-random", help="play one game and print its log")
    play.add_argument("--game", required=True)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--agent", default="random", help="agent at every seat (default random)")
    play.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    play.set_defaults(run=command_play_random)


def _add_demo(sub: argparse._SubParsersAction) -> None:
    """``cardlab demo``."""
    demo = sub.add_parser("demo", help="a small duplicate match, printed as a table")
    demo.add_argument("--game", default="kaiser")
    demo.add_argument("--deals", type=int, default=200)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--agent-a", default="rules")
    demo.add_argument("--agent-b", default="random")
    demo.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    demo.add_argument("--quiet", action="store_true", help="no progress bar")
    demo.set_defaults(run=command_demo)


def _add_tournament(sub: argparse._SubParsersAction) -> None:
    """``cardlab tournament``."""
    tour = sub.add_parser(
        "tournament", help="a duplicate round robin between agents, saved as Parquet, resumable",
        description="Every pair of agents plays every deal from both sides (duplicate). Rerun the same "
        "command to resume an interrupted run.",
    )
    tour.add_argument("--game", help=game_choices())
    tour.add_argument("--agents", help="specs, comma-separated: rules,ismcts:simulations=500,py:mod:fn")
    tour.add_argument("--deals", type=int, help=f"duplicate deals (default 1000, at most {MAX_DEALS:,})")
    tour.add_argument("--seed", type=int, help="tournament seed (default 0)")
    tour.add_argument("--workers", type=int,
                      help=f"worker processes (default: all cores, at most {MAX_WORKERS})")
    tour.add_argument("--out", help="results directory")
    tour.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="game parameter")
    tour.add_argument("--config", help="TOML file with any of the settings above (the command line wins)")
    tour.add_argument("--backend", help="processes (default), serial (in this process) or ray")
    tour.add_argument("--address", help="Ray cluster HOST:PORT (default: start a local Ray)")
    tour.add_argument("--chunk-size", type=int, help="deals per chunk and part file (default: ~32 chunks)")
    tour.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    tour.set_defaults(run=command_tournament)


def _add_report(sub: argparse._SubParsersAction) -> None:
    """``cardlab report``."""
    rep = sub.add_parser("report", help="tables and plots of a tournament's results")
    rep.add_argument("results", help="results directory of cardlab tournament")
    rep.add_argument("--no-plots", action="store_true", help="print the tables only")
    rep.add_argument("--resamples", type=int, default=2000,
                     help=f"bootstrap resamples (default 2000, at most {MAX_RESAMPLES:,})")
    rep.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    rep.add_argument("--estimator", choices=("plain", "aivat"), default="plain",
                     help="aivat: also the variance-reduced standings, side by side (docs/evaluation.md)")
    rep.add_argument("--samples", type=int, default=64,
                     help=f"AIVAT: play-outs per value (default 64, at most {MAX_WORLDS:,})")
    rep.add_argument("--search-draws", type=int, default=0,
                     help="AIVAT: rerun ISMCTS's and PIMC's search this many times at each of their "
                     "decisions to correct them too (costs that many times their thinking time; default 0: "
                     f"their decisions get no term; at most {MAX_SEARCH_DRAWS})")
    rep.add_argument("--stand-in-budget", type=int, default=0,
                     help="AIVAT: let ISMCTS and PIMC play themselves in the value function's play-outs with "
                     "their simulations and worlds capped at this (default 0: the rule-based player plays "
                     "for them)")
    rep.add_argument("--workers", type=int, default=1,
                     help="AIVAT: processes that compute the corrections (default 1)")
    rep.set_defaults(run=command_report)


def _add_exploit(sub: argparse._SubParsersAction) -> None:
    """``cardlab exploit``."""
    exp = sub.add_parser(
        "exploit", help="local best response against an agent: a lower bound on its exploitability",
        description="A local-best-response team plays the agent's team on duplicate deals and reports "
        "the points per deal the agent loses, with a 95%% interval (docs/evaluation.md).",
    )
    exp.add_argument("--game", required=True, help=game_choices())
    exp.add_argument("--agent", required=True, help="an agent of the compiled arena: rules, ismcts:...")
    exp.add_argument("--deals", type=int, default=100, help="duplicate deals (default 100)")
    exp.add_argument("--seed", type=int, default=0, help="deal seed (default 0)")
    exp.add_argument("--lbr", default="", metavar="KEY=VALUE,...",
                     help="responder options: worlds, rollouts, agent_moves, continuation, epsilon, "
                     "agent_model")
    exp.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    exp.add_argument("--chunk-size", type=int, default=10, help="deals per task (default 10)")
    exp.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="game parameter")
    exp.add_argument("--out", help="write the result and every deal's score as JSON")
    exp.add_argument("--quiet", action="store_true", help="no progress bar")
    exp.set_defaults(run=command_exploit)


def _add_variants(sub: argparse._SubParsersAction) -> None:
    """``cardlab variants``."""
    var = sub.add_parser("variants", help="a game's parameters and named rule variants")
    var.add_argument("--game", required=True, help=game_choices())
    var.set_defaults(run=command_variants)


def _add_train(sub: argparse._SubParsersAction) -> None:
    """``cardlab train``."""
    from cardlab.cfr.solvers import SAMPLERS, SCHEDULES, SOLVERS
    tra = sub.add_parser(
        "train", help="solve a small game with tabular CFR, or train a network (--algo); .npz, resumable",
        description="Builds the whole game tree (cardlab games from their engines, any other "
        "OpenSpiel game through its API), runs the solver and checkpoints into --out. With --algo, "
        "trains a policy-and-value network on batches of games instead (docs/learning.md).",
    )
    tra.add_argument("--game", required=True, help="a cardlab game or an OpenSpiel game (kuhn_poker)")
    tra.add_argument("--solver", choices=list(SOLVERS) + list(SAMPLERS) + ["bidding"],
                     default="cfr+",
                     help="a tabular solver, external/outcome-sampling MCCFR (cardlab games), or "
                     "bidding: MCCFR on the abstracted auction of Kaiser or Twenty-Eight")
    tra.add_argument("--granularity", choices=["coarse", "fine"], default="coarse",
                     help="hand buckets of --solver bidding (default coarse)")
    tra.add_argument("--workers", type=int, default=1,
                     help="processes of --solver bidding, merged every --merge-every iterations")
    tra.add_argument("--merge-every", type=int, default=1000,
                     help="iterations per worker between merges (--solver bidding)")
    tra.add_argument("--seed", type=int, default=0, help="seed of the sampling solvers")
    tra.add_argument("--schedule", choices=list(SCHEDULES), default="openspiel",
                     help="player updates per iteration (default openspiel: each in turn)")
    tra.add_argument("--iterations", type=int, help="iterations in all (the CFR solvers)")
    tra.add_argument("--out", required=True, help="policy file (.npz), rewritten at each checkpoint")
    tra.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    tra.add_argument("--checkpoints", type=int, default=10, help="saves during the run (default 10)")
    tra.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="game parameter")
    tra.add_argument("--quiet", action="store_true", help="no progress bar")
    net = tra.add_argument_group("policy-and-value networks (--algo; the learn extra), docs/learning.md")
    net.add_argument("--algo", choices=["ppo", "bc", "holders"],
                     help="ppo: self-play PPO with action masks; bc: imitate --teacher (a warm start); "
                     "holders: a hand-inference model, where each hidden card is, from --teacher's games")
    net.add_argument("--steps", type=int, help="decisions to learn from, in all")
    net.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="a learning setting (num_envs, batch, learning_rate, hidden=256x256, ...)")
    net.add_argument("--opponents", help="a native agent the learner plays against (default: self-play)")
    net.add_argument("--teacher", default="rules",
                     help="the native agent --algo bc imitates (and whose games --algo holders labels)")
    net.add_argument("--init", help="a model file to start from")
    net.add_argument("--checkpoint-every", type=int, default=20, help="updates between checkpoints")
    net.add_argument("--eval-opponent", action="append",
                     help="an agent strength is measured against (default rules; repeat for several)")
    net.add_argument("--eval-deals", type=int, default=500,
                     help="duplicate deals of each measurement (--algo holders: held-out positions)")
    net.add_argument("--eval-minutes", type=float, default=10.0, help="minutes between measurements")
    tra.set_defaults(run=command_train)


def _add_solve(sub: argparse._SubParsersAction) -> None:
    """``cardlab solve``."""
    from cardlab.games import double_dummy

    solve = sub.add_parser("solve", help="the double-dummy table and par of a deal")
    solve.add_argument("--game", default="kaiser", help=game_choices(double_dummy.GAME_IDS))
    solve.add_argument("--deal-seed", type=int, default=0, help="the deal of this seed (default 0)")
    solve.add_argument("--hands", help='a typed deal, seats 0 to 3: "AS KS ... / ... / ... / ..."')
    solve.add_argument("--dealer", type=int, default=0, choices=range(4), help="dealer seat (default 0)")
    solve.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                       help="Kaiser's min_bid and low_no_trump (its contracts; default the standard game)")
    solve.set_defaults(run=command_solve)


def _add_play(sub: argparse._SubParsersAction) -> None:
    """``cardlab play``."""
    hand = sub.add_parser("play", help="play a hand against the bots at the terminal")
    hand.add_argument("game", nargs="?", help=game_choices())
    hand.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    hand.add_argument("--partner", default="rules", help="agent spec of your partners (default rules)")
    hand.add_argument("--opponents", default="rules", help="agent spec of the opponents (default rules)")
    hand.add_argument("--seed", type=int, default=0, help="deal seed: the same seed, the same cards")
    hand.add_argument("--players", type=int, help="Literature: the number of players (4, 6, 8, 12, 16)")
    hand.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="game parameter")
    hand.add_argument("--hint-simulations", type=int, default=1000,
                      help=f"ISMCTS budget of hint (default 1000, at most {MAX_HINT_SIMULATIONS:,})")
    hand.add_argument("--out", default="plays", help="folder the finished game is saved in (default plays)")
    hand.add_argument("--resume", metavar="FILE", help="go on with a game left by Ctrl-C (the file it named)")
    hand.set_defaults(run=command_play)


def _add_replay(sub: argparse._SubParsersAction) -> None:
    """``cardlab replay``."""
    rpl = sub.add_parser("replay", help="step through a stored deal, forward and back")
    rpl.add_argument("results", help="a tournament folder or a folder of played games")
    rpl.add_argument("--deal", type=int, default=0, help="deal number (default 0)")
    rpl.add_argument("--seating", type=int, default=0, help="seating of the deal (default 0)")
    rpl.add_argument("--seat", type=int, help="show one seat's view (default: every hand)")
    rpl.add_argument("--all", action="store_true", help="print every step at once")
    rpl.set_defaults(run=command_replay)


def _add_advise(sub: argparse._SubParsersAction) -> None:
    """``cardlab advise``."""
    adv = sub.add_parser("advise", help="what to bid (Kaiser, Twenty-Eight) or claim (Literature)")
    adv.add_argument("game", help=game_choices())
    adv.add_argument("--hand", help='your cards: "AS KS QH 5H ..." (Twenty-Eight: 4 or 8 cards)')
    adv.add_argument("--seat", type=int, help="your seat (Literature: default the player to move)")
    adv.add_argument("--bids", default="", help='the bids before yours, in turn: "pass 7" (default none)')
    adv.add_argument("--worlds", type=int, default=400,
                     help=f"worlds simulated (default 400, at most {MAX_WORLDS:,})")
    adv.add_argument("--epsilon", type=float, default=0.1,
                     help="a world's weight factor per bid of the others it does not explain (default 0.1)")
    adv.add_argument("--players", default="rules", help="who plays the deals out: rules or ismcts:...")
    adv.add_argument("--quantile", type=float, default=0.1, help="the low quantile shown (default 0.1)")
    adv.add_argument("--solver", choices=("play", "dd"), default="play",
                     help="play: the --players play the deals out (default); dd: they bid, and the "
                     "cards are played double dummy (Kaiser and Twenty-Eight as the solver models them)")
    adv.add_argument("--seed", type=int, default=0, help="seed of the worlds and the play")
    adv.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="game parameter")
    adv.add_argument("--position", help="Literature: a position file (JSON, docs/play.md), or a stored "
                                         "deal's folder (tournament or played games) with --deal and --move")
    adv.add_argument("--deal", type=int, default=0, help="Literature: the deal in --position")
    adv.add_argument("--seating", type=int, default=0, help="Literature: its seating")
    adv.add_argument("--move", type=int, default=1, help="Literature: the position before this move")
    adv.set_defaults(run=command_advise)


def _add_serve(sub: argparse._SubParsersAction) -> None:
    """``cardlab serve``."""
    web = sub.add_parser("serve", help="a local page: play against the bots and replay deals in the browser")
    web.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765; 0: any free)")
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    web.add_argument("--results", help="a folder of stored deals to replay (a tournament, played games, "
                                       "or a folder of them)")
    web.add_argument("--out", default="plays", help="folder finished games are saved in (default plays)")
    web.set_defaults(run=command_serve)


def _add_warmup(sub: argparse._SubParsersAction) -> None:
    """``cardlab warmup``."""
    warm = sub.add_parser("warmup", help="compile the kernels ahead of time, in parallel processes",
                          description="numba compiles cardlab's kernels on first use and keeps them on disk; "
                          "this compiles them now, one process per game.")
    warm.add_argument("--game", action="append", help="a game (repeatable; default: every game)")
    warm.add_argument("--only", action="append", choices=WARMUP_GROUPS, help="a group of kernels "
                      "(repeatable; default: all)")
    warm.add_argument("--workers", type=int, help="processes (default: one per game, at most the cores)")
    warm.add_argument("--quiet", action="store_true", help="print nothing but errors")
    warm.set_defaults(run=command_warmup)

def main(argv: list[str] | None = None) -> int:
    """Run one command: errors in one line (exit 2), Ctrl-C or SIGTERM in one line (exit 130).

    A command that keeps work (tournament, train, play) says itself what it
    kept and how to go on; ``cardlab ... | head`` ends quietly.
    """
    parser = build_parser()
    from cardlab.arena.pool import WorkerLostError
    from cardlab.results import ResultsError

    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error already reported in one line
        return int(stop.code or 0)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    from cardlab.core.compiling import announce, estimate

    game = getattr(args, "game", None)
    game = game if isinstance(game, str) else None
    what = f"kernels for cardlab {args.command}" + (f" ({game})" if game else "")
    quiet = args.command == "warmup"  # it says what it compiles itself
    try:
        with sigterm_as_interrupt(), \
                announce(what, estimate(args.command, game), write=(lambda line: None) if quiet else None):
            code = args.run(args)
    except (KeyboardInterrupt, SystemError) as error:
        if not is_interrupt(error):
            raise
        print("cardlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): nothing more to say, to anyone
        _silence_stdout()
        return 0
    except (CliError, ResultsError, WorkerLostError, ValueError, OSError) as error:
        print(f"cardlab: error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    return code or 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush meets no closed pipe either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # a stdout without a file (a test's capture)
        pass


if __name__ == "__main__":
    sys.exit(main())
