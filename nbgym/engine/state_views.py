"""State attributes of a compiled environment: named views of a sub-environment's state row.

Set a class's ``state_views`` to a tuple of :class:`StateView` and each becomes an attribute of the single
env (``env.unwrapped.state``) and an attribute of the vector env's ``get_attr``/``set_attr``, read from and
written into the state row with gymnasium's semantics (in-place changes reach the next step). See
``nbgym._engine.state_views`` for the details.

- ``StateView(name, read, write, doc=..., before_reset=...)``: one attribute;
- ``float64_state(name, start, stop)``: a float64 array over columns ``start:stop`` of the row;
- ``float_values(value, width, name)``: a value checked and converted as gymnasium's arithmetic sees it,
  with its precision (``FLOAT32``, ``PYTHON`` or ``FLOAT64``);
- ``NO_VALUE``: the ``before_reset`` of an attribute that does not exist before the first reset.
"""

from nbgym._engine.state_views import FLOAT32, FLOAT64, NO_VALUE, PYTHON, StateView, float64_state, float_values

__all__ = ["FLOAT32", "FLOAT64", "NO_VALUE", "PYTHON", "StateView", "float64_state", "float_values"]
