"""Compiled kernels of the statistics wrappers of vector environments, bit for bit numpy's arithmetic.

gymnasium computes these statistics with numpy calls over the whole batch (``np.mean``, ``np.var``,
boolean-mask updates). Each kernel here does a wrapper's whole step in one pass and reproduces numpy's
results exactly, which takes reproducing how numpy sums:

- A reduction along a contiguous axis (a 1-D array, or a column of an ``(n, 1)`` array) is numpy's
  pairwise summation: blocks of at most 128 values summed with 8 interleaved accumulators, larger
  ranges split in two halves (rounded down to a multiple of 8).
- ``np.add.reduce(x, axis=0)`` of a C-contiguous ``(n, k)`` array with ``k > 1`` adds the rows one
  after the other into an output that starts at 0.
- ``np.mean``/``np.var`` divide the float sum by the count (an ``intp``), and ``np.var`` sums the
  squared deviations from that mean the same way.

The elementwise arithmetic keeps numpy's dtypes: a Python float meets a float32 array as a float32
(NEP 50), so such products are rounded to float32 where numpy rounds them.
"""

from __future__ import annotations

import math

import numpy as np

from nbgym._engine.jit import kernel

# numpy's pairwise summation: ranges up to this size are summed with 8 accumulators.
_PAIRWISE_BLOCK = 128
# Room for the explicit recursion of the pairwise sum: 2 entries per level, 64 levels.
_STACK_SIZE = 130


@kernel
def _block_sum(values: np.ndarray, start: int, count: int) -> float:
    """numpy's sum of a range of at most 128 values: 8 interleaved accumulators, then the remainder."""
    if count < 8:
        total = values[start]
        for i in range(start + 1, start + count):
            total += values[i]
        return total
    partial = values[start : start + 8].copy()
    i = 8
    while i < count - count % 8:
        for j in range(8):
            partial[j] += values[start + i + j]
        i += 8
    total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + ((partial[4] + partial[5]) + (partial[6] + partial[7]))
    while i < count:
        total += values[start + i]
        i += 1
    return total


@kernel
def pairwise_sum(values: np.ndarray, start: int, count: int) -> float:
    """numpy's pairwise sum of ``values[start:start + count]`` (1-D, ``count >= 1``), in the values' dtype.

    A range of more than 128 values is the sum of its two halves (the first rounded down to a multiple
    of 8); the recursion runs on explicit stacks (numba compiles recursive kernels unreliably). The
    caller adds the result to a zero of the dtype, as numpy's reduction adds it to its initial 0.
    """
    if count <= _PAIRWISE_BLOCK:
        return _block_sum(values, start, count)
    # Ranges still to sum; a "combine" entry adds the two sums on top of the value stack.
    range_start = np.empty(_STACK_SIZE, dtype=np.int64)
    range_count = np.empty(_STACK_SIZE, dtype=np.int64)
    combine = np.empty(_STACK_SIZE, dtype=np.bool_)
    sums = np.empty(_STACK_SIZE, dtype=values.dtype)
    range_start[0], range_count[0], combine[0] = start, count, False
    n_ranges, n_sums = 1, 0
    while n_ranges:
        n_ranges -= 1
        first, size = range_start[n_ranges], range_count[n_ranges]
        if combine[n_ranges]:
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
        elif size <= _PAIRWISE_BLOCK:
            sums[n_sums] = _block_sum(values, first, size)
            n_sums += 1
        else:
            half = size // 2
            half -= half % 8
            # Pushed in reverse: the first half is summed first, then the second, then both added.
            range_start[n_ranges], range_count[n_ranges], combine[n_ranges] = first, size, True
            range_start[n_ranges + 1], range_count[n_ranges + 1], combine[n_ranges + 1] = first + half, size - half, False
            range_start[n_ranges + 2], range_count[n_ranges + 2], combine[n_ranges + 2] = first, half, False
            n_ranges += 3
    return sums[0]


