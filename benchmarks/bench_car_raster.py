"""Time per CarRacing state frame: gymnasium's ``_render("state_pixels")`` (pygame-ce) against the compiled
rasteriser drawing the same scenes (``nbgym/envs/box2d/car_racing/raster.py``), in one process; and the rasteriser's
frame split into its parts.

The scenes are those of a gymnasium episode (random actions, seed 0): each is read from the env when it renders,
then both renderers draw every scene ``repeats`` times, alternately. The rasteriser's time covers ``draw_frame``
from the scene's arrays (world polygons, view, car polygons in screen coordinates, indicator values, reward).

``--parts`` times, per frame, the stages of a frame drawn whole, each called on its own (the scene: the polygons on
screen; the scene and the whole window drawn; the shrink's row pass and its column pass), and ``draw_frame``, which
draws and shrinks the state frame in bands of ``raster.BAND_ROWS`` rows as the environments do; each is one
compiled call from Python (a few microseconds of call overhead each). The first ``--skip`` scenes (the
start-of-episode zoom, which draws the whole track) are left out of the split unless ``--skip 0``. With
``--baseline REV`` the ``draw_frame`` of git revision ``REV``'s rasteriser, in bands as well, is timed in
the same loop, alternately (its frames checked equal to this one's first).

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
    """Mean over the frames of each frame's median time: gymnasium's ``_render`` and ``draw_frame``, alternately."""
    env, scenes, states = episode_scenes(steps)
    surface = np.empty((raster.WINDOW_H, raster.WINDOW_W), dtype=np.uint32)
    raster.draw_frame(**scenes[0], surface=surface)  # compile or load the kernels
    # Each frame is drawn by both, alternately, ``repeats`` times; its median time of each counts. gymnasium
    # renders its env's current state: each step's t and reward are replayed over the last physics state, whose
    # drawing costs the same.
    samples = np.empty((2, repeats, len(scenes)))  # ours, theirs
    for r in range(repeats):
        for k, (scene, (t, reward)) in enumerate(zip(scenes, states)):
            start = time.perf_counter()
            raster.draw_frame(**scene, surface=surface)
            samples[0, r, k] = time.perf_counter() - start
            env.t, env.reward = t, reward
            start = time.perf_counter()
            env._render("state_pixels")
            samples[1, r, k] = time.perf_counter() - start
    ours, theirs = np.median(samples, axis=1)
    print(f"gymnasium _render('state_pixels'): {theirs.mean() * 1e3:.3f} ms/frame")
    print(f"compiled draw_frame:               {ours.mean() * 1e3:.3f} ms/frame")
    print(f"ratio: {theirs.mean() / ours.mean():.2f}x")


@kernel
def _whole_window(
    surface, draw, a_world, a_starts, a_colors, a_view, car_screen, car_starts, car_colors, dashboard, text,
    font_glyphs, font_left, font_right, font_advance, font_kern,
):  # pragma: no cover (compiled)  # fmt: skip
    """The frame's ``raster.Scene`` (its polygons on screen, culled), as ``draw_frame`` makes it, and when ``draw``
    the whole window drawn into ``surface`` (as the ``"human"`` window is)."""
    scene = raster._scene(
        raster.WINDOW_H, raster.WINDOW_W, a_world, a_starts, a_colors, 1, a_view, -raster.MAX_SHAPE_DIM,
        raster.WINDOW_W + raster.MAX_SHAPE_DIM, raster.WINDOW_H + raster.MAX_SHAPE_DIM, np.zeros((0, 2)),
        np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), car_screen, car_starts, car_colors, dashboard, text,
        font_glyphs, font_left, font_right, font_advance, font_kern,
    )  # fmt: skip
    if draw:
        raster._draw_scene(surface, 0, raster.WINDOW_H, scene)


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


def parts(steps: int, repeats: int, skip: int, backend: int, baseline: str | None) -> None:
    """Each stage's mean (over the scenes) of its median time, and the whole state frame's (``draw_frame`` in
    bands, as the environments draw their observations; and the baseline revision's ``draw_frame``)."""
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
    scratch = raster._shrink_scratch(row_plan, raster.WINDOW_W)

    def scene_arguments(a: dict[str, Any]) -> tuple:
        return (
            a["world"], a["starts"], a["colors"], a["view"], a["car_screen"], a["car_starts"], a["car_colors"],
            a["dashboard"], a["text"], font.glyphs, font.left, font.right, font.advance, font.kern,
        )  # fmt: skip

    stages: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        ("scene", lambda a: _whole_window(surface, False, *scene_arguments(a))),
        ("scene + window", lambda a: _whole_window(surface, True, *scene_arguments(a))),
        ("shrink rows", lambda a: raster._shrink_rows(surface, rows, row_plan, backend, 0, scratch)),
        ("shrink columns", lambda a: raster._shrink_columns(rows, frame, column_plan, accumulate, backend)),
    ]  # fmt: skip
    wholes = [("draw_frame", lambda a: raster.draw_frame(**a["scene"], backend=backend))]
    if baseline is not None:
        old = revision_raster(baseline)
        for scene in scenes:
            theirs = old.draw_frame(**scene, backend=backend)
            if not np.array_equal(theirs, raster.draw_frame(**scene, backend=backend)):
                raise AssertionError(f"{baseline}'s draw_frame draws another frame")
        wholes.append((f"{baseline}'s", lambda a: old.draw_frame(**a["scene"], backend=backend)))
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
            "scene": s,
        }
        for s in scenes
    ]
    timed = [*stages, *wholes]
    for _, run in timed:  # compile or load the kernels
        run(arguments[0])
    samples = np.empty((repeats, len(timed), len(arguments)))
    # The whole frames run first and in turn first and second (a frame drawn after the whole-window stages found
    # the cache full of the window and took ~15% longer than the one after it: a baseline timed always second
    # looked that much faster than the same code), then the stages.
    wholes_first = list(range(len(stages), len(timed)))
    for r in range(repeats):
        for k, a in enumerate(arguments):
            order = wholes_first if (r + k) % 2 == 0 else wholes_first[::-1]
            for j in [*order, *range(len(stages))]:
                start = time.perf_counter()
                timed[j][1](a)
                samples[r, j, k] = time.perf_counter() - start
    means = np.median(samples, axis=0).mean(axis=1) * 1e6
    total = means[: len(stages)].sum()
    name = "SSE2" if backend == raster.SMOOTHSCALE_SSE2 else "GENERIC"
    print(
        f"{len(arguments)} frames (scenes {skip}+ of {steps}), {name} smoothscale; mean of each frame's median of {repeats}:"
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
