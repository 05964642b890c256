"""Replacing the kernel that steps a vector env's rows in threads (``step_chunks``), for tests that inject a failure,
an interrupt or a delay into it: a batch calls the compiled entry point that ``KernelBatch.row_kernels`` gives it,
not the module's dispatcher, so that is what a test replaces (for every batch, from now on; ``monkeypatch`` undoes it).
"""

from typing import Any, Callable

from nbgym.engine import _batch as engine_batch


def replace_step_chunks(monkeypatch: Any, kernel: Callable[..., bool]) -> None:
    """Makes every batch step its rows in threads with ``kernel`` (which may call ``engine_batch.step_chunks``, the
    real one, with the same arguments)."""
    real_row_kernels = engine_batch.KernelBatch.row_kernels

    def row_kernels(self: Any, action_dtype: Any) -> tuple:
        check, _ = real_row_kernels(self, action_dtype)
        return check, kernel

    monkeypatch.setattr(engine_batch.KernelBatch, "row_kernels", row_kernels)
