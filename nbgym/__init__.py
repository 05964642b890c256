"""nbgym: the Gymnasium API rebuilt around Numba.

Classic-control and toy-text dynamics are compiled kernels over batched state arrays, so
``nbgym.make_vec("CartPole-v1", num_envs=4096)`` steps every sub-environment in one compiled call,
bit for bit identical to gymnasium 1.4.0 for the same seeds and actions.

Importing nbgym is cheap: the public names below are loaded on first use, and no environment module
(nor numba) is imported until an environment is made.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from importlib.machinery import ModuleSpec
from typing import Any

# Deprecations once per place, as gymnasium's import sets for its own: here at import, not when ``nbgym.logger``
# loads later (on a first ``make``), which put it in front of the filters the user set in between
# (``warnings.simplefilter("error")`` no longer raised on an outdated id).
warnings.filterwarnings("once", "", DeprecationWarning, module=r"^nbgym\.")

__version__ = "0.1.0"

_LAZY_NAMES = {
    "Env": "nbgym.core",
    "Wrapper": "nbgym.core",
    "ObservationWrapper": "nbgym.core",
    "ActionWrapper": "nbgym.core",
    "RewardWrapper": "nbgym.core",
    "Space": "nbgym.spaces",
    "make": "nbgym.registration",
    "make_vec": "nbgym.registration",
    "spec": "nbgym.registration",
    "register": "nbgym.registration",
    "registry": "nbgym.registration",
    "pprint_registry": "nbgym.registration",
    "register_envs": "nbgym.registration",
    "VectorizeMode": "nbgym.registration",
}
_SUBMODULES = (
    "envs",
    "spaces",
    "utils",
    "vector",
    "wrappers",
    "error",
    "logger",
    "registration",
    "core",
    "engine",
    "interop",
)

__all__ = [*_LAZY_NAMES, *_SUBMODULES]


def __getattr__(name: str) -> Any:
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"nbgym.{name}")
    else:
        raise AttributeError(f"module 'nbgym' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


def _refuse_gymnasium_lookup() -> None:
    """Refuses ``gymnasium.make("nbgym:Id")``, which would silently make gymnasium's own ``Id``.

    gymnasium's ``make``/``make_vec`` import the module named before the colon, then look the id up
    in gymnasium's registry, where plain ids are gymnasium's environments. This runs when that
    import reaches nbgym: at its first import, and at every later one (through ``__spec__``, below).

    Raises:
        gymnasium.error.Error: gymnasium's ``make`` is importing ``nbgym`` to find an id.
    """
    registration = sys.modules.get("gymnasium.envs.registration")
    if registration is None:
        return
    frame = sys._getframe(1)
    for _ in range(16):  # the import machinery's frames between gymnasium's lookup and this function
        if frame is None:
            return
        if frame.f_code.co_name == "_find_spec" and frame.f_globals is vars(registration):
            if frame.f_locals.get("module") == "nbgym":
                env_name = frame.f_locals.get("env_name")
                raise sys.modules["gymnasium.error"].Error(
                    f"\"nbgym:{env_name}\" would make gymnasium's own {env_name}, not nbgym's: gymnasium looks "
                    f'the id up in its own registry. Write "nbgym.gymnasium:nbgym/{env_name}" (or `import '
                    f'nbgym.gymnasium` once, then "nbgym/{env_name}") for nbgym\'s environment as a gymnasium.Env, '
                    f'or use nbgym.make("{env_name}") / nbgym.make_vec("{env_name}", num_envs).'
                )
            return
        frame = frame.f_back


class _ImportGuardedSpec(ModuleSpec):
    """nbgym's module spec: the import machinery reads ``_initializing`` at every import of a loaded module."""

    @property
    def _initializing(self) -> bool:
        if self.__dict__.get("_initializing_now", False):
            return True
        _refuse_gymnasium_lookup()
        return False

    @_initializing.setter
    def _initializing(self, value: bool) -> None:
        self.__dict__["_initializing_now"] = value


_refuse_gymnasium_lookup()
if type(__spec__) is ModuleSpec:  # a package imported the usual way (not, say, executed by hand)
    __spec__.__class__ = _ImportGuardedSpec
