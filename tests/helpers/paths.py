"""Where the checkout and its parts are (the standard library only: tests/conftest.py imports it)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
"""``tests/``: on ``sys.path`` in the test run; a process a test starts needs it there to import ``helpers``."""
ROOT = TESTS.parent
"""The checkout, whose nbgym the tests test (tests/conftest.py checks that it is the one imported)."""
EXAMPLES = ROOT / "examples"
