"""Benchmarks (run by hand or by the lead's CI notes, never by the test suite)."""
