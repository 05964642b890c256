"""Time per CarRacing state frame: gymnasium's ``_render("state_pixels")`` (pygame-ce) against the compiled
rasteriser drawing the same scenes (``nbgym/envs/box2d/car_racing/raster.py``), in one process; and the rasteriser's
frame split into its parts.

The scenes are those of a gymnasium episode (random actions, seed 0): each is read from the env when it renders,
then both renderers draw every scene ``repeats`` times, alternately. The rasteriser's time covers ``draw_frame``
from the scene's arrays (world polygons, view, car polygons in screen coordinates, indicator values, reward).

``--parts`` times, per frame, each stage of ``_render_frame`` called on its own in drawing order (the field with
the surface's clear, the grass polygons, the road polygons, the car, the indicators, the score, the shrink's row
pass and its column pass) and the whole ``_render_frame``; each is one compiled call from Python (a few
microseconds of call overhead each). The first ``--skip`` scenes (the start-of-episode zoom, which draws the whole
track) are left out of the split unless ``--skip 0``. With ``--baseline REV`` the ``_render_frame`` of git
revision ``REV``'s rasteriser is timed in the same loop, alternately (its frames checked equal to this one's).

Run: ``PYTHONPATH=. python benchmarks/bench_car_raster.py [--steps 300] [--repeats 3] [--parts [--baseline main]]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from types import ModuleType
from typing import Any, Callable

import gymnasium
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "envs", "box2d"))

from test_box2d_car_raster import scene_of  # noqa: E402

from nbgym.engine._jit import kernel  # noqa: E402
from nbgym.envs.box2d.car_racing import raster  # noqa: E402

BACKGROUND_POLYGONS = 401
"""The field and the 400 grass squares, the first polygons of a scene's ``world``."""


def episode_scenes(steps: int) -> tuple[Any, list[dict[str, Any]], list[tuple[float, float]]]:
    """gymnasium's CarRacing-v3 (seed 0, random actions): the env, each step's scene and its ``(t, reward)``."""
    env = gymnasium.make("CarRacing-v3").unwrapped
    env.action_space.seed(0)
    env.reset(seed=0)
    scenes = []
    states = []
    for _ in range(steps):
        env.step(env.action_space.sample())
        scenes.append(scene_of(env))
        states.append((env.t, env.reward))
    return env, scenes, states


def against_gymnasium(steps: int, repeats: int) -> None:
    """Mean of each frame's fastest time: gymnasium's ``_render`` and ``draw_frame``, alternately."""
    env, scenes, states = episode_scenes(steps)
    surface = np.empty((raster.WINDOW_H, raster.WINDOW_W), dtype=np.uint32)
    raster.draw_frame(**scenes[0], surface=surface)  # compile or load the kernels
    # Each frame is drawn by both, alternately, ``repeats`` times; its fastest time of each counts (the machine
    # is shared: the minimum is the least disturbed). gymnasium renders its env's current state: each step's
    # t and reward are replayed over the last physics state, whose drawing costs the same.
    ours = np.full(len(scenes), np.inf)
    theirs = np.full(len(scenes), np.inf)
    for _ in range(repeats):
        for k, (scene, (t, reward)) in enumerate(zip(scenes, states)):
            start = time.perf_counter()
            raster.draw_frame(**scene, surface=surface)
            ours[k] = min(ours[k], time.perf_counter() - start)
            env.t, env.reward = t, reward
            start = time.perf_counter()
            env._render("state_pixels")
            theirs[k] = min(theirs[k], time.perf_counter() - start)
    print(f"gymnasium _render('state_pixels'): {theirs.mean() * 1e3:.3f} ms/frame")
    print(f"compiled draw_frame:               {ours.mean() * 1e3:.3f} ms/frame")
    print(f"ratio: {theirs.mean() / ours.mean():.2f}x")


@kernel
def _field(surface, world, starts, colors, view):  # pragma: no cover (compiled)
    """``_render_frame``'s clear and field (the first polygon, never culled)."""
    vx = np.empty(16, dtype=np.int64)
    vy = np.empty(16, dtype=np.int64)
    scratch = raster._polygon_scratch(16)
    raster._gfx_world_backdrop(
        surface, world, starts, colors, view, False, -raster.MAX_SHAPE_DIM, raster.WINDOW_W + raster.MAX_SHAPE_DIM,
        raster.WINDOW_H + raster.MAX_SHAPE_DIM, vx, vy, scratch,
    )  # fmt: skip


