"""The GEMM optimisation ladder: numbered, self-contained CUDA rungs plus their benchmark.

CPU-safe imports only here (rungs.py); the GPU modules (runner, bench) import CuPy themselves.
"""
from .rungs import Rung, discover, parse_rung

__all__ = ["Rung", "discover", "parse_rung"]
