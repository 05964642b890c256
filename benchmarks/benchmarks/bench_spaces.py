"""Spaces: ``sample`` and ``flatten``, nbgym beside gymnasium."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ._common import SPACE_LIBRARIES


def _space(spaces: Any, name: str) -> Any:
    """The space called ``name`` built from a library's ``spaces`` module."""
    box = spaces.Box(-1.0, 1.0, (4,), np.float32)
    image = spaces.Box(0, 255, (84, 84, 3), np.uint8)
    discrete = spaces.Discrete(6)
    return {
        "Box(4,)": box,
        "Box(84,84,3) uint8": image,
        "Discrete(6)": discrete,
        "MultiDiscrete([3,4,5])": spaces.MultiDiscrete([3, 4, 5]),
        "MultiBinary(16)": spaces.MultiBinary(16),
        "Dict": spaces.Dict({"position": box, "action": discrete, "cells": spaces.MultiBinary(16)}),
        "Tuple": spaces.Tuple((box, discrete, spaces.MultiDiscrete([3, 4, 5]))),
    }[name]


class Spaces:
    """A seeded space of each kind."""

    params = (
        ["Box(4,)", "Box(84,84,3) uint8", "Discrete(6)", "MultiDiscrete([3,4,5])", "MultiBinary(16)", "Dict", "Tuple"],
        SPACE_LIBRARIES,
    )
    param_names = ("space", "library")

    def setup(self, space: str, library: str) -> None:
        self.spaces = importlib.import_module(f"{library}.spaces")
        self.space = _space(self.spaces, space)
        self.space.seed(0)
        self.sample = self.space.sample()

    def time_sample(self, space: str, library: str) -> None:
        """One ``sample()``."""
        self.space.sample()

    def time_flatten(self, space: str, library: str) -> None:
        """``spaces.flatten(space, sample)`` into one flat array."""
        self.spaces.flatten(self.space, self.sample)