@kernel
def _world_polygons(surface, world, starts, colors, view, first, last):  # pragma: no cover (compiled)
    """``_render_frame``'s world polygons ``first:last`` (the field is never culled)."""
    vx = np.empty(16, dtype=np.int64)
    vy = np.empty(16, dtype=np.int64)
    scratch = raster._polygon_scratch(16)
    for k in range(first, last):
        raster._gfx_world_polygon(
            surface, world, starts[k], starts[k + 1], colors[k], view, k >= 1, -raster.MAX_SHAPE_DIM,
            raster.WINDOW_W + raster.MAX_SHAPE_DIM, raster.WINDOW_H + raster.MAX_SHAPE_DIM, vx, vy, scratch,
        )  # fmt: skip


@kernel
def _car_polygons(surface, car_screen, car_starts, car_colors):  # pragma: no cover (compiled)
    """``_render_frame``'s car polygons."""
    vx = np.empty(16, dtype=np.int64)
    vy = np.empty(16, dtype=np.int64)
    scratch = raster._polygon_scratch(16)
    for k in range(car_starts.shape[0] - 1):
        n = car_starts[k + 1] - car_starts[k]
        for j in range(n):
            vx[j] = raster._float_to_int32(car_screen[car_starts[k] + j, 0])
            vy[j] = raster._float_to_int32(car_screen[car_starts[k] + j, 1])
        raster._draw_polygon(surface, vx, vy, n, car_colors[k], scratch, True)


@kernel
def _score(surface, text, glyphs, left, right, advance, kern):  # pragma: no cover (compiled)
    H = surface.shape[0]
    raster._blit_score(surface, text, glyphs, left, right, advance, kern, 60, int(H - H * 2.5 / 40.0))


