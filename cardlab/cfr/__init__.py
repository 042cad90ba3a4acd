"""Counterfactual regret minimisation: flat game trees, tabular and sampling solvers, CFR agents."""
