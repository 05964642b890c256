"""Wrappers of vector environments.

Each wrapper is imported when first used, so importing this package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbgym.wrappers.vector.dict_info_to_list import DictInfoToList

# Wrapper name -> the module of this package that defines it.
_WRAPPER_MODULES = {
    "DictInfoToList": "dict_info_to_list",
}

__all__ = list(_WRAPPER_MODULES)


def __getattr__(name: str) -> Any:
    if name not in _WRAPPER_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WRAPPER_MODULES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
