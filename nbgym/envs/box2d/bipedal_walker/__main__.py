"""``python -m nbgym.envs.box2d.bipedal_walker``: gymnasium's demo, the heuristic walker in a window."""

import numpy as np

from nbgym.envs.box2d.bipedal_walker import BipedalWalker, BipedalWalkerHeuristics

env = BipedalWalker(render_mode="human")
observation, _ = env.reset()
heuristics = BipedalWalkerHeuristics()
steps = 0
total_reward = 0.0
action = np.array([0.0, 0.0, 0.0, 0.0])
while True:
    observation, reward, terminated, truncated, _ = env.step(action)
    total_reward += reward
    if steps % 20 == 0 or terminated or truncated:
        print(f"step {steps} total_reward {total_reward:+0.2f}")
    steps += 1
    action = heuristics.step_heuristic(observation)
    if terminated or truncated:
        break
