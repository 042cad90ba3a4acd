"""No crash, no hang, no lost work on play, advise, train, replay and solve: numbers, files, destinations.

Every case ends in a correct result or one line ``cardlab: error: ...`` (exit 2) before any work;
files a user hands in (policy files, played-games manifests, position files) are checked field by
field and never followed out of their folder; a training checkpoint survives being cut off.
The signals (Ctrl-C, SIGTERM, kills) are in ``test_interrupts.py``, the web server in
``test_serve_robustness.py``.
"""

from __future__ import annotations

import builtins
import json
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from conftest import assert_one_line_error, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardlab import agents
from cardlab.arena import play_deal
from cardlab.cfr.policy import PolicyTable, load_policy, save_policy
from cardlab.cfr.train import load_checkpoint, save_checkpoint
from cardlab.cli import main
from cardlab.core.files import checksum, previous_path
from cardlab.core.limits import (
    MAX_DEALS,
    MAX_HINT_SIMULATIONS,
    MAX_ITERATIONS,
    MAX_RESAMPLES,
    MAX_SEED,
    MAX_WORKERS,
    MAX_WORLDS,
    check_count,
    check_seed,
)
from cardlab.play.position import load_position, save_position
from cardlab.play.record import check_games_folder, load_deal, save_game
from cardlab.results import MANIFEST, ResultsError

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])


# ---- one rule for numbers --------------------------------------------------------------------
@given(value=st.one_of(st.integers(), st.booleans(), st.floats(), st.text(max_size=5), st.none(),
                       st.sampled_from([np.int64(3), np.uint64(2**64 - 1), -1, 2**64, 2**64 - 1])))
def test_a_seed_is_an_unsigned_64_bit_integer_and_nothing_else(value):
    if isinstance(value, int | np.integer) and not isinstance(value, bool) and 0 <= value < MAX_SEED:
        assert check_seed(value) == int(value)
    else:
        with pytest.raises(ValueError, match=r"must be an integer from 0 to 2\*\*64 - 1, got"):
            check_seed(value)


@given(value=st.one_of(st.integers(), st.booleans(), st.floats()), high=st.integers(1, 10**12),
       low=st.sampled_from([0, 1]))
def test_a_count_is_checked_against_its_documented_range(value, high, low):
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        assert check_count(value, "--things", high, low) == value
    else:
        with pytest.raises(ValueError, match=f"--things must be .*{high:,}, got"):
            check_count(value, "--things", high, low)


#: Each count of the command line, the command that takes it, and its documented maximum.
COUNTS = [
    (["play-random", "--game", "kaiser"], "--seed", MAX_SEED - 1, 0),
    (["demo", "--quiet"], "--seed", MAX_SEED - 1, 0),
    (["demo", "--quiet"], "--deals", MAX_DEALS, 1),
    (["train", "--game", "kuhn_poker", "--iterations", "5", "--out", "{tmp}/p.npz"], "--seed",
     MAX_SEED - 1, 0),
    (["train", "--game", "kuhn_poker", "--out", "{tmp}/p.npz"], "--iterations", MAX_ITERATIONS, 1),
    (["train", "--game", "kuhn_poker", "--iterations", "5", "--out", "{tmp}/p.npz"], "--workers",
     MAX_WORKERS, 1),
    (["play", "kaiser", "--out", "{tmp}"], "--hint-simulations", MAX_HINT_SIMULATIONS, 1),
    (["play", "kaiser", "--out", "{tmp}"], "--seed", MAX_SEED - 1, 0),
    (["advise", "kaiser", "--hand", "AS", "--seat", "1"], "--worlds", MAX_WORLDS, 1),
    (["advise", "literature", "--position", "{tmp}"], "--deal", 2**63 - 1, 0),
    (["advise", "kaiser"], "--seed", MAX_SEED - 1, 0),
    (["report", "{tmp}"], "--resamples", MAX_RESAMPLES, 1),
    (["replay", "{tmp}"], "--deal", 2**63 - 1, 0),
    (["tournament", "--game", "kaiser", "--agents", "rules,random", "--out", "{tmp}/file"], "--workers",
     MAX_WORKERS, 1),
    (["tournament", "--game", "kaiser", "--agents", "rules,random", "--out", "{tmp}/file"], "--deals",
     MAX_DEALS, 1),
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(COUNTS), value=st.one_of(st.integers(-3, 3), st.sampled_from(
    [2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30, -(10**30), MAX_DEALS + 1, MAX_WORLDS + 1, 10**9])))
