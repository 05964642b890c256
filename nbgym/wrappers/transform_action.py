"""Action wrappers that transform each action with a function of it alone.

* :class:`TransformAction` - applies a function to the action.
* :class:`ClipAction` - clips the action into the ``Box`` action space.
* :class:`RescaleAction` - accepts actions in ``[min_action, max_action]`` and rescales them affinely.
* :class:`DiscretizeAction` - offers the centres of uniform bins of a bounded ``Box`` as discrete actions.

``TransformAction``, ``ClipAction`` and ``RescaleAction`` have batched counterparts in
:mod:`nbgym.wrappers.vector`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from nbgym.core import ActionWrapper, ActType, Env, ObsType, WrapperActType
from nbgym.error import InvalidBound
from nbgym.spaces import Box, Discrete, MultiDiscrete, Space
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.wrappers.utils import bin_counts, finite_flat_bounds, rescale_box

__all__ = ["TransformAction", "ClipAction", "RescaleAction", "DiscretizeAction"]


class TransformAction(ActionWrapper[ObsType, WrapperActType, ActType], RecordConstructorArgs):
    """Applies ``func`` to the action before the wrapped environment's ``step``.

    The batched counterpart is :class:`nbgym.wrappers.vector.TransformAction`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import TransformAction
        >>> env = TransformAction(nbgym.make("CartPole-v1"), lambda action: 1 - action, None)
        >>> _ = env.reset(seed=42)
        >>> env.step(0)[0]
        array([ 0.02727336,  0.18847767,  0.03625453, -0.26141977], dtype=float32)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        func: Callable[[WrapperActType], ActType],
        action_space: Space[WrapperActType] | None,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            func: The function applied to each action.
            action_space: The space of the actions this wrapper accepts; ``None`` keeps the wrapped
                environment's.
        """
        RecordConstructorArgs.__init__(self, func=func, action_space=action_space)
        ActionWrapper.__init__(self, env)
        if action_space is not None:
            self.action_space = action_space
        self.func = func

    def action(self, action: WrapperActType) -> ActType:
        """Returns ``func(action)``."""
        return self.func(action)


class ClipAction(TransformAction[ObsType, WrapperActType, ActType], RecordConstructorArgs):
    """Clips every action into the bounds of the ``Box`` action space; the wrapper accepts any real action.

    The wrapper's action space is unbounded, with the wrapped space's shape and dtype. The batched
    counterpart is :class:`nbgym.wrappers.vector.ClipAction`.
    """

    def __init__(self, env: Env[ObsType, ActType]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its action space must be a ``Box``.

        Raises:
            TypeError: The action space is not a ``Box``.
        """
        space = env.action_space
        if not isinstance(space, Box):
            raise TypeError(f"ClipAction requires a Box action space, got {type(space)}")
        RecordConstructorArgs.__init__(self)
        TransformAction.__init__(
            self,
            env=env,
            func=lambda action: np.clip(action, space.low, space.high),
            action_space=Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype),
        )


class RescaleAction(TransformAction[ObsType, WrapperActType, ActType], RecordConstructorArgs):
    """Accepts actions in ``[min_action, max_action]`` and maps them affinely onto the ``Box`` action space.

    The batched counterpart is :class:`nbgym.wrappers.vector.RescaleAction`.

    Example:
        >>> import nbgym
        >>> from nbgym.spaces import Box
        >>> from nbgym.wrappers import RescaleAction, TransformAction
        >>> env = TransformAction(nbgym.make("CartPole-v1"), lambda a: int(a[0] > 0), Box(-2.0, 2.0, (1,)))
        >>> RescaleAction(env, min_action=-1.0, max_action=1.0).action_space
        Box(-1.0, 1.0, (1,), float32)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        min_action: np.floating | np.integer | np.ndarray,
        max_action: np.floating | np.integer | np.ndarray,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its action space must be a ``Box``.
            min_action: The lowest action: a number, or an array of the action space's shape.
            max_action: The highest action: a number, or an array of the action space's shape.

        Raises:
            TypeError: The action space is not a ``Box``, or a bound is neither a number nor an array.
            ValueError: A bound has the wrong shape, does not keep an infinite bound, or
                ``min_action > max_action`` somewhere.
            InvalidBound: ``min_action == max_action`` somewhere (the rescaling has no inverse there).
        """
        if not isinstance(env.action_space, Box):
            raise TypeError(f"RescaleAction requires a Box action space, got {type(env.action_space)}")
        RecordConstructorArgs.__init__(self, min_action=min_action, max_action=max_action)

        new_space, _, backward = rescale_box(env.action_space, min_action, max_action)
        if np.any(new_space.low == new_space.high):
            raise InvalidBound(
                f"Min action ({min_action}) must be strictly smaller than max action "
                f"({max_action}), the rescaling has no inverse where they are equal"
            )
        TransformAction.__init__(self, env=env, func=backward, action_space=new_space)


