"""LunarLander's own gymnasium-facing objects (the bodies it shares with the other Box2D envs are in
``nbgym.envs.box2d._port_objects``)."""

from __future__ import annotations

from typing import Any

from nbgym.envs.box2d._port_objects import PortBody


class Particle(PortBody):
    """A flame particle: a body with gymnasium's ``ttl`` (its remaining life, in frames of 0.15)."""

    @property
    def ttl(self) -> float:
        w, r, b = self._row()
        return float(self._source._batch.state.ttl[r, b])

    @ttl.setter
    def ttl(self, value: Any) -> None:
        w, r, b = self._row()
        self._source._batch.state.ttl[r, b] = float(value)
