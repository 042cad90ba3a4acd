"""What every notebook opens with: the repository on the import path, the libraries, a study's dataset.

A notebook runs in this folder (Jupyter opened here, or ``python -m
experiments.notebooks``), so its first cell is ``from preamble import ...``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from experiments.findings import (  # noqa: E402
    finding,
    findings_json,
    mean_ci,
    plot_intervals,
    rate_ci,
    ratio_ci,
    study_command,
    summarize,
)
from experiments.frame import data_dir, load_study  # noqa: E402

__all__ = ["ROOT", "data_dir", "finding", "findings_json", "mean_ci", "np", "open_study", "pd", "plot_intervals",
           "plt", "rate_ci", "ratio_ci", "summarize"]


def open_study(module: str, rows_are: str | None) -> tuple[dict[str, Any], pd.DataFrame, str]:
    """The dataset of ``experiments.<module>``: its parameters, its rows and the command that makes it.

    Prints its size (``rows_are`` says what a row is) and that command; with
    ``rows_are=None`` the notebook prints them its own way.
    """
    study = importlib.import_module(f"experiments.{module}")
    parameters, rows = load_study(study.STUDY.name)
    command = study_command(module, parameters, study.DEFAULTS)
    if rows_are is not None:
        print(f"{rows['deal'].nunique()} deals, {len(rows)} rows ({rows_are}); parameters {parameters}")
        print(f"reproduce: {command}")
    return parameters, rows, command
