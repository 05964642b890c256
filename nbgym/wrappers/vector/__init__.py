"""Wrappers of vector environments.

Each wrapper is imported when first used, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nbgym._lazy import lazy_attributes

if TYPE_CHECKING:
    from nbgym.wrappers.vector.dict_info_to_list import DictInfoToList as DictInfoToList

# Wrapper name -> the module of this package that defines it.
_WRAPPER_MODULES = {
    "DictInfoToList": "dict_info_to_list",
    "RecordEpisodeStatistics": "common",
    "NormalizeObservation": "stateful_observation",
    "NormalizeReward": "stateful_reward",
    "TransformObservation": "vectorize_observation",
    "VectorizeTransformObservation": "vectorize_observation",
    "FilterObservation": "vectorize_observation",
    "FlattenObservation": "vectorize_observation",
    "GrayscaleObservation": "vectorize_observation",
    "ResizeObservation": "vectorize_observation",
    "ReshapeObservation": "vectorize_observation",
    "RescaleObservation": "vectorize_observation",
    "DtypeObservation": "vectorize_observation",
    "TransformAction": "vectorize_action",
    "VectorizeTransformAction": "vectorize_action",
    "ClipAction": "vectorize_action",
    "RescaleAction": "vectorize_action",
    "TransformReward": "vectorize_reward",
    "VectorizeTransformReward": "vectorize_reward",
    "ClipReward": "vectorize_reward",
    "HumanRendering": "rendering",
    "RecordVideo": "rendering",
    # Array frameworks: imported (with torch or jax) only when used.
    "ArrayConversion": "array_conversion",
    "NumpyToTorch": "numpy_to_torch",
    "JaxToNumpy": "jax_to_numpy",
    "JaxToTorch": "jax_to_torch",
}

__all__ = list(_WRAPPER_MODULES)

__getattr__, __dir__ = lazy_attributes(__name__, _WRAPPER_MODULES)