def test_every_count_out_of_range_is_named_before_any_work(case, value):
    """An out-of-range number is a one-line error naming it; an in-range one gets past the check
    (the command then stops at something else: a missing hand, an empty folder, a file as --out)."""
    command, flag, high, low = case
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "file").write_text("")
        argv = [part.replace("{tmp}", folder) for part in command]
        if low <= value <= high:
            return  # in range: the commands' own tests play those
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main([*argv, flag, str(value)])
    assert_one_line_error(code, err.getvalue(), flag.lstrip("-"))


def test_a_seed_beyond_64_bits_is_refused_not_reduced(capsys):
    code, _, err = run_cli(capsys, "play-random", "--game", "kaiser", "--seed", str(2**64 + 5))
    assert_one_line_error(code, err, "--seed must be an integer from 0 to 2**64 - 1, got 1844674407370955162")


# ---- the destination of a game, checked before the first move ------------------------------------
def test_a_games_folder_is_checked_before_the_first_move(tmp_path, capsys, monkeypatch, finished_tournament):
    (tmp_path / "file").write_text("precious")
    asked = []
    monkeypatch.setattr(builtins, "input", lambda prompt="": asked.append(prompt) or "quit")
    for out, message in [(tmp_path / "file", "exists and is not a directory"),
                         (tmp_path / "file" / "sub", "cannot save games in"),
                         (Path("/proc/cardlab-cannot-make-this"), "cannot save games in"),
                         (finished_tournament, "is not a folder of played games")]:
        with pytest.raises(ResultsError, match=message):
            check_games_folder(out)
        code, out_text, err = run_cli(capsys, "play", "kaiser", "--out", str(out))
        assert_one_line_error(code, err, message)
        assert asked == [] and out_text == ""  # refused before the table was even drawn
    assert (tmp_path / "file").read_text() == "precious"
    assert check_games_folder(tmp_path / "new" / "plays").is_dir()


@pytest.fixture(scope="module")
def finished_tournament(tmp_path_factory) -> Path:
    from cardlab.arena.entrants import labelled, parse_agent_list
    from cardlab.arena.tournament import TournamentSettings, run_tournament

    out = tmp_path_factory.mktemp("tournament") / "run"
    settings_ = TournamentSettings("cardlab_kaiser", {}, tuple(labelled(parse_agent_list("rules,random"))),
                                   4, 3, 2)
    run_tournament(settings_, out, backend="serial", progress=False)
    return out


