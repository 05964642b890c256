"""Makes the README's pictures in docs/images/ with nbgym's own rendering (run from the repository root).

    SDL_VIDEODRIVER=dummy python scripts/make_readme_frames.py

- ``cartpole.gif``: an episode of CartPole-v1 under a simple balancing policy.
- ``classic_control.png``: CartPole, Acrobot, MountainCar and Pendulum mid-episode.
- ``toy_text.png``: FrozenLake, Taxi, CliffWalking and Blackjack.
- ``vector_cartpole.png``: the four sub-environments of one compiled CartPole vector env.
- ``box2d.png``: LunarLander landing, BipedalWalker walking and CarRacing driving.

Frames are halved (every other pixel) to keep the files small. Needs ``nbgym[render]``, ``nbgym[box2d]``
and imageio.
"""

from __future__ import annotations

import os
import pathlib

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import imageio.v3 as iio
import numpy as np

import nbgym

OUT = pathlib.Path(__file__).resolve().parent.parent / "docs" / "images"
BACKGROUND = 255
BORDER = (200, 200, 200)


def halved(frame: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(frame[::2, ::2])


def row_of(frames: list[np.ndarray], gap: int = 8) -> np.ndarray:
    """The frames side by side, bottom-aligned on white, ``gap`` pixels apart, each in a thin grey border."""
    frames = [np.pad(frame, ((1, 1), (1, 1), (0, 0)), constant_values=0) for frame in frames]
    for frame in frames:
        frame[[0, -1], :] = BORDER
        frame[:, [0, -1]] = BORDER
    height = max(f.shape[0] for f in frames)
    width = sum(f.shape[1] for f in frames) + gap * (len(frames) - 1)
    canvas = np.full((height, width, 3), BACKGROUND, dtype=np.uint8)
    x = 0
    for frame in frames:
        canvas[height - frame.shape[0] :, x : x + frame.shape[1]] = frame
        x += frame.shape[1] + gap
    return canvas


def frame_after(env_id: str, steps: int, seed: int = 0, policy=None, **kwargs) -> np.ndarray:
    """The frame of ``env_id`` after ``steps`` steps of ``policy(obs)`` (random actions by default)."""
    env = nbgym.make(env_id, render_mode="rgb_array", **kwargs)
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(steps):
        action = env.action_space.sample() if policy is None else policy(obs)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    frame = env.render()
    env.close()
    return frame


def balance(obs: np.ndarray) -> int:
    """Push the cart toward where the pole leans (and a little against its fall)."""
    return int(obs[2] + 0.5 * obs[3] > 0)


def cartpole_gif(path: pathlib.Path) -> None:
    env = nbgym.make("CartPole-v1", render_mode="rgb_array")
    obs, _ = env.reset(seed=4)
    frames = [halved(env.render())]
    for t in range(120):
        # A balancing policy that drifts: every 40 steps it pushes one way for a few steps.
        action = balance(obs) if t % 40 >= 4 else 1
        obs, _, terminated, truncated, _ = env.step(action)
        frames.append(halved(env.render()))
        if terminated or truncated:
            break
    iio.imwrite(path, np.stack(frames), duration=1000 / env.metadata["render_fps"] * 2, loop=0)


def box2d_png(path: pathlib.Path) -> None:
    """LunarLander under its heuristic (flames), BipedalWalker under its heuristic, CarRacing on the gas."""
    from nbgym.envs.box2d.bipedal_walker import BipedalWalkerHeuristics
    from nbgym.envs.box2d.lunar_lander import heuristic

    # The flames fade with the frames drawn: the lander is rendered at every step.
    lander = nbgym.make("LunarLander-v3", render_mode="rgb_array")
    obs, _ = lander.reset(seed=3)
    for _ in range(90):
        obs, *_ = lander.step(heuristic(lander, obs))
        landing = lander.render()
    walker = BipedalWalkerHeuristics()
    frames = [
        landing,
        frame_after("BipedalWalker-v3", 150, seed=2, policy=walker.step_heuristic),
        frame_after("CarRacing-v3", 90, seed=1, policy=lambda obs: np.array([0.0, 0.4, 0.0], dtype=np.float32)),
    ]
    iio.imwrite(path, row_of([halved(f) for f in frames]))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    cartpole_gif(OUT / "cartpole.gif")
    classic = [
        frame_after("CartPole-v1", 30, seed=1, policy=balance),
        frame_after("Acrobot-v1", 60, seed=2),
        frame_after("MountainCar-v0", 70, seed=3, policy=lambda obs: 2 if obs[1] >= 0 else 0),
        frame_after("Pendulum-v1", 20, seed=4),
    ]
    iio.imwrite(OUT / "classic_control.png", row_of([halved(f) for f in classic]))
    toy_text = [
        frame_after("FrozenLake-v1", 3, seed=5),
        frame_after("Taxi-v4", 4, seed=6),
        frame_after("CliffWalking-v1", 5, seed=1, policy=lambda obs: [0, 1, 1, 1, 1][min(obs % 12, 4)]),
        frame_after("Blackjack-v1", 0, seed=9),
    ]
    iio.imwrite(OUT / "toy_text.png", row_of([halved(f) for f in toy_text]))
    vector = nbgym.make_vec("CartPole-v1", num_envs=4, render_mode="rgb_array")
    vector.reset(seed=7)
    for t in range(15):
        vector.step(np.array([t % 2, 1, 0, (t // 4) % 2]))
    iio.imwrite(OUT / "vector_cartpole.png", row_of([halved(f) for f in vector.render()], gap=4))
    vector.close()
    box2d_png(OUT / "box2d.png")
    for name in sorted(os.listdir(OUT)):
        print(f"{OUT / name}: {os.path.getsize(OUT / name) // 1024} KiB")


if __name__ == "__main__":
    main()
