"""Packages whose public names load from their submodules on first access (PEP 562), so importing them stays cheap."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any, Callable


def lazy_attributes(package: str, modules: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose name ``N`` is defined by its submodule ``modules[N]``.

    Args:
        package: The package's ``__name__``.
        modules: Each public name and the submodule of ``package`` that defines it.

    Returns:
        The module-level ``__getattr__`` (it imports the submodule and caches the name in the package; a
        submodule's own name gives the submodule, see :func:`import_submodule`) and ``__dir__``.
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        if name in modules:
            value = getattr(importlib.import_module(f"{package}.{modules[name]}"), name)
        else:
            value = import_submodule(package, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *modules])

    return __getattr__, __dir__


def import_submodule(package: str, name: str) -> ModuleType:
    """The submodule ``name`` of ``package``, imported: gymnasium's packages import their submodules eagerly,
    so code written for them reads ``package.submodule`` without importing it first.

    Raises:
        AttributeError: If ``package`` has no submodule ``name``.
    """
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{name}":  # the submodule exists but needs a module that does not
                raise
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