# ---- played-games manifests: each game names its own part, inside its folder ------------------------
@pytest.fixture(scope="module")
def two_folders(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("played")
    game = pyspiel.load_game("cardlab_kaiser")
    for name, seed in (("g1", 1), ("g2", 2)):
        for extra in range(2):
            bots = [agents.make("random", game, seat, seat) for seat in range(4)]
            state, _ = play_deal(game, bots, seed + 10 * extra)
            save_game(root / name, state, ["human", "random", "random", "random"], seed + 10 * extra,
                      [0.0] * 4, [0] * 4, [""] * len(state.history()))
    return root / "g1", root / "g2"


def test_a_manifest_pointing_into_another_folder_is_refused(two_folders, tmp_path):
    g1, g2 = two_folders
    copy = tmp_path / "g1"
    shutil.copytree(g1, copy)
    manifest = json.loads((copy / MANIFEST).read_text())
    other = json.loads((g2 / MANIFEST).read_text())["games"][0]
    for file in (f"../{g2.name}/{other['file']}", str(g2 / other["file"]), "../../../../etc/passwd",
                 "part-000001.parquet"):
        manifest["games"][0] = {**manifest["games"][0], "file": file, "sha256": other["sha256"]}
        (copy / MANIFEST).write_text(json.dumps(manifest))
        with pytest.raises(ResultsError, match="must name its own part file part-000000.parquet"):
            load_deal(copy, 0)
    assert load_deal(g1, 0).deal_seed == 1


def test_a_part_replaced_by_a_link_elsewhere_is_refused(two_folders, tmp_path):
    g1, g2 = two_folders
    copy = tmp_path / "g1"
    shutil.copytree(g1, copy)
    (copy / "part-000000.parquet").unlink()
    (copy / "part-000000.parquet").symlink_to(g2 / "part-000000.parquet")
    with pytest.raises(ResultsError, match="not a regular file"):
        load_deal(copy, 0)


@FUZZ
@given(data=st.data())
def test_any_edited_games_manifest_gives_the_game_or_one_error(two_folders, data):
    g1, _ = two_folders
    manifest = json.loads((g1 / MANIFEST).read_text())
    values = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**20), st.text(max_size=30),
                       st.lists(st.integers(), max_size=3),
                       st.dictionaries(st.text(max_size=4), st.integers()))
    game = data.draw(st.integers(0, 1))
    key = data.draw(st.sampled_from(["file", "rows", "sha256", "game", "extra"]))
    manifest["games"][game][key] = data.draw(values)
    if data.draw(st.booleans()):
        manifest = data.draw(st.sampled_from([[], {"format": "cardlab-games/1"}, {"format": "x", "games": []},
                                              {"format": "cardlab-games/1", "games": [1, 2]}]))
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "g"
        shutil.copytree(g1, copy)
        (copy / MANIFEST).write_text(json.dumps(manifest))
        for deal in (0, 1, data.draw(st.integers(-(10**30), 10**30))):
            try:
                stored = load_deal(copy, deal)
            except ResultsError as error:
                assert "\n" not in str(error)
                continue
            assert stored.actions == load_deal(g1, deal).actions


# ---- position files --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def literature_position(tmp_path_factory) -> dict:
    game = pyspiel.load_game("cardlab_literature", {"players": 4})
    bots = [agents.make("rules", game, seat, seat) for seat in range(4)]
    state, _ = play_deal(game, bots, 5)
    cut = game.new_initial_state()
    for action in state.history()[:60]:
        cut.apply_action(action)
    path = save_position(tmp_path_factory.mktemp("position") / "p.json", cut, seat=1)
    return json.loads(path.read_text())


JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(),
                              st.text(max_size=8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                    max_leaves=12)


@FUZZ
@given(data=st.data())
def test_any_edited_position_file_gives_a_position_or_one_error(literature_position, data):
    spec = dict(literature_position)
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(["format", "game", "parameters", "history", "seat", "games", "deal",
                                         "move", "table", "unknown"]))
        spec[key] = data.draw(JSON)
    if data.draw(st.booleans()):
        spec["parameters"] = data.draw(st.dictionaries(st.sampled_from(["players", "dealer", "max_asks",
                                                                          "nosuch"]), JSON, max_size=3))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.json"
        path.write_text(json.dumps(spec))
        try:
            position = load_position(path)
        except ResultsError as error:
            assert "\n" not in str(error) and str(path) in str(error)
            return
    assert 0 <= position.seat < position.state.num_players()