class DiscretizeAction(TransformAction[ObsType, WrapperActType, ActType], RecordConstructorArgs):
    """Offers the centres of uniform bins of a bounded ``Box`` action space as discrete actions.

    Each dimension ``i`` of the (flattened) box is cut into ``bins[i]`` equal intervals; an action is
    one ``Discrete`` index (the row-major flat index of the bins) or, with ``multidiscrete``, one bin
    per dimension, and the environment receives the centres of those bins.

    Example:
        >>> import nbgym
        >>> from nbgym.spaces import Box
        >>> from nbgym.wrappers import DiscretizeAction, TransformAction
        >>> env = TransformAction(nbgym.make("CartPole-v1"), lambda a: int(a[0] > 0), Box(-2.0, 2.0, (1,)))
        >>> env = DiscretizeAction(env, bins=10)
        >>> env.action_space, env.action(7)
        (Discrete(10), array([1.], dtype=float32))

    Attributes:
        bins: The number of bins of each dimension.
        multidiscrete: Whether the actions are ``MultiDiscrete`` (else one ``Discrete`` index).
        bin_centers: The centres of each dimension's bins.
    """

    def __init__(self, env: Env[ObsType, ActType], bins: int | tuple[int, ...], multidiscrete: bool = False):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its action space must be a ``Box`` with finite bounds.
            bins: The number of bins of every dimension, or one number per dimension.
            multidiscrete: Whether actions give the bin of each dimension (``MultiDiscrete``) instead of
                their row-major flat index (``Discrete``).

        Raises:
            TypeError: The action space is not a ``Box``.
            ValueError: A bound is infinite, or ``bins`` has the wrong length.
        """
        self.low, self.high = finite_flat_bounds(env.action_space, "action", "DiscretizeAction")
        self.n_dims = int(self.low.size)
        self.multidiscrete = multidiscrete
        RecordConstructorArgs.__init__(self, bins=bins, multidiscrete=multidiscrete)
        ActionWrapper.__init__(self, env)
        self.bins = bin_counts(bins, self.n_dims)

        self.bin_centers = []
        for i in range(self.n_dims):
            edges = np.linspace(self.low[i], self.high[i], self.bins[i] + 1)
            self.bin_centers.append(0.5 * (edges[:-1] + edges[1:]))

        self.action_space = MultiDiscrete(self.bins) if multidiscrete else Discrete(np.prod(self.bins))

    def action(self, act: Any) -> np.ndarray:
        """The centres of the bins that the discrete action ``act`` selects, in the ``Box``'s shape and dtype."""
        indices = np.asarray(act, dtype=int) if self.multidiscrete else self._unflatten_index(act)
        # Out-of-range bins are clipped to the nearest valid bin.
        centers = [self.bin_centers[i][min(max(index, 0), self.bins[i] - 1)] for i, index in enumerate(indices)]
        space = self.env.action_space
        return np.array(centers, dtype=space.dtype).reshape(space.shape)

    def revert_action(self, action: np.ndarray) -> Any:
        """The discrete action whose bin centres are nearest to the continuous ``action``."""
        action = np.ravel(action)
        indices = [np.argmin(np.abs(self.bin_centers[i] - action[i])) for i in range(self.n_dims)]
        if self.multidiscrete:
            return np.array(indices, dtype=int)
        return np.ravel_multi_index(indices, self.bins)

    def _unflatten_index(self, flat_index: Any) -> list[Any]:
        """The bin of each dimension of the row-major flat index ``flat_index``."""
        indices = []
        for size in reversed(self.bins):
            indices.append(flat_index % size)
            flat_index //= size
        return indices[::-1]
