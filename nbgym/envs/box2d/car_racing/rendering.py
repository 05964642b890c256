"""CarRacing's frames: gymnasium's ``render`` in each of its modes, drawn by the compiled rasteriser (``raster``,
called by ``kernels.draw_frame``): the ``"human"`` window into the env's 1000x800 surface, the other modes' frames
drawn and shrunk as gymnasium shrinks its window, in bands of its rows."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.engine import show_in_window, start_render
from nbgym.envs.box2d.car_racing import kernels as K

STATE_W = K.STATE_W  # less than Atari 160x192
STATE_H = K.STATE_H
VIDEO_W = 600
VIDEO_H = 400
WINDOW_W = 1000
WINDOW_H = 800
_NO_FRAME = np.zeros((0, 0, 3), np.uint8)


def render(env: Any) -> np.ndarray | None:
    """``env.render()`` (see ``CarRacing.render``)."""
    mode = env.render_mode
    if mode is None or mode == "human":
        pygame = start_render(env, (WINDOW_W, WINDOW_H), "box2d")
        if pygame is None:
            return None
    assert mode in env.metadata["render_modes"]
    if not env._state_was_reset:
        return None
    env._write_back_held()  # the colours and numbers changed in place, which the frame draws
    env._push_road()
    state = env._batch.state
    if mode == "human":
        K.draw_frame(state, 0, env._surface, _NO_FRAME, True)
        env.surf = pygame.Surface((WINDOW_W, WINDOW_H))
        pygame.surfarray.blit_array(env.surf, env._surface.T)
        show_in_window(env, env.surf)
        return None
    frame = np.empty((VIDEO_H, VIDEO_W, 3) if mode == "rgb_array" else (STATE_H, STATE_W, 3), np.uint8)
    K.draw_frame(state, 0, env._surface, frame, mode == "rgb_array")
    return frame