@pytest.mark.parametrize("text, message", [
    ('{"format": "cardlab-position/1", "game": "cardlab_literature", "parameters": '
     + "[" * 50_000 + "]" * 50_000 + ', "history": []}', "not a readable position file (RecursionError)"),
    ('{"format": "cardlab-position/1", "game": "cardlab_literature", "parameters": [1, 2], "history": []}',
     '"parameters" must be an object'),
    ('{"format": "cardlab-position/1", "game": "cardlab_literature", "parameters": {"players": {"a": 1}}, '
     '"history": []}', '"parameters" must be an object of numbers'),
    ('{"format": "cardlab-position/1", "game": "cardlab_literature", "history": [true]}', "action ids"),
    ('{"format": "cardlab-position/1", "game": ["x"], "history": []}', '"game" must be'),
    ('{"format": "cardlab-position/1", "game": "cardlab_literature", "history": [], "colour": 1}',
     "unknown key(s) colour"),
    ('{"format": "cardlab-position/1", "games": {"a": 1}, "move": 1}', '"games" must be a folder name'),
])
def test_a_mistyped_position_file_is_one_line(tmp_path, capsys, text, message):
    path = tmp_path / "p.json"
    path.write_text(text)
    code, _, err = run_cli(capsys, "advise", "literature", "--position", str(path))
    assert_one_line_error(code, err, message)


# ---- policy files ------------------------------------------------------------------------------
def kuhn_table() -> PolicyTable:
    """A valid two-action policy of every Kuhn information set, written by hand (no training)."""
    game = pyspiel.load_game("kuhn_poker")
    names, states = [], [game.new_initial_state()]
    while states:
        state = states.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            name = state.information_state_string()
            if name not in names:
                names.append(name)
        states += [state.child(a) for a in state.legal_actions()]
    offsets = np.arange(0, 2 * len(names) + 1, 2, dtype=np.int64)
    actions = np.tile(np.array([0, 1], dtype=np.int64), len(names))
    probabilities = np.tile(np.array([0.25, 0.75]), len(names))
    return PolicyTable(tuple(names), offsets, actions, probabilities,
                       {"game": "kuhn_poker", "parameters": {"players": 2}, "naming": "string"})


def forged(tmp_path: Path, table_arrays: dict, name: str = "forged.npz") -> Path:
    """A policy file whose arrays were edited and whose checksum was computed again to match."""
    arrays = {key: value for key, value in table_arrays.items() if key != "metadata"}
    metadata = json.loads(str(table_arrays["metadata"]))
    metadata["checksum"] = checksum(arrays)
    path = tmp_path / name
    np.savez(path, metadata=np.asarray(json.dumps(metadata)), **arrays)
    return path


@pytest.fixture
def kuhn_arrays(tmp_path) -> dict:
    path = save_policy(kuhn_table(), tmp_path / "kuhn.npz")
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files}


@pytest.mark.parametrize("edit, message", [
    (lambda a: a.update(probabilities=a["probabilities"] * np.tile([-1.0, 1.0], len(a["names"]))),
     "probabilities must be numbers in [0, 1]"),
    (lambda a: a.update(probabilities=np.full_like(a["probabilities"], np.nan)), "numbers in [0, 1]"),
    (lambda a: a.update(probabilities=a["probabilities"] * 0.5), "sum to 0.5, not 1"),
    (lambda a: a.update(offsets=a["offsets"] + 1), "offsets must rise from 0"),
    (lambda a: a.update(offsets=a["offsets"][::-1].copy()), "offsets must rise from 0"),
    (lambda a: a.update(offsets=a["offsets"] * 1000), "offsets must rise from 0"),
    (lambda a: a.update(actions=a["actions"] - 5), "action ids outside 0..1"),
    (lambda a: a.update(actions=a["actions"] + 2**40), "action ids outside"),
    (lambda a: a.update(actions=a["actions"].astype(np.float64)), "actions must be a list of integers"),
    (lambda a: a.update(names=np.array([[1]])), "names must be a list of texts"),
    (lambda a: a.update(names=np.repeat(a["names"][:1], len(a["names"]))), "names an information set twice"),
    (lambda a: a.update(actions=np.zeros_like(a["actions"])), "an action twice"),
    (lambda a: a.update(offsets=a["offsets"][:-1].copy()), "inconsistent sizes"),
])
def test_a_forged_policy_file_is_refused_naming_what_is_wrong(tmp_path, kuhn_arrays, edit, message):
    edit(kuhn_arrays)
    path = forged(tmp_path, kuhn_arrays)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_policy(path, pyspiel.load_game("kuhn_poker"))
    with pytest.raises(ValueError, match=re.escape(message)):
        agents.make("cfr", pyspiel.load_game("kuhn_poker"), 0, policy=str(path))


