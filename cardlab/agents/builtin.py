"""Imports every module that registers agents, so ``make`` sees them all."""

from cardlab.agents import ismcts  # noqa: F401
from cardlab.agents import random_agent  # noqa: F401
from cardlab.agents import rules  # noqa: F401
