"""nbgym's MuJoCo environments and their renderer (:mod:`nbgym.envs.mujoco.mujoco_rendering`)."""