@kernel
def column_sums(rows: np.ndarray) -> np.ndarray:
    """``np.add.reduce(rows, axis=0)`` of a C-contiguous 2-D float array, with numpy's summation order."""
    n, k = rows.shape
    sums = np.zeros_like(rows[0])
    if n == 0:
        return sums
    if k == 1:
        sums[0] += pairwise_sum(rows[:, 0], 0, n)
        return sums
    for i in range(n):
        for j in range(k):
            sums[j] += rows[i, j]
    return sums


@kernel
def column_moments(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(np.mean(rows, axis=0), np.var(rows, axis=0))`` of a C-contiguous 2-D float array, exactly."""
    n = rows.shape[0]
    mean = column_sums(rows)
    for j in range(mean.shape[0]):
        mean[j] = mean[j] / n
    squares = np.empty_like(rows)
    for i in range(n):
        for j in range(mean.shape[0]):
            deviation = rows[i, j] - mean[j]
            squares[i, j] = deviation * deviation
    var = column_sums(squares)
    for j in range(var.shape[0]):
        var[j] = var[j] / n
    return mean, var


@kernel
def normalize_observations_f32(
    observations: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    count: float,
    epsilon: float,
    update: bool,
    out: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, float]:
    """One step of the vector ``NormalizeObservation`` on float32 observations with float32 statistics.

    Args:
        observations: The batch, C-contiguous, reshaped to ``(num_envs, k)``.
        mean: The running mean, shape ``(k,)``.
        var: The running variance, shape ``(k,)``.
        count: The running count (a Python float in gymnasium).
        epsilon: The constant added to the variance (a Python number: it becomes a float32).
        update: Whether to add the batch to the statistics first.
        out: Receives the normalised observations, ``(num_envs, k)`` float32.

    Returns:
        The (new, when updated) mean, variance and count.
    """
    n = observations.shape[0]
    if update:
        batch_mean, batch_var = column_moments(observations)
        total = count + n
        n32, count32, total32 = np.float32(n), np.float32(count), np.float32(total)
        new_mean = np.empty_like(mean)
        new_var = np.empty_like(var)
        for j in range(mean.shape[0]):
            delta = batch_mean[j] - mean[j]
            new_mean[j] = mean[j] + delta * n32 / total32
            sum_of_squares = var[j] * count32 + batch_var[j] * n32 + delta * delta * count32 * n32 / total32
            new_var[j] = sum_of_squares / total32
        mean, var, count = new_mean, new_var, total
    epsilon32 = np.float32(epsilon)
    scales = np.empty_like(var)
    for j in range(var.shape[0]):
        scales[j] = np.float32(math.sqrt(var[j] + epsilon32))
    for i in range(n):
        for j in range(var.shape[0]):
            out[i, j] = (observations[i, j] - mean[j]) / scales[j]
    return mean, var, count


@kernel
def normalize_rewards(
    accumulated: np.ndarray,
    prev_dones: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    gamma: float,
    same_step: bool,
    update: bool,
    mean: float,
    var: float,
    count: float,
    epsilon: float,
    active_returns: np.ndarray,
    out: np.ndarray,
    new_prev_dones: np.ndarray,
) -> tuple[bool, float, float, float]:
    """One step of the vector ``NormalizeReward``.

    The sub-environments that are not autoresetting (all of them in ``SAME_STEP`` mode) update their
    float32 discounted return ``G = float32(float32(G * gamma) * (1 - terminated) + reward)``; the
    running statistics (float64, as gymnasium's ``RunningMeanStd(shape=())``) take the mean and
    variance of those returns; every reward is divided by ``sqrt(var + epsilon)``.

    Args:
        accumulated: The discounted returns (float32), updated in place.
        prev_dones: Which sub-environments ended at the previous step (float32 0/1).
        rewards, terminated, truncated: The step's results.
        gamma: The discount factor (a Python number: it multiplies float32 values as a float32).
        same_step: Whether the autoreset mode is ``SAME_STEP``.
        update: Whether to update the running statistics.
        mean, var, count: The running statistics.
        epsilon: The constant added to the variance.
        active_returns: Scratch float32 array of ``num_envs`` values.
        out: Receives the normalised rewards (float64).
        new_prev_dones: Receives which sub-environments ended at this step (float32 0/1).

    Returns:
        Whether the statistics were updated, and the (new) mean, variance and count.
    """
    gamma32 = np.float32(gamma)
    n_active = 0
    for i in range(accumulated.shape[0]):
        if same_step or prev_dones[i] == 0:
            discounted = np.float64(accumulated[i] * gamma32) * (1 - np.int64(terminated[i]))
            accumulated[i] = discounted + np.float64(rewards[i])
            active_returns[n_active] = accumulated[i]
            n_active += 1
    updated = update and n_active > 0
    if updated:
        batch_mean = (np.float32(0.0) + pairwise_sum(active_returns, 0, n_active)) / np.int64(n_active)
        batch_mean32 = np.float32(batch_mean)
        squares = np.empty(n_active, dtype=np.float32)
        for i in range(n_active):
            deviation = active_returns[i] - batch_mean32
            squares[i] = deviation * deviation
        batch_var32 = np.float32((np.float32(0.0) + pairwise_sum(squares, 0, n_active)) / np.int64(n_active))
        delta = np.float64(batch_mean32) - mean
        total = count + n_active
        new_mean = mean + delta * n_active / total
        # numpy multiplies the float32 batch variance by the (Python int) count in float32.
        batch_m2 = np.float64(batch_var32 * np.float32(n_active))
        sum_of_squares = var * count + batch_m2 + delta * delta * count * n_active / total
        mean, var, count = new_mean, sum_of_squares / total, total
    scale = math.sqrt(var + epsilon)
    for i in range(accumulated.shape[0]):
        out[i] = np.float64(rewards[i]) / scale
        done = terminated[i] or truncated[i]
        new_prev_dones[i] = np.float32(1.0) if done else np.float32(0.0)
        if same_step and done:
            accumulated[i] = 0
    return updated, mean, var, count


@kernel
def episode_statistics_step(
    returns: np.ndarray,
    lengths: np.ndarray,
    start_times: np.ndarray,
    prev_dones: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    same_step: bool,
    now: float,
    dones: np.ndarray,
) -> int:
    """Accumulates one step of the vector ``RecordEpisodeStatistics`` in place.

    In ``SAME_STEP`` mode every step counts; otherwise a sub-environment that ended at the previous
    step was autoreset by this one, which starts its next episode's statistics (return 0, length 0,
    start time ``now``) without counting.

    Returns:
        The number of sub-environments whose episode ended at this step (``dones`` marks them).
    """
    num_dones = 0
    for i in range(returns.shape[0]):
        if not same_step and prev_dones[i]:
            returns[i] = 0.0
            lengths[i] = 0
            start_times[i] = now
        else:
            returns[i] += rewards[i]
            lengths[i] += 1
        dones[i] = terminated[i] or truncated[i]
        if dones[i]:
            num_dones += 1
    return num_dones


@kernel
def episode_statistics_info(
    dones: np.ndarray,
    returns: np.ndarray,
    lengths: np.ndarray,
    start_times: np.ndarray,
    now: float,
    info_returns: np.ndarray,
    info_lengths: np.ndarray,
    info_times: np.ndarray,
) -> None:
    """Fills the ``r``/``l``/``t`` arrays of the episode-statistics info (zeros where not done); the
    time is rounded to microseconds as ``np.round(t, 6)`` does."""
    for i in range(dones.shape[0]):
        if dones[i]:
            info_returns[i] = returns[i]
            info_lengths[i] = lengths[i]
            info_times[i] = np.rint((now - start_times[i]) * 1e6) / 1e6
        else:
            info_returns[i] = 0.0
            info_lengths[i] = 0
            info_times[i] = 0.0
