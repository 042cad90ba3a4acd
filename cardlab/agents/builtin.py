"""Imports every module that registers agents, so ``make`` sees them all."""

from cardlab.agents import (
    ismcts,  # noqa: F401
    random_agent,  # noqa: F401
    rules,  # noqa: F401
)
