"""Where the checkout and its parts are (the standard library only: tests/conftest.py imports it)."""

import importlib.util
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent.parent
"""``tests/``: on ``sys.path`` in the test run; a process a test starts needs it there to import ``helpers``."""
ROOT = TESTS.parent
"""The checkout, whose nbgym the tests test (tests/conftest.py checks that it is the one imported)."""
EXAMPLES = ROOT / "examples"


def load_benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/<name>.py`` as a module (the scripts are not a package), for tests of its ``main``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script