def test_a_file_of_python_objects_is_refused_without_suggesting_to_unpickle_it(tmp_path, kuhn_arrays, capsys):
    kuhn_arrays["probabilities"] = np.array([{"evil": 1}] * len(kuhn_arrays["actions"]), dtype=object)
    objects = tmp_path / "objects.npz"
    np.savez(objects, **kuhn_arrays)
    pickled = tmp_path / "pickled.npz"
    np.save(pickled.with_suffix(".npy"), np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    pickled.with_suffix(".npy").rename(pickled)
    for path in (objects, pickled):
        with pytest.raises(ValueError) as error:
            load_policy(path)
        assert "allow_pickle" not in str(error.value) and "Python objects" in str(error.value)
        code, _, err = run_cli(capsys, "tournament", "--game", "kaiser", "--agents",
                               f"cfr:policy={path},random", "--out", str(tmp_path / "t"))
        assert_one_line_error(code, err, "Python objects")


@FUZZ
@given(data=st.data())
def test_any_forged_policy_loads_valid_or_is_one_value_error(tmp_path, kuhn_arrays, data):
    kuhn_arrays = {key: value.copy() for key, value in kuhn_arrays.items()}
    name = data.draw(st.sampled_from(["names", "offsets", "actions", "probabilities"]))
    array = kuhn_arrays[name]
    index = data.draw(st.integers(0, len(array) - 1))
    if name == "names":
        array[index] = data.draw(st.text(max_size=6))
    elif name == "probabilities":
        array[index] = data.draw(st.floats(allow_nan=True, allow_infinity=True, width=64))
    else:
        array[index] = data.draw(st.integers(-(2**63), 2**63 - 1))
    path = forged(tmp_path, kuhn_arrays, f"fuzz-{data.draw(st.integers(0, 10**9))}.npz")
    game = pyspiel.load_game("kuhn_poker")
    try:
        table = load_policy(path, game)
    except ValueError as error:
        assert "\n" not in str(error)
        return
    assert np.all(table.probabilities >= 0) and np.allclose(np.add.reduceat(table.probabilities,
                                                                            table.offsets[:-1]), 1)
    bot = agents.make("cfr", game, 0, policy=str(path), fallback="uniform")
    state = game.new_initial_state().child(0).child(1)
    assert bot.step(state) in state.legal_actions()


def test_a_parameter_mismatch_names_the_parameter(tmp_path):
    path = save_policy(kuhn_table(), tmp_path / "kuhn.npz")
    with pytest.raises(ValueError, match=r"trained on kuhn_poker with players=2, not with players=3 "
                                         r"\(its other parameters agree\)"):
        load_policy(path, pyspiel.load_game("kuhn_poker", {"players": 3}))


# ---- training checkpoints ------------------------------------------------------------------------
def test_a_checkpoint_is_written_atomically_keeping_the_previous_one(tmp_path):
    out = tmp_path / "run.npz"
    first, second = kuhn_table(), kuhn_table()
    first.metadata["iterations"], second.metadata["iterations"] = 10, 20
    save_checkpoint(first, out)
    assert not previous_path(out).exists()
    save_checkpoint(second, out)
    game = pyspiel.load_game("kuhn_poker")
    assert load_policy(out, game).metadata["iterations"] == 20
    assert load_policy(previous_path(out), game).metadata["iterations"] == 10
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.npz", "run.previous.npz"]  # no leftovers
    out.write_bytes(out.read_bytes()[:100])  # the latest cut off (a disk error, an older cardlab)
    assert load_checkpoint(out, game).metadata["iterations"] == 10
    previous_path(out).unlink()
    with pytest.raises(ValueError, match="not a readable policy file"):
        load_checkpoint(out, game)


@pytest.mark.parametrize("argv, message", [
    (["--out", "{tmp}/missing/p.npz"], "the folder {tmp}/missing does not exist"),
    (["--out", "{tmp}"], "is a directory"),
    (["--out", "{tmp}/none.npz", "--resume"], "--resume: {tmp}/none.npz does not exist"),
    (["--out", "/proc/p.npz"], "cannot write in /proc"),
    (["--out", "{tmp}/p.npz", "--seed", "-1"], "the seed must be an integer from 0 to 2**64 - 1, got -1"),
    (["--out", "{tmp}/p.npz", "--checkpoints", "0"], "checkpoints must be a positive integer"),
])
def test_train_checks_its_numbers_and_out_before_the_game(tmp_path, capsys, argv, message):
    argv = [part.replace("{tmp}", str(tmp_path)) for part in argv]
    code, _, err = run_cli(capsys, "train", "--game", "no_such_game", "--iterations", "3", *argv)
    assert_one_line_error(code, err, message.replace("{tmp}", str(tmp_path)))


# ---- found while measuring ---------------------------------------------------------------------
def test_negative_points_read_as_numbers():
    from cardlab.solver.analysis import Contract, contract_text

    text = contract_text("cardlab_kaiser", Contract(1, 2, 9, 29, (12, -2), 14))
    assert text == "seat 1 9 H: team 0 takes 12 points, team 1 -2; net +14 for team 1"
    assert "--" not in text


def test_solve_offers_low_no_trump_only_in_its_variant(capsys):
    code, standard, _ = run_cli(capsys, "solve", "--game", "kaiser", "--deal-seed", "7")
    assert code == 0 and "LNT" not in standard
    code, variant, _ = run_cli(capsys, "solve", "--game", "kaiser", "--deal-seed", "7", "--param",
                               "low_no_trump=true")
    header = next(line for line in variant.splitlines() if "declarer" in line)
    assert code == 0 and header.split()[-2:] == ["NT", "LNT"]
    code, _, err = run_cli(capsys, "solve", "--game", "kaiser", "--param", "hand_size=4")
    assert_one_line_error(code, err, "it reads min_bid, low_no_trump, not hand_size")
    code, _, err = run_cli(capsys, "solve", "--game", "kaiser", "--param", "dealer=1")
    assert_one_line_error(code, err, "(give --dealer)")


def test_the_solver_benchmark_documents_a_command_that_runs():
    doc = (Path(__file__).resolve().parents[1] / "benchmarks" / "bench_solver.py").read_text()
    assert "``python -m benchmarks.bench_solver --a-only GAME [DEALS]``" in doc
    assert "``python benchmarks/bench_solver.py --a-only GAME [DEALS]``" not in doc


def test_cfr_bidding_plays_the_shipped_policy_by_default():
    from cardlab.agents.cfr_bidding import POLICIES, policy_path

    for name in ("cardlab_kaiser", "cardlab_twenty_eight"):
        game = pyspiel.load_game(name)
        assert policy_path(None, game) == POLICIES / f"{name}-coarse.npz"
        bot = agents.make("cfr-bidding", game, 0, 1)
        assert bot.table.metadata["abstraction"] == "bidding" and bot.table.metadata["game"] == name
    with pytest.raises(ValueError, match=r"with min_bid=6, not with min_bid=7"):
        agents.make("cfr-bidding", pyspiel.load_game("cardlab_kaiser", {"min_bid": 7}), 0, 1)


# ---- a resume pins the files the agents read ------------------------------------------------------
def test_a_tournament_refuses_to_resume_after_its_policy_changed(tmp_path, capsys):
    from cardlab.agents.cfr_bidding import POLICIES

    policy = tmp_path / "kaiser.npz"
    shutil.copy(POLICIES / "cardlab_kaiser-coarse.npz", policy)
    run = ["tournament", "--game", "kaiser", "--agents", f"cfr-bidding:policy={policy},rules", "--deals", "4",
           "--chunk-size", "2", "--workers", "1", "--quiet", "--backend", "serial",
           "--out", str(tmp_path / "t")]
    assert main(run) == 0
    manifest = json.loads((tmp_path / "t" / MANIFEST).read_text())
    assert set(manifest["settings"]["inputs"]) == {"cfr-bidding"}
    table = load_policy(policy)
    table.metadata["note"] = "trained again"  # the same game, other bytes
    save_policy(table, policy)
    capsys.readouterr()
    code, _, err = run_cli(capsys, *run)
    assert_one_line_error(code, err, "other settings (the policy of cfr-bidding: sha256 ")
    shutil.copy(POLICIES / "cardlab_kaiser-coarse.npz", policy)
    assert main(run) == 0  # the very file again: the run goes on


# ---- work in short kernel calls: the same results however it is cut ----------------------------------
# (``SLICE_SECONDS`` 0 makes every slice one item long; the default doubles them from one.)
def test_a_search_in_chunks_is_the_search_of_one_call(monkeypatch):
    from cardlab.agents.ismcts import bot as ismcts_bot

    game = pyspiel.load_game("cardlab_kaiser")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])

    def visits(chunk: int) -> list:
        monkeypatch.setattr(ismcts_bot, "SIMULATION_CHUNK", chunk)
        bot = agents.make("ismcts", game, state.current_player(), 5, simulations=3000)
        return bot.step_with_policy(state)[0]

    assert visits(10**9) == visits(7) == visits(2048)


