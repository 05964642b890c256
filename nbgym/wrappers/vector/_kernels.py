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

from nbgym.engine._jit import kernel

# numpy's pairwise summation: ranges up to this size are summed with 8 accumulators.
_PAIRWISE_BLOCK = 128
# Room for the explicit recursion of the pairwise sum: 2 entries per level, 64 levels.
_STACK_SIZE = 130
# Rows normalised per vectorised run by `normalize_observations_f32`.
_ROWS_PER_BLOCK = 64


@kernel
def _block_sum(values: np.ndarray, start: int, count: int) -> float:
    """numpy's sum of a range of at most 128 values: 8 interleaved accumulators, then the remainder."""
    if count < 8:
        total = values[start]
        for i in range(start + 1, start + count):
            total += values[i]
        return total
    sum_0, sum_1, sum_2, sum_3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    sum_4, sum_5, sum_6, sum_7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = 8
    while i < count - count % 8:
        at = start + i
        sum_0 += values[at]
        sum_1 += values[at + 1]
        sum_2 += values[at + 2]
        sum_3 += values[at + 3]
        sum_4 += values[at + 4]
        sum_5 += values[at + 5]
        sum_6 += values[at + 6]
        sum_7 += values[at + 7]
        i += 8
    total = ((sum_0 + sum_1) + (sum_2 + sum_3)) + ((sum_4 + sum_5) + (sum_6 + sum_7))
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
            range_start[n_ranges : n_ranges + 3] = (first, first + half, first)
            range_count[n_ranges : n_ranges + 3] = (size, size - half, half)
            combine[n_ranges : n_ranges + 3] = (True, False, False)
            n_ranges += 3
    return sums[0]


@kernel
def _term(rows: np.ndarray, i: int, j: int, center: np.ndarray, squared: bool) -> float:
    """``rows[i, j]``, or its squared deviation from ``center[j]``."""
    value = rows[i, j]
    if squared:
        deviation = value - center[j]
        return deviation * deviation
    return value


@kernel
def column_sums(rows: np.ndarray, center: np.ndarray, squared: bool) -> np.ndarray:
    """``np.add.reduce(x, axis=0)`` of ``x = rows`` (or ``x = (rows - center)**2``), for a C-contiguous
    2-D float array, with numpy's summation order."""
    n, k = rows.shape
    sums = np.zeros_like(rows[0])
    if n == 0:
        return sums
    if k == 1:
        terms = np.empty(n, dtype=rows.dtype)
        for i in range(n):
            terms[i] = _term(rows, i, 0, center, squared)
        sums[0] += pairwise_sum(terms, 0, n)
        return sums
    # Each column is summed row after row, as numpy does; four columns at a time keep four independent
    # chains of additions in flight (the last block repeats the last column to stay four wide).
    zero = np.zeros(1, dtype=rows.dtype)[0]
    for first in range(0, k, 4):
        col_0, col_1, col_2, col_3 = first, min(first + 1, k - 1), min(first + 2, k - 1), min(first + 3, k - 1)
        sum_0, sum_1, sum_2, sum_3 = zero, zero, zero, zero
        for i in range(n):
            sum_0 += _term(rows, i, col_0, center, squared)
            sum_1 += _term(rows, i, col_1, center, squared)
            sum_2 += _term(rows, i, col_2, center, squared)
            sum_3 += _term(rows, i, col_3, center, squared)
        sums[col_0], sums[col_1], sums[col_2], sums[col_3] = sum_0, sum_1, sum_2, sum_3
    return sums


@kernel
def column_moments(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(np.mean(rows, axis=0), np.var(rows, axis=0))`` of a C-contiguous 2-D float array, exactly."""
    n = rows.shape[0]
    mean = column_sums(rows, rows[0], False)
    for j in range(mean.shape[0]):
        mean[j] = mean[j] / n
    var = column_sums(rows, mean, True)
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
    # The mean and scale of each column, repeated for a block of rows: a block is then one contiguous
    # run of identical operations, which the compiler vectorises.
    k = mean.shape[0]
    epsilon32 = np.float32(epsilon)
    block_mean = np.empty(_ROWS_PER_BLOCK * k, dtype=np.float32)
    block_scale = np.empty(_ROWS_PER_BLOCK * k, dtype=np.float32)
    for j in range(k):
        scale = np.float32(math.sqrt(var[j] + epsilon32))
        for row in range(_ROWS_PER_BLOCK):
            block_mean[row * k + j] = mean[j]
            block_scale[row * k + j] = scale
    flat_observations, flat_out = observations.reshape(-1), out.reshape(-1)
    for start in range(0, n * k, _ROWS_PER_BLOCK * k):
        stop = min(start + _ROWS_PER_BLOCK * k, n * k)
        _normalize_run(flat_observations[start:stop], block_mean, block_scale, flat_out[start:stop])
    return mean, var, count


@kernel
def _normalize_run(values: np.ndarray, mean: np.ndarray, scale: np.ndarray, out: np.ndarray) -> None:
    """``out = (values - mean) / scale`` elementwise over ``len(values)`` entries."""
    for i in range(values.shape[0]):
        out[i] = (values[i] - mean[i]) / scale[i]


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
    for i in range(accumulated.shape[0]):
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
    info_returns: np.ndarray,
    info_lengths: np.ndarray,
    info_times: np.ndarray,
    ended: np.ndarray,
) -> int:
    """One step of the vector ``RecordEpisodeStatistics``: accumulates the statistics in place and fills
    the info arrays.

    In ``SAME_STEP`` mode every step counts; otherwise a sub-environment that ended at the previous
    step was autoreset by this one, which starts its next episode's statistics (return 0, length 0,
    start time ``now``) without counting.

    Args:
        returns, lengths, start_times: The statistics of the current episodes, updated in place.
        prev_dones: Which sub-environments ended at the previous step.
        rewards, terminated, truncated: The step's results.
        same_step: Whether the autoreset mode is ``SAME_STEP``.
        now: The current ``time.perf_counter()``.
        dones: Receives which sub-environments ended at this step.
        info_returns, info_lengths, info_times: Receive the ``r``/``l``/``t`` entries of the info (0
            where no episode ended; the time rounded to microseconds as ``np.round(t, 6)``).
        ended: Receives the indexes of the sub-environments that ended, in its first entries.

    Returns:
        The number of episodes that ended.
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
        done = terminated[i] or truncated[i]
        dones[i] = done
        if done:
            ended[num_dones] = i
            num_dones += 1
            info_returns[i] = returns[i]
            info_lengths[i] = lengths[i]
            info_times[i] = np.rint((now - start_times[i]) * 1e6) / 1e6
        else:
            info_returns[i] = 0.0
            info_lengths[i] = 0
            info_times[i] = 0.0
    return num_dones
