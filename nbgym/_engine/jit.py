"""The one place that holds the numba options of every nbgym kernel.

``cache=True`` keeps compiled kernels on disk between processes. ``error_model="numpy"`` gives IEEE
results (inf, nan) instead of Python exceptions for float division by zero, as numpy scalars do in
gymnasium. No fastmath: it would reorder and fuse floating-point operations and break bit-exactness.
"""

from __future__ import annotations

from numba import njit

KERNEL_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy", "fastmath": False}

kernel = njit(**KERNEL_OPTIONS)
"""Decorator of every compiled nbgym function."""

parallel_kernel = njit(parallel=True, **KERNEL_OPTIONS)
"""Decorator of the kernels that spread sub-environments over threads (``num_threads > 1``)."""
