"""Wrappers that change what ``render()`` returns.

* :class:`AddWhiteNoise` - replaces random pixels of the frame with white noise.
* :class:`ObstructView` - covers random square patches of the frame with white noise.

Both draw from the environment's ``np_random``, in gymnasium's order, so that an environment rendered
through them gives the same frames (and leaves the same random stream) as gymnasium's wrappers.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from nbgym.core import ActType, Env, ObsType, RenderFrame, Wrapper
from nbgym.error import InvalidProbability
from nbgym.utils.record_constructor import RecordConstructorArgs

__all__ = ["AddWhiteNoise", "ObstructView"]

# The upper bounds of the red, green and blue noise of a grayscale noise pixel (the sum of the three).
_GRAYSCALE_NOISE_HIGH = 255 * np.array([0.2989, 0.5870, 0.1140])


def _white_noise(rng: np.random.Generator, shape: tuple[int, ...], grayscale: bool) -> np.ndarray:
    """Random pixels of an RGB frame of ``shape``: uniform per channel, or one random gray per pixel."""
    if grayscale:
        channels = rng.integers((0, 0, 0), _GRAYSCALE_NOISE_HIGH, size=shape, dtype=np.uint8)
        return channels.sum(-1, keepdims=True).repeat(3, -1)
    return rng.integers(0, 255, size=shape, dtype=np.uint8)


class AddWhiteNoise(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Replaces each pixel of the rendered frame with white noise with probability ``probability_of_noise_per_pixel``.

    The environment must render RGB arrays (``render_mode="rgb_array"``). Each ``render()`` draws the
    noise of every pixel first, then the mask of the pixels it replaces.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import AddWhiteNoise
        >>> env = AddWhiteNoise(nbgym.make("CartPole-v1", render_mode="rgb_array"), 0.5)
        >>> _ = env.reset(seed=123)
        >>> env.render().shape  # doctest: +SKIP
        (400, 600, 3)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        probability_of_noise_per_pixel: float,
        is_noise_grayscale: bool = False,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; it must render RGB arrays.
            probability_of_noise_per_pixel: The probability, in ``[0, 1)``, that a pixel is replaced.
            is_noise_grayscale: Whether the noise pixels are gray (else each channel is random).

        Raises:
            InvalidProbability: ``probability_of_noise_per_pixel`` is outside ``[0, 1)``.
        """
        if not 0 <= probability_of_noise_per_pixel < 1:
            raise InvalidProbability(
                "probability_of_noise_per_pixel should be in the interval [0,1). "
                f"Received {probability_of_noise_per_pixel}"
            )
        RecordConstructorArgs.__init__(
            self,
            probability_of_noise_per_pixel=probability_of_noise_per_pixel,
            is_noise_grayscale=is_noise_grayscale,
        )
        Wrapper.__init__(self, env)
        self.probability_of_noise_per_pixel = probability_of_noise_per_pixel
        self.is_noise_grayscale = is_noise_grayscale

    def render(self) -> np.ndarray:
        """Renders the environment and replaces random pixels with noise."""
        frame = cast(np.ndarray, super().render())
        noise = _white_noise(self.np_random, frame.shape, self.is_noise_grayscale)
        mask = self.np_random.random(frame.shape[0:2]) < self.probability_of_noise_per_pixel
        return np.where(mask[..., None], noise, frame)


class ObstructView(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Covers random square patches of the rendered frame with white noise.

    Each ``render()`` draws ``int(height * width * obstructed_pixels_ratio / obstruction_width**2)``
    patch centres uniformly among the pixels, then the noise of every pixel; a patch is the
    ``obstruction_width`` square around its centre, cut at the frame's edges (so patches may overlap and
    cover fewer pixels than the ratio). The environment must render RGB arrays.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import ObstructView
        >>> env = ObstructView(nbgym.make("CartPole-v1", render_mode="rgb_array"), 0.5, obstruction_width=50)
        >>> _ = env.reset(seed=123)
        >>> env.render().shape  # doctest: +SKIP
        (400, 600, 3)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        obstructed_pixels_ratio: float,
        obstruction_width: int,
        is_noise_grayscale: bool = False,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; it must render RGB arrays.
            obstructed_pixels_ratio: The fraction, in ``[0, 1)``, of the pixels that the patches would
                cover if they neither overlapped nor crossed an edge.
            obstruction_width: The side of a square patch, in pixels (at least 1).
            is_noise_grayscale: Whether the noise pixels are gray (else each channel is random).

        Raises:
            ValueError: ``obstructed_pixels_ratio`` is outside ``[0, 1)`` or ``obstruction_width`` is below 1.
        """
        if not 0 <= obstructed_pixels_ratio < 1:
            raise ValueError(
                f"obstructed_pixels_ratio should be in the interval [0,1). Received {obstructed_pixels_ratio}"
            )
        if obstruction_width < 1:
            raise ValueError(f"obstruction_width should be larger or equal than 1. Received {obstruction_width}")
        RecordConstructorArgs.__init__(
            self,
            obstructed_pixels_ratio=obstructed_pixels_ratio,
            obstruction_width=obstruction_width,
            is_noise_grayscale=is_noise_grayscale,
        )
        Wrapper.__init__(self, env)
        self.obstruction_centers_ratio = obstructed_pixels_ratio / obstruction_width**2
        self.obstruction_width = obstruction_width
        self.is_noise_grayscale = is_noise_grayscale

    def _patch_mask(self, height: int, width: int) -> np.ndarray:
        """Draws the patch centres and returns the ``(height, width)`` mask of the covered pixels."""
        n_pixels = height * width
        centers = self.np_random.integers(0, n_pixels, int(n_pixels * self.obstruction_centers_ratio))
        rows, cols = np.unravel_index(centers, (height, width))
        before = self.obstruction_width // 2
        after = self.obstruction_width - before
        # Each patch adds +1 at its top-left corner and -1 past its other corners of a (height+1, width+1)
        # grid; the 2-D prefix sum of that grid counts the patches covering each pixel.
        top, bottom = np.maximum(rows - before, 0), np.minimum(rows + after, height)
        left, right = np.maximum(cols - before, 0), np.minimum(cols + after, width)
        corners = np.zeros((height + 1, width + 1), dtype=np.int64)
        np.add.at(corners, (top, left), 1)
        np.add.at(corners, (top, right), -1)
        np.add.at(corners, (bottom, left), -1)
        np.add.at(corners, (bottom, right), 1)
        return corners.cumsum(axis=0).cumsum(axis=1)[:height, :width] > 0

    def render(self) -> RenderFrame:
        """Renders the environment and covers random patches with noise."""
        frame = cast(np.ndarray, super().render())
        mask = self._patch_mask(frame.shape[0], frame.shape[1])
        noise = _white_noise(self.np_random, frame.shape, self.is_noise_grayscale)
        return np.where(mask[..., None], noise, frame)

