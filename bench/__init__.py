"""Benchmarks: data readers, the retrieval evaluation and the timing scripts (no product code)."""
