"""Pickling of objects through their constructor arguments."""

from __future__ import annotations

from typing import Any


class EzPickle:
    """Makes an object pickle as its constructor arguments, and unpickle by calling the constructor again.

    For objects whose state cannot be pickled (e.g. handles to C libraries): the subclass passes its
    constructor arguments to ``EzPickle.__init__``::

        class Dog(Animal, EzPickle):
            def __init__(self, furcolor, tailkind="bushy"):
                Animal.__init__(self)
                EzPickle.__init__(self, furcolor, tailkind)
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Records the constructor arguments to pickle.

        Args:
            *args: The positional arguments of the object's constructor.
            **kwargs: The keyword arguments of the object's constructor.
        """
        self._ezpickle_args = args
        self._ezpickle_kwargs = kwargs

    def __getstate__(self) -> dict[str, Any]:
        """Returns the recorded constructor arguments as the pickled state."""
        return {"_ezpickle_args": self._ezpickle_args, "_ezpickle_kwargs": self._ezpickle_kwargs}

    def __setstate__(self, d: dict[str, Any]) -> None:
        """Constructs a new object from the pickled arguments and takes over its attributes."""
        out = type(self)(*d["_ezpickle_args"], **d["_ezpickle_kwargs"])
        self.__dict__.update(out.__dict__)
