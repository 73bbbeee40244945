"""Benchmark: question set, grading, perturbed instances (issue 5)."""
