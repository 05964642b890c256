"""``python -m nbgym`` and the ``nbgym`` console script: see :mod:`nbgym.cli`."""

from __future__ import annotations

import sys

from nbgym.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