def revision_raster(revision: str) -> ModuleType:
    """The rasteriser module of git revision ``revision``, imported from a copy in the temporary directory (kept:
    its kernels are cached by path)."""
    root = os.path.join(os.path.dirname(__file__), "..")
    commit = subprocess.run(
        ["git", "-C", root, "rev-parse", revision], check=True, capture_output=True, text=True
    ).stdout.strip()
    source = subprocess.run(
        ["git", "-C", root, "show", f"{commit}:nbgym/envs/box2d/car_racing/raster.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = os.path.join(tempfile.gettempdir(), f"nbgym_bench_raster_{commit[:12]}.py")
    with open(path, "w") as file:
        file.write(
            source.replace(
                'os.path.join(os.path.dirname(__file__), "assets"',
                f'os.path.join({os.path.dirname(raster.__file__)!r}, "assets"',
            )
        )
    spec = importlib.util.spec_from_file_location(f"nbgym_bench_raster_{commit[:12]}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cached kernels find their module by name
    spec.loader.exec_module(module)
    return module


def render_frame(
    module: ModuleType,
    surface: np.ndarray,
    a: dict[str, Any],
    frame: np.ndarray,
    rows: np.ndarray,
    accumulate: np.ndarray,
    backend: int,
) -> None:
    """``module._render_frame`` of the prepared scene ``a`` into ``frame``."""
    font = raster.load_score_font()
    module._render_frame(
        surface, a["world"], a["starts"], a["colors"], 1, a["view"], -raster.MAX_SHAPE_DIM,
        raster.WINDOW_W + raster.MAX_SHAPE_DIM, raster.WINDOW_H + raster.MAX_SHAPE_DIM, a["skid_points"],
        a["skid_starts"], a["skid_colors"], a["car_screen"], a["car_starts"], a["car_colors"], a["dashboard"],
        a["text"], font.glyphs, font.left, font.right, font.advance, font.kern, frame, rows, accumulate, backend,
    )  # fmt: skip


def parts(steps: int, repeats: int, skip: int, backend: int, baseline: str | None) -> None:
    """Each stage's mean (over the scenes) of its fastest time, and the whole ``_render_frame``'s (and the
    baseline revision's)."""
    _, scenes, _ = episode_scenes(steps)
    scenes = scenes[skip:]
    font = raster.load_score_font()
    surface = np.empty((raster.WINDOW_H, raster.WINDOW_W), dtype=np.uint32)
    frame = np.empty((96, 96, 3), dtype=np.uint8)
    rows = np.empty((raster.WINDOW_H, 96, 3), dtype=np.uint8)
    accumulate = np.empty((96, 3), dtype=np.uint16)
    row_plan = np.empty((96, 3), dtype=np.int64)
    column_plan = np.empty((96, 3), dtype=np.int64)
    raster._shrink_plan(raster.WINDOW_W, 96, backend, row_plan)
    raster._shrink_plan(raster.WINDOW_H, 96, backend, column_plan)
    stages: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        ("clear + field", lambda a: _field(surface, a["world"], a["starts"], a["colors"], a["view"])),
        ("grass", lambda a: _world_polygons(surface, a["world"], a["starts"], a["colors"], a["view"], 1, BACKGROUND_POLYGONS)),
        ("road", lambda a: _world_polygons(surface, a["world"], a["starts"], a["colors"], a["view"], BACKGROUND_POLYGONS, len(a["starts"]) - 1)),
        ("car", lambda a: _car_polygons(surface, a["car_screen"], a["car_starts"], a["car_colors"])),
        ("indicators", lambda a: raster._render_indicators(surface, a["dashboard"])),
        ("score", lambda a: _score(surface, a["text"], font.glyphs, font.left, font.right, font.advance, font.kern)),
        ("shrink rows", lambda a: raster._shrink_rows(surface, rows, row_plan, backend)),
        ("shrink columns", lambda a: raster._shrink_columns(rows, frame, column_plan, accumulate, backend)),
    ]  # fmt: skip
    wholes = [("_render_frame", lambda a: render_frame(raster, surface, a, frame, rows, accumulate, backend))]
    if baseline is not None:
        old = revision_raster(baseline)
        old_frame = np.empty_like(frame)

        def render_baseline(a: dict[str, Any]) -> None:
            render_frame(old, surface, a, old_frame, rows, accumulate, backend)
            if not np.array_equal(old_frame, frame):
                raise AssertionError(f"{baseline}'s _render_frame draws another frame")

        wholes.append((f"{baseline}'s", render_baseline))
    arguments = [
        {
            "world": np.ascontiguousarray(s["world"], dtype=np.float64),
            "starts": np.ascontiguousarray(s["starts"], dtype=np.int64),
            "colors": raster.pack_rgb(s["colors"]).astype(np.int64),
            "view": np.asarray(s["view"], dtype=np.float64),
            "skid_points": np.zeros((0, 2)),
            "skid_starts": np.zeros(1, dtype=np.int64),
            "skid_colors": np.zeros(0, dtype=np.int64),
            "car_screen": np.ascontiguousarray(s["car_screen"], dtype=np.float64),
            "car_starts": np.ascontiguousarray(s["car_starts"], dtype=np.int64),
            "car_colors": raster.pack_rgb(s["car_colors"]).astype(np.int64),
            "dashboard": np.asarray(s["dashboard"], dtype=np.float64),
            "text": raster.score_glyphs(s["reward"], font),
        }
        for s in scenes
    ]
    timed = [*stages, *wholes]
    for _, run in timed:  # compile or load the kernels
        run(arguments[0])
    best = np.full((len(timed), len(arguments)), np.inf)
    for _ in range(repeats):
        for k, a in enumerate(arguments):
            for j, (_, run) in enumerate(timed):
                start = time.perf_counter()
                run(a)
                best[j, k] = min(best[j, k], time.perf_counter() - start)
    means = best.mean(axis=1) * 1e6
    total = means[: len(stages)].sum()
    name = "SSE2" if backend == raster.SMOOTHSCALE_SSE2 else "GENERIC"
    print(
        f"{len(arguments)} frames (scenes {skip}+ of {steps}), {name} smoothscale; mean of each frame's fastest of {repeats}:"
    )
    for (label, _), us in zip(stages, means):
        print(f"  {label:15s} {us:8.1f} us  {100 * us / total:5.1f}%")
    print(f"  {'sum of parts':15s} {total:8.1f} us")
    for (label, _), us in zip(wholes, means[len(stages) :]):
        print(f"  {label:15s} {us:8.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parts", action="store_true", help="split the compiled frame into its stages")
    parser.add_argument("--skip", type=int, default=60, help="with --parts: scenes left out at the start")
    parser.add_argument("--backend", choices=["SSE2", "GENERIC"], default="SSE2", help="with --parts: smoothscale's")
    parser.add_argument("--baseline", help="with --parts: a git revision whose _render_frame is timed alongside")
    args = parser.parse_args()
    if args.parts:
        backend = raster.SMOOTHSCALE_SSE2 if args.backend == "SSE2" else raster.SMOOTHSCALE_GENERIC
        parts(args.steps, args.repeats, args.skip, backend, args.baseline)
    else:
        against_gymnasium(args.steps, args.repeats)


if __name__ == "__main__":
    main()
