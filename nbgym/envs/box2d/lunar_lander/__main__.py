"""``python -m nbgym.envs.box2d.lunar_lander``: gymnasium's demo, the heuristic lander in a window."""

import nbgym
from nbgym.envs.box2d.lunar_lander import demo_heuristic_lander

demo_heuristic_lander(nbgym.make("LunarLander-v3", render_mode="human"), render=True)
