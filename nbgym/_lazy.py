"""Packages whose public names load from their submodules on first access (PEP 562), so importing them stays cheap."""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable


def lazy_attributes(package: str, modules: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose name ``N`` is defined by its submodule ``modules[N]``.

    Args:
        package: The package's ``__name__``.
        modules: Each public name and the submodule of ``package`` that defines it.

    Returns:
        The module-level ``__getattr__`` (it imports the submodule and caches the name in the package) and ``__dir__``.
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        if name not in modules:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{modules[name]}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *modules])

    return __getattr__, __dir__
