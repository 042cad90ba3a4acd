"""``cardlab tournament`` and ``cardlab report`` on the command line: results, tables, one-line errors."""

from __future__ import annotations

import json

import pytest

from cardlab.arena.config import ConfigError, config_agents, read_config
from cardlab.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        ("rules,nosuchagent", "unknown agent 'nosuchagent'"),
        ("rules,random:depth=3", "agent 'random': unknown option(s) depth"),
        ("rules,random:depth", "option 'depth' must look like key=value"),
        ("rules,ismcts:simulations=5,simulations=6", "option 'simulations' is given twice"),
        ("rules,py:no_such_module:make", "cannot import module 'no_such_module'"),
        ("rules,py:cardlab.agents:nothing", "has no function 'nothing'"),
        ("rules", "at least two agents"),
        # values the compiled loop would take on trust, checked like the registry's bot
        ("rules,ismcts:simulations=-3", "option simulations must be an integer in [1, 10000000]"),
        ("rules,ismcts:rollout_depth=5", "needs a static evaluation"),
    ],
)
def test_bad_agent_spec_is_one_line_error(capsys, tmp_path, agents, message):
    code, _, err = run(capsys, "tournament", "--game", "kaiser", "--agents", agents, "--deals", "4",
                       "--out", str(tmp_path / "r"), "--quiet")
    assert code != 0
    assert err.startswith("cardlab: error: ") and err.count("\n") == 1
    assert message in err
    assert not (tmp_path / "r").exists()


def test_bad_game_parameter_is_one_line_error(capsys, tmp_path):
    code, _, err = run(capsys, "tournament", "--game", "kaiser", "--agents", "rules,random",
                       "--param", "min_bid=99", "--out", str(tmp_path / "r"), "--quiet")
    assert code != 0 and err.startswith("cardlab: error: ") and err.count("\n") == 1


def test_tournament_from_toml_then_report(capsys, tmp_path):
    config = tmp_path / "kaiser.toml"
    out = tmp_path / "results"
    config.write_text(
        'game = "kaiser"\ndeals = 40\nseed = 9\n[params]\nmin_bid = 7\n'
        '[[agents]]\nname = "rules"\n[[agents]]\nname = "random"\nlabel = "monkey"\n'
    )
    code, out_text, err = run(capsys, "tournament", "--config", str(config), "--out", str(out),
                              "--workers", "1", "--quiet")
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["parameters"] == {"min_bid": 7}
    assert [a["label"] for a in manifest["settings"]["agents"]] == ["rules", "monkey"]
    assert manifest["runs"][0]["command"].startswith("cardlab tournament --config")

    code, text, err = run(capsys, "report", str(out), "--resamples", "200")
    assert code == 0, err
    assert "standings" in text and "pairwise" in text and "monkey" in text
    assert "duplicate deals 40 of 40" in text
    for name in ("standings.png", "pairwise.png", "ratings.png", "convergence.png"):
        assert (out / "report" / name).read_bytes()[:4] == b"\x89PNG"
    summary = json.loads((out / "report" / "summary.json").read_text())
    rules = next(s for s in summary["standings"] if s["agent"] == "rules")
    assert rules["ci95"][0] <= rules["points_per_deal"] <= rules["ci95"][1]


def test_report_of_missing_directory_is_one_line_error(capsys, tmp_path):
    code, _, err = run(capsys, "report", str(tmp_path / "nothing"))
    assert code != 0 and err == f"cardlab: error: no results directory {tmp_path / 'nothing'}\n"


def test_unknown_config_key_is_one_line_error(capsys, tmp_path):
    config = tmp_path / "bad.toml"
    config.write_text('game = "kaiser"\nagentz = ["rules"]\n')
    code, _, err = run(capsys, "tournament", "--config", str(config), "--out", str(tmp_path / "r"))
    assert code != 0 and "unknown key(s) agentz" in err and err.count("\n") == 1


def test_a_config_file_is_read_and_checked_on_its_own(tmp_path):
    assert read_config(None) == {}
    path = tmp_path / "c.toml"
    path.write_text('game = "kaiser"\nagents = ["rules", {name = "ismcts:simulations=5", label = "s", '
                    'options = {exploration = 2}}]\n')
    config = read_config(str(path))
    assert config["game"] == "kaiser"
    assert config_agents(config["agents"]) == (
        [("rules", {}), ("ismcts", {"simulations": 5, "exploration": 2})], [None, "s"])
    path.write_text('deals = "many"\n')
    with pytest.raises(ConfigError, match=f"config {path}: deals must be an integer, got 'many'"):
        read_config(str(path))
    with pytest.raises(ConfigError, match="config: agent 'rules' has unknown key.s. weight"):
        config_agents([{"name": "rules", "weight": 2}])


def test_variants_lists_every_parameter_then_the_named_variants(capsys):
    from cardlab.games import game_spec

    code, out, err = run(capsys, "variants", "--game", "28")
    assert code == 0 and not err
    lines = out.splitlines()
    spec = game_spec("28")
    parameters = lines[1:lines.index("variants:")]
    assert sorted(line.split(":")[0].strip() for line in parameters) == sorted(
        spec.load().get_type().parameter_specification)
    assert "  cot: bool, default false, allowed true, false; variant: cot" in lines
    named = lines[lines.index("variants:") + 1:]
    assert [line.split()[0] for line in named] == [v.name for v in spec.variants]


def test_variants_of_an_unknown_game_is_one_line_error(capsys):
    code, _, err = run(capsys, "variants", "--game", "chess")
    assert code == 2 and err.count("\n") == 1 and "unknown game" in err


@pytest.mark.parametrize("command, solver_games_only", [("tournament", False), ("exploit", False),
                                                        ("play", False), ("advise", False), ("solve", True)])
def test_help_lists_the_games_from_their_specs(capsys, command, solver_games_only):
    """A game added to ``games.SPECS`` appears in every command's help with all its aliases."""
    from cardlab.games import SPECS, double_dummy

    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for spec in SPECS:
        listed = spec.name in double_dummy.GAME_IDS or not solver_games_only
        assert all((alias in text) == listed for alias in spec.aliases), (spec.name, text)
