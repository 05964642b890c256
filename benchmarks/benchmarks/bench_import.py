"""Import time, each sample in a fresh Python process."""

from __future__ import annotations

from ._common import LIBRARIES


class Import:
    """``import <library>``, and the import plus a registry look-up (nbgym registers its envs lazily)."""

    params = [LIBRARIES]
    param_names = ["library"]
    repeat = (3, 10, 20.0)

    def timeraw_import(self, library: str) -> str:
        """``import nbgym`` loads no environment module and not numba."""
        return f"import {library}"

    def timeraw_import_and_spec(self, library: str) -> str:
        """The import and ``spec("CartPole-v1")`` (envpool: ``list_all_envs()``): what any use of the registry costs."""
        if library == "envpool":
            return "import envpool\nenvpool.list_all_envs()"
        return f"import {library}\n{library}.spec('CartPole-v1')"
