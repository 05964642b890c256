"""Time per CarRacing state frame: gymnasium's ``_render("state_pixels")`` (pygame-ce) against the compiled
rasteriser drawing the same scenes (``nbgym/envs/box2d/_raster.py``), in one process.

The scenes are those of a gymnasium episode (random actions, seed 0): each is read from the env when it renders,
then both renderers draw every scene ``repeats`` times. The rasteriser's time covers ``draw_frame`` from
the scene's arrays (world polygons, view, car polygons in screen coordinates, indicator values, reward).

Run: ``PYTHONPATH=. python benchmarks/bench_car_raster.py [steps] [repeats]``.
"""

from __future__ import annotations

import os
import sys
import time

import gymnasium
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from test_box2d_car_raster import scene_of  # noqa: E402

from nbgym.envs.box2d import _raster as raster  # noqa: E402


def main(steps: int = 300, repeats: int = 3) -> None:
    env = gymnasium.make("CarRacing-v3").unwrapped
    env.action_space.seed(0)
    env.reset(seed=0)
    scenes = []
    states = []
    for _ in range(steps):
        env.step(env.action_space.sample())
        scenes.append(scene_of(env))
        states.append((env.t, env.reward))
    surface = np.empty((raster.WINDOW_H, raster.WINDOW_W), dtype=np.uint32)
    raster.draw_frame(**scenes[0], surface=surface)  # compile or load the kernels
    best_ours = best_theirs = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for scene in scenes:
            raster.draw_frame(**scene, surface=surface)
        best_ours = min(best_ours, (time.perf_counter() - start) / len(scenes))
        # gymnasium renders the env's current state: replay each step's t and reward over the last physics state
        start = time.perf_counter()
        for t, reward in states:
            env.t, env.reward = t, reward
            env._render("state_pixels")
        best_theirs = min(best_theirs, (time.perf_counter() - start) / len(states))
    print(f"gymnasium _render('state_pixels'): {best_theirs * 1e3:.3f} ms/frame")
    print(f"compiled draw_frame:         {best_ours * 1e3:.3f} ms/frame")
    print(f"ratio: {best_theirs / best_ours:.2f}x")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
