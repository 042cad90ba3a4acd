"""Run every benchmark module (``bench_*.py``) and collect their JSON into one file.

    python -m benchmarks.run_all [--out benchmarks/results.json]
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
from pathlib import Path

import benchmarks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/results.json")
    parser.add_argument("--only", nargs="*", help="module names, e.g. bench_kaiser")
    args = parser.parse_args()
    reports = []
    for module in sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__)):
        if not module.startswith("bench_") or (args.only and module not in args.only):
            continue
        reports.append(importlib.import_module(f"benchmarks.{module}").main())
    Path(args.out).write_text(json.dumps(reports, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
