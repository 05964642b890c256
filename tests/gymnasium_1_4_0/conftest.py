"""gymnasium's own tests with nbgym in gymnasium's place: ``import gymnasium`` (and every ``gymnasium.x``) gives
nbgym's module at the same path (nbgym keeps gymnasium's module paths), the same module object, so that
``gymnasium.envs.registry`` is nbgym's registry and ``gymnasium.Env`` is ``nbgym.Env``.

Not collected by nbgym's test run (tests/conftest.py ignores this folder): tests/test_gymnasium_own_tests.py copies
the folder to a temporary one and runs pytest there, in a process of its own where gymnasium is never imported.
"""

import importlib
import importlib.abc
import importlib.util
import sys

assert "gymnasium" not in sys.modules, "gymnasium itself was imported before nbgym could stand in for it"


class _NbgymAsGymnasium(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``gymnasium[.x]`` as nbgym's ``nbgym[.x]``: the loader hands over the imported nbgym module."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium" and not name.startswith("gymnasium."):
            return None
        module = importlib.import_module("nbgym" + name[len("gymnasium") :])
        return importlib.util.spec_from_loader(name, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec):
        module = sys.modules["nbgym" + spec.name[len("gymnasium") :]]
        spec.loader_state = module.__spec__  # importing sets module.__spec__ to this spec: exec_module puts it back
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state


sys.meta_path.insert(0, _NbgymAsGymnasium())


def pytest_report_header(config):
    import gymnasium

    return f"gymnasium is nbgym: {gymnasium.__name__} from {gymnasium.__file__}"
