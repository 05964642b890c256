"""Seeding of numpy random number generators, exactly as gymnasium seeds them."""

from __future__ import annotations

import numpy as np

from nbgym import error

RNG = RandomNumberGenerator = np.random.Generator


def check_seed(seed: object) -> None:
    """Checks that ``seed`` is a seed gymnasium accepts: a non-negative Python int.

    Raises:
        nbgym.error.Error: ``seed`` is not a Python int, or is negative.
    """
    if not isinstance(seed, int):
        raise error.Error(f"Seed must be a python integer, actual type: {type(seed)}")
    if seed < 0:
        raise error.Error(f"Seed must be greater or equal to zero, actual value: {seed}")


def np_random(seed: int | None = None) -> tuple[np.random.Generator, int]:
    """Returns a PCG64 generator seeded through ``np.random.SeedSequence(seed)``, and its seed.

    Args:
        seed: A non-negative Python int, or ``None`` for a seed drawn from the OS's entropy.

    Returns:
        The generator and the ``SeedSequence`` entropy it was seeded with (``seed`` itself, or the drawn
        entropy when ``seed`` is ``None``).

    Raises:
        nbgym.error.Error: ``seed`` is not a Python int, or is negative.
    """
    if seed is not None:
        if not isinstance(seed, int):
            raise error.Error(f"Seed must be a python integer, actual type: {type(seed)}")
        if seed < 0:
            raise error.Error(f"Seed must be greater or equal to zero, actual value: {seed}")

    seed_sequence = np.random.SeedSequence(seed)
    return np.random.Generator(np.random.PCG64(seed_sequence)), seed_sequence.entropy
