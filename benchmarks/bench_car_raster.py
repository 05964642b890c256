"""Time per CarRacing state frame: gymnasium's ``_render("state_pixels")`` (pygame-ce) against the compiled
rasteriser drawing the same scenes (``nbgym/envs/box2d/_raster.py``), in one process.

The scenes are those of a gymnasium episode (random actions, seed 0): each is read from the env when it renders,
then both renderers draw every scene ``repeats`` times, alternately. The rasteriser's time covers ``draw_frame``
from the scene's arrays (world polygons, view, car polygons in screen coordinates, indicator values, reward).

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

if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
