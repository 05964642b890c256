"""The definitions behind ``nbgym.engine``'s names (imported on the first use of one: it imports numba)."""

from nbgym.engine._declare import REGISTERED, declares_arguments, vector_env_class
from nbgym.engine._env import ACTION_FLOAT_DTYPES, KernelEnv, KernelVectorEnv
from nbgym.engine._jit import OVERLOAD_OPTIONS
from nbgym.engine._jit import borrowing_kernel as borrowing_njit
from nbgym.engine._jit import kernel as njit
from nbgym.engine._kernels import Physics, dispatch_on_params
from nbgym.engine._rollout import RolloutResult, Trajectory, rollout
from nbgym.engine.state_views import StateView
