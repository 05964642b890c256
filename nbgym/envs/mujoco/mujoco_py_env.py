"""The place of gymnasium's ``gymnasium.envs.mujoco.mujoco_py_env``, which gymnasium 1.4.0 keeps empty: its
mujoco-py environments (the v2/v3 ids) moved to gymnasium-robotics, and ``nbgym.make`` refuses those ids
with gymnasium's ``ImportError``."""
