"""Whether this run's kernels are compiled or run as Python: CI runs the suite once more with ``NUMBA_DISABLE_JIT=1``,
where the conftest skips the tests marked ``jit_only`` and tests shorten what they run with ``INTERPRETED``."""

import numba

INTERPRETED = bool(numba.config.DISABLE_JIT)
