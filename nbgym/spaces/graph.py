"""``nbgym.spaces.graph``: the Graph space, importable as from ``gymnasium.spaces.graph`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Graph, GraphInstance

__all__ = ["Graph", "GraphInstance"]
