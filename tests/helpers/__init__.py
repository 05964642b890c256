"""What the test modules share, in one place: comparisons with gymnasium, test environments, constants and the
scripts some tests run in processes of their own. Imported as ``helpers.<module>``: ``tests/`` is on ``sys.path``
(``pythonpath`` in pyproject.toml's pytest settings)."""
