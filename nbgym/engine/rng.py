"""numpy's random draws inside compiled physics, one stream per sub-environment.

Each draw takes the physics' ``rng`` argument and the sub-environment's row ``i``, and reproduces the
numpy ``Generator`` method of the same name bit for bit (the stream advances exactly as numpy's
does): an env seeded with ``reset(seed=s)`` draws what ``np.random.default_rng(s)`` would, and a
vector env's sub-environment ``i`` what ``default_rng(s + i)`` would — which is what makes nbgym's
environments equal to gymnasium's, and results independent of the thread count.

- ``random(rng, i)``: ``Generator.random()``, a float64 in [0, 1);
- ``uniform(rng, i, low, high)``: ``Generator.uniform(low, high)``;
- ``integers(rng, i, low, high)``: ``Generator.integers(low, high)`` (int64, ``high`` excluded);
  ``choice(n)`` of numpy is ``integers(rng, i, 0, n)``;
- ``standard_normal(rng, i)``: ``Generator.standard_normal()`` (numpy's ziggurat); numpy's
  ``normal(loc, scale)`` is ``loc + scale * standard_normal(rng, i)``. Its tables are read on first use;
- ``next_uint64(rng, i)``, ``next_uint32(rng, i)``: the raw bits.

A vector draw of numpy (``uniform(low, high, size=4)``) is that many scalar draws in order.
"""

from typing import Any

from nbgym._engine.rng import integers, next_uint32, next_uint64, random, uniform

__all__ = ["integers", "next_uint32", "next_uint64", "random", "standard_normal", "uniform"]


def __getattr__(name: str) -> Any:
    # standard_normal's module reads numpy's ziggurat tables: only environments that draw normals pay for it.
    if name == "standard_normal":
        from nbgym._engine.ziggurat import standard_normal

        return standard_normal
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
