"""How good is a bot, really: exploitability lower bounds and variance-reduced duplicate scores.

- :mod:`cardlab.evaluation.lbr`: local best response (Lisý and Bowling 2017), an
  opponent team that best-responds move by move to an agent's actual play; the
  points per deal it takes are a lower bound on the agent's exploitability
  (``cardlab exploit``).
- :mod:`cardlab.evaluation.exact`: the same local best response measured
  against the exact best response of the small games solved exactly.
- :mod:`cardlab.evaluation.aivat`: an AIVAT-style estimator (Burch et al. 2018)
  of duplicate scores, unbiased and with a narrower interval
  (``cardlab report --estimator aivat``).

See docs/evaluation.md.
"""
