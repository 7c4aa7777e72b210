"""Benchmarks: each module writes out/bench/<name>.json (see bench/common.py for the shape)."""
