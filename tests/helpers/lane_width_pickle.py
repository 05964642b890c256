"""Run by ``tests/envs/box2d/test_box2d_lunar_lander.py`` in processes of their own, interpreted
(``NUMBA_DISABLE_JIT=1``), each with its own Box2D vector width (``NUMBA_CPU_NAME``): ``make PATH`` makes a LunarLander
vector env, steps it, pickles it to ``PATH`` and steps it on; ``load PATH`` unpickles it and takes the same later
steps. Each prints ``simd.LANES`` and a digest of the later steps' observations, rewards and flags."""

import hashlib
import pickle
import sys

import numpy as np

import nbgym
from nbgym._box2d import simd

ACTIONS = np.array([[2, 1, 3, 0], [0, 2, 2, 1], [3, 3, 1, 2]] * 4)
"""Each step's actions for the 4 sub-environments: the first 6 before the pickle, the rest after."""

mode, path = sys.argv[1], sys.argv[2]
if mode == "make":
    envs = nbgym.make_vec("LunarLander-v3", num_envs=4)
    envs.reset(seed=3)
    for actions in ACTIONS[:6]:
        envs.step(actions)
    with open(path, "wb") as file:
        pickle.dump(envs, file)
else:
    with open(path, "rb") as file:
        envs = pickle.load(file)
digest = hashlib.sha256()
for actions in ACTIONS[6:]:
    for value in envs.step(actions)[:4]:
        digest.update(np.ascontiguousarray(value).tobytes())
print(simd.LANES, digest.hexdigest())
