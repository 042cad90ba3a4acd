"""Execute the notebooks: each jupytext ``notebooks/<name>.py`` becomes the executed ``<name>.ipynb``.

    python -m experiments.notebooks                       # every notebook, on experiments/data
    python -m experiments.notebooks kaiser_bidding --data /tmp/tiny --out /tmp/nb

The ``.py`` percent file is the source that is reviewed; the ``.ipynb`` is
its executed copy, outputs and figures included. The kernel runs in the
notebooks' folder (their first cell imports notebooks/preamble.py, which puts
the repository on the path) with ``$CARDLAB_STUDY_DATA`` pointing at
``--data``, so the tests execute the same notebooks on tiny datasets.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = ROOT / "notebooks"
#: Every notebook, in the order of the studies.
NOTEBOOKS = ("kaiser_bidding", "twenty_eight_bidding", "literature_claims", "agents", "small_games_solved",
             "evaluation", "learning")


def execute(name: str, data: str | Path | None = None, out: str | Path | None = None,
            timeout: int = 1800):
    """Run notebook ``name`` top to bottom and write it as ``out`` (default notebooks/<name>.ipynb).

    Returns the executed notebook; an error in a cell raises nbclient's
    ``CellExecutionError`` naming the cell.
    """
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    from experiments.frame import DATA_ENV

    if name not in NOTEBOOKS:
        raise ValueError(f"no notebook {name!r}; the notebooks are {', '.join(NOTEBOOKS)}")
    notebook = jupytext.read(NOTEBOOKS_DIR / f"{name}.py")
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    saved = os.environ.get(DATA_ENV)
    if data is not None:
        os.environ[DATA_ENV] = str(data)
    try:
        NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(NOTEBOOKS_DIR)}}).execute()
    finally:
        if data is not None:
            if saved is None:
                os.environ.pop(DATA_ENV)
            else:
                os.environ[DATA_ENV] = saved
    out = Path(out) if out is not None else NOTEBOOKS_DIR / f"{name}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, out)
    return notebook


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.notebooks",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(NOTEBOOKS), metavar="NAME",
                        help=f"notebooks to run (default: all of {', '.join(NOTEBOOKS)})")
    parser.add_argument("--data", default=None, help="datasets folder (default: experiments/data)")
    parser.add_argument("--out", default=None, help="folder for the executed notebooks (default: notebooks/)")
    args = parser.parse_args()
    for name in args.names:
        if name not in NOTEBOOKS:
            raise SystemExit(f"error: no notebook {name!r}; the notebooks are {', '.join(NOTEBOOKS)}")
    for name in args.names:
        out = Path(args.out) / f"{name}.ipynb" if args.out else None
        execute(name, args.data, out)
        print(f"executed {name}")


if __name__ == "__main__":
    main()
