"""Bootstrap intervals, Bradley–Terry ratings and agent spec parsing."""

from __future__ import annotations

import numpy as np
import pytest

from cardlab.analysis.ratings import bradley_terry, fit_ratings, win_matrix
from cardlab.analysis.scores import DuplicateTable
from cardlab.analysis.stats import bootstrap_mean_ci
from cardlab.arena.entrants import AgentSpecError, labelled, parse_agent, parse_agent_list


def test_bootstrap_interval_covers_the_true_mean_at_the_nominal_rate():
    """300 samples of 400 skewed scores: the 95% interval must hold the true mean ~95% of the time."""
    rng = np.random.default_rng(12345)
    replications, n, true_mean = 300, 400, 2.0
    samples = rng.exponential(true_mean, size=(n, replications))  # one column per replication
    mean, low, high = bootstrap_mean_ci(samples, resamples=1000, seed=1)
    coverage = np.mean((low <= true_mean) & (true_mean <= high))
    # Binomial sd of the coverage over 300 replications is 1.3 points; the percentile
    # bootstrap runs slightly below nominal for skewed data at n = 400.
    assert 0.91 <= coverage <= 0.985, coverage
    np.testing.assert_allclose(mean, samples.mean(axis=0))
    assert np.all(low < mean) and np.all(mean < high)


def test_bootstrap_interval_narrows_like_one_over_root_n():
    rng = np.random.default_rng(7)
    _, low_small, high_small = bootstrap_mean_ci(rng.normal(size=400), resamples=2000)
    _, low_big, high_big = bootstrap_mean_ci(rng.normal(size=6400), resamples=2000)
    ratio = (high_small - low_small) / (high_big - low_big)
    assert 3.4 < ratio[0] < 4.6


def test_bradley_terry_recovers_known_strengths():
    """Simulated deals between agents of Elo 200, 0, -200 give back those ratings."""
    truth = np.array([200.0, 0.0, -200.0])
    pairs = [(0, 1), (0, 2), (1, 2)]
    rng = np.random.default_rng(3)
    deals = 4000
    outcomes = np.empty((deals, len(pairs)))
    for p, (a, b) in enumerate(pairs):
        p_win = 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
        outcomes[:, p] = np.where(rng.random(deals) < p_win, 1.0, -1.0)
    np.testing.assert_allclose(bradley_terry(win_matrix(outcomes, pairs, 3)), truth, atol=25)
    ratings = fit_ratings(DuplicateTable(np.arange(deals), pairs, outcomes, ["a", "b", "c"]), resamples=100)
    assert np.all(ratings.low <= ratings.elo) and np.all(ratings.elo <= ratings.high)
    assert np.all(ratings.low < truth + 40) and np.all(truth - 40 < ratings.high)


def test_ties_count_half_a_win_each():
    wins = win_matrix(np.array([[1.0], [0.0], [-1.0], [0.0]]), [(0, 1)], 2)
    np.testing.assert_array_equal(wins, [[0, 2], [2, 0]])
    np.testing.assert_allclose(bradley_terry(wins), [0, 0], atol=1e-9)


def test_agent_specs_parse_options_and_python_factories():
    assert parse_agent_list("rules,ismcts:simulations=500,uct_c=1.5,random") == [
        ("rules", {}), ("ismcts", {"simulations": 500, "uct_c": 1.5}), ("random", {}),
    ]
    assert parse_agent("py:my.module:make_bot:depth=3,greedy=true") == (
        "py:my.module:make_bot", {"depth": 3, "greedy": True},
    )
    labels = [a.label for a in labelled(parse_agent_list("rules,rules,random"))]
    assert labels == ["rules", "rules#2", "random"]
    with pytest.raises(AgentSpecError, match="py:module:function"):
        parse_agent("py:only_module")
    with pytest.raises(AgentSpecError, match="empty agent spec"):
        parse_agent_list("rules,,random")
