# Two commands for a fresh machine with only Python 3.11: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test check integration test-slow warmup bench lint notebooks venv clean

venv: $(STAMP)

# Rebuilt only when pyproject.toml changes, so repeated runs are quick.
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found (set PYTHON=...)"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/cardlab demo --game kaiser --deals 200 --seed 1

# Compile the kernels first, one process per game (cached on disk: a second run only loads them).
warmup: $(STAMP)
	$(BIN)/cardlab warmup

# The fast suite: every rule, agent and tool checked, in a few minutes on two cores. Its two
# workers compile what they use; a warmup first would compile part of the same kernels on the
# same two cores, and measured it saved no time (docs/performance.md#the-test-suite). Each test
# file goes to one worker (--dist loadfile): its tests share kernels, which the other then need not
# compile too.
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=15

# What CI runs: the fast suite, then the long integration runs and slow sweeps.
check: test integration

# After the warmup: subprocesses killed and resumed must not spend their time compiling.
integration: warmup
	$(BIN)/python -m pytest -q -n 2 -m "slow or integration"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m slow

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run_all

# The studies' datasets at full size (experiments/data/, resumable), then every notebook re-executed.
WORKERS ?= 2
notebooks: $(STAMP)
	$(BIN)/python -m experiments.kaiser_bidding --workers $(WORKERS)
	$(BIN)/python -m experiments.twenty_eight_bidding --workers $(WORKERS)
	$(BIN)/python -m experiments.literature_claims --workers $(WORKERS)
	$(BIN)/python -m experiments.agents --game kaiser --workers $(WORKERS)
	$(BIN)/python -m experiments.agents --game twenty_eight --workers $(WORKERS)
	$(BIN)/python -m experiments.agents --game literature --workers $(WORKERS)
	$(BIN)/python -m experiments.small_games_solved --workers $(WORKERS)
	$(BIN)/python -m experiments.evaluation --game kaiser
	$(BIN)/python -m experiments.evaluation --game twenty_eight
	$(BIN)/python -m experiments.learning_curve --data-dir experiments/data/learning-curve
	$(BIN)/python -m experiments.notebooks

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info
