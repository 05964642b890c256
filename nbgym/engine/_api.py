"""The definitions behind ``nbgym.engine``'s names (imported on the first use of one: it imports numba)."""

from nbgym._engine.env import KernelEnv, KernelVectorEnv
from nbgym._engine.jit import kernel as njit
from nbgym._engine.kernels import Physics
from nbgym._engine.render import RenderState, import_pygame, render_frame
from nbgym._engine.rollout import RolloutResult, Trajectory, rollout
from nbgym._engine.state_views import StateView
from nbgym.engine import npmath, rng, state_views