def test_advice_and_claim_odds_do_not_depend_on_their_slices(monkeypatch):
    from cardlab.core import interrupt
    from cardlab.games.literature.deductions import claim_odds
    from cardlab.play.advise import advise_bids, bidding_position

    state = bidding_position(pyspiel.load_game("cardlab_kaiser"), "AS KS QH 5H JH 9H 8D 7C", 1, "pass 7")
    literature = load_position_state()
    runs = []
    for seconds in (interrupt.SLICE_SECONDS, 0.0):
        monkeypatch.setattr(interrupt, "SLICE_SECONDS", seconds)
        runs.append((advise_bids(state, 1, 48, seed=3).rows, claim_odds(literature, 1, 300, seed=4)))
    assert runs[0] == runs[1]


def load_position_state() -> pyspiel.State:
    game = pyspiel.load_game("cardlab_literature", {"players": 4})
    bots = [agents.make("rules", game, seat, seat) for seat in range(4)]
    state, _ = play_deal(game, bots, 5)
    return game.replay(state.history()[:60])


def test_a_tournament_chunk_does_not_depend_on_its_batches(monkeypatch):
    from cardlab.arena.entrants import labelled, parse_agent_list
    from cardlab.arena.tournament import TournamentSettings, play_chunk
    from cardlab.core import interrupt

    settings_ = TournamentSettings("cardlab_kaiser", {}, tuple(labelled(parse_agent_list(
        "ismcts:simulations=30,rules,random"))), 6, 9, 6)
    tables = []
    for seconds in (60.0, 0.0):  # batches doubling from one deal, and one deal at a time
        monkeypatch.setattr(interrupt, "SLICE_SECONDS", seconds)
        tables.append(play_chunk(settings_, 0).drop_columns(["seat_seconds"]))
    assert tables[0].equals(tables[1])


def test_training_does_not_depend_on_its_slices(tmp_path, monkeypatch):
    from cardlab.cfr.train import train
    from cardlab.core import interrupt

    kuhn = pyspiel.load_game("kuhn_poker")
    monkeypatch.setattr(interrupt, "SLICE_SECONDS", 0.0)
    sliced = train(kuhn, tmp_path / "sliced.npz", 60, "dcfr", checkpoints=3, progress=False)
    monkeypatch.setattr(interrupt, "SLICE_SECONDS", 3600.0)
    whole = train(kuhn, tmp_path / "whole.npz", 60, "dcfr", checkpoints=3, progress=False)
    np.testing.assert_array_equal(sliced.probabilities, whole.probabilities)
    for name in ("regrets", "cumulative", "current_policy"):
        np.testing.assert_array_equal(sliced.solver_state[name], whole.solver_state[name])
