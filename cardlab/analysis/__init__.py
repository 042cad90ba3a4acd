"""Analysis of tournament results: duplicate scores, bootstrap intervals, ratings, reports."""

from cardlab.analysis.ratings import Ratings, bradley_terry
from cardlab.analysis.scores import DuplicateTable, duplicate_table
from cardlab.analysis.stats import bootstrap_mean_ci

__all__ = ["DuplicateTable", "Ratings", "bootstrap_mean_ci", "bradley_terry", "duplicate_table"]
