"""Recording of constructor arguments, used by ``Wrapper.spec`` to re-make wrappers."""

from __future__ import annotations

from copy import deepcopy
from typing import Any


class RecordConstructorArgs:
    """Records the keyword arguments given to ``RecordConstructorArgs.__init__`` in ``_saved_kwargs``.

    Only the first call records: when several classes of one object inherit from it, the outermost
    class (which calls ``RecordConstructorArgs.__init__`` before its parent's ``__init__``) wins.
    """

    def __init__(self, *, _disable_deepcopy: bool = False, **kwargs: Any):
        """Records ``kwargs`` unless arguments were recorded already.

        Args:
            _disable_deepcopy: Whether to keep the arguments themselves instead of deep copies.
            **kwargs: The constructor arguments to record.
        """
        if not hasattr(self, "_saved_kwargs"):
            self._saved_kwargs: dict[str, Any] = (
                deepcopy(kwargs) if _disable_deepcopy is False else kwargs
            )  # as gymnasium's test
