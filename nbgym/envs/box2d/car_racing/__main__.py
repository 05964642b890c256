"""``python -m nbgym.envs.box2d.car_racing``: gymnasium's demo, the car driven with the arrow keys in a window."""

import numpy as np

from nbgym.engine import import_pygame
from nbgym.envs.box2d.car_racing import CarRacing


def _play() -> None:
    """Drives the car with the arrow keys in a window (Enter restarts, Escape quits)."""
    pygame = import_pygame("box2d")
    action = np.array([0.0, 0.0, 0.0])
    env = CarRacing(render_mode="human")
    quit_game = False
    while not quit_game:
        env.reset()
        total_reward = 0.0
        steps = 0
        restart = False
        while True:
            for event in pygame.event.get():
                if event.type == pygame.KEYDOWN:
                    if event.key == pygame.K_LEFT:
                        action[0] = -1.0
                    if event.key == pygame.K_RIGHT:
                        action[0] = +1.0
                    if event.key == pygame.K_UP:
                        action[1] = +1.0
                    if event.key == pygame.K_DOWN:
                        action[2] = +0.8  # 1.0 would block the wheels
                    if event.key == pygame.K_RETURN:
                        restart = True
                    if event.key == pygame.K_ESCAPE:
                        quit_game = True
                if event.type == pygame.KEYUP:
                    if event.key in (pygame.K_LEFT, pygame.K_RIGHT):
                        action[0] = 0
                    if event.key == pygame.K_UP:
                        action[1] = 0
                    if event.key == pygame.K_DOWN:
                        action[2] = 0
                if event.type == pygame.QUIT:
                    quit_game = True
            _, reward, terminated, truncated, _ = env.step(action)
            total_reward += reward
            if steps % 200 == 0 or terminated or truncated:
                print(f"step {steps} total_reward {total_reward:+0.2f}")
            steps += 1
            if terminated or truncated or restart or quit_game:
                break
    env.close()


_play()
