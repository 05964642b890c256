"""The example scripts (examples/), loaded as modules."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from helpers.paths import EXAMPLES


def load(name: str) -> ModuleType:
    """``examples/<name>.py``, executed anew as the module ``examples_<name>``."""
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
