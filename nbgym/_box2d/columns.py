"""Column indices of the port's tables (and of the Box2D environments' state rows), numbered in the order
they are declared, so that no index is written by hand::

    _body_i = Columns()
    BI_TYPE = _body_i.add()
    BI_FLAGS, BI_PREV, BI_NEXT = _body_i.add_each(3)  # several columns in one line
    BF_SWEEP = _body_f.add(SWEEP_FLOATS)  # a block of columns: its first index
    NBI = _body_i.end()  # the table's width

Adding, removing or moving a declaration renumbers the columns after it and the width. The indices stay plain
module-level ints on purpose: numba freezes a global int into a kernel as a compile-time constant, so
``body_i[r, b, BI_FLAGS]`` compiles as if the index were a literal (an attribute of a Python object could not be
read in a kernel at all).
"""

from __future__ import annotations


class Columns:
    """The columns of one table, handed out in declaration order from ``start`` (a block of another table's
    columns can be laid out from its first index)."""

    def __init__(self, start: int = 0) -> None:
        self._next = start
        self._ended = False

    def add(self, width: int = 1) -> int:
        """The index of the next column, or of the first of the next ``width`` columns."""
        if self._ended:
            # The width was taken already: arrays made with it would be too narrow for this column, and a kernel
            # does not check its indices.
            raise RuntimeError("a column declared after its table's width")
        index = self._next
        self._next += width
        return index

    def add_each(self, count: int) -> range:
        """The indices of the next ``count`` columns, one column each, to unpack into their names in one line."""
        first = self.add(count)
        return range(first, first + count)

    def end(self) -> int:
        """The index after the last column (the table's width); no column can be added after it."""
        self._ended = True
        return self._next
