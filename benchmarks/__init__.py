"""Benchmarks: each module prints JSON figures with ratios against a baseline measured in the same run."""
