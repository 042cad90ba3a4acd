#!/usr/bin/env bash
# The strength matches quoted in the README (each writes experiments/results/<name>.json).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
for game in ${GAMES-kaiser twenty_eight literature}; do
  $PY -m experiments.ismcts_strength --game "$game" --opponent rules --deals 2000 \
      --out "experiments/results/ismcts-vs-rules-$game.json"
done
for game in ${OPENSPIEL_GAMES-kaiser twenty_eight}; do
  $PY -m experiments.ismcts_strength --game "$game" --opponent openspiel --time-ms 20 --deals 2000 \
      --out "experiments/results/ismcts-vs-openspiel-$game.json"
done
