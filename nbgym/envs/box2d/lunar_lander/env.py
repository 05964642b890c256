"""LunarLander's environment classes: ``LunarLander`` and ``LunarLanderVectorEnv``, made from one declaration and run
on the kernels of ``physics``; gymnasium's ``heuristic`` controller and its demo."""

from __future__ import annotations

from typing import Any


import numpy as np

from nbgym import error, spaces
from nbgym._box2d import world as W
import nbgym.engine.written as written
from nbgym.engine import ACTION_FLOAT_DTYPES, KernelEnv, declares_arguments, vector_env_class
from nbgym.engine.state_views import StateRows, StateView
import nbgym.engine.actions as reading
from nbgym.envs.box2d.lunar_lander import physics as P
from nbgym.envs.box2d._port_objects import (
    compile_port_calls,
    FixedList,
    GroundedBody,
    PortBody,
    PortWorld,
    write_prev_shaping,
)
from nbgym.engine import DrawsResetTwice, close_window
from nbgym.envs.box2d.lunar_lander import rendering
from nbgym.envs.box2d.lunar_lander.objects import Particle
from nbgym.utils import EzPickle

__all__ = ["LunarLander", "LunarLanderContinuous", "LunarLanderVectorEnv", "heuristic", "demo_heuristic_lander"]

# gymnasium's module constants.
FPS, SCALE, MAIN_ENGINE_POWER, SIDE_ENGINE_POWER, INITIAL_RANDOM = (
    P.FPS,
    P.SCALE,
    P.MAIN_ENGINE_POWER,
    P.SIDE_ENGINE_POWER,
    P.INITIAL_RANDOM,
)
LANDER_POLY, LEG_AWAY, LEG_DOWN, LEG_W, LEG_H, LEG_SPRING_TORQUE = (
    list(P.LANDER_POLY),
    P.LEG_AWAY,
    P.LEG_DOWN,
    P.LEG_W,
    P.LEG_H,
    P.LEG_SPRING_TORQUE,
)
SIDE_ENGINE_HEIGHT, SIDE_ENGINE_AWAY, MAIN_ENGINE_Y_LOCATION = (
    P.SIDE_ENGINE_HEIGHT,
    P.SIDE_ENGINE_AWAY,
    P.MAIN_ENGINE_Y_LOCATION,
)
VIEWPORT_W, VIEWPORT_H, CHUNKS = P.VIEWPORT_W, P.VIEWPORT_H, P.CHUNKS


def _read_game_over(params: np.record, row: StateRows) -> bool:
    return bool(row.w.body_i[row.env_i[P.LANDER], W.BI_BEGUN])


def _write_game_over(params: np.record, row: StateRows, value: Any) -> None:
    row.w.body_i[row.env_i[P.LANDER], W.BI_BEGUN] = 1 if value else 0


def _read_prev_shaping(params: np.record, row: StateRows) -> np.float64 | None:
    return np.float64(row.env_f[P.PREV_SHAPING]) if row.env_i[P.HAS_PREV_SHAPING] else None


_SHAPING_SCALARS = (written.FLOAT64, written.FLOAT32, written.FLOAT16, written.INTEGER, written.BOOL)
_SHAPING_KINDS = (
    written.PYTHON,
    written.FLOAT_SUBCLASS,
    *_SHAPING_SCALARS,
    *[written.zero_d(scalar) for scalar in _SHAPING_SCALARS],
)
"""What ``prev_shaping`` follows: gymnasium's only arithmetic with it is ``shaping - prev_shaping`` of a float64
``shaping`` (``np.sqrt`` of the state), float64 with any of these (a longdouble or an array would change it)."""

_HELIPAD_KINDS = written.FOLLOWED
"""What ``helipad_y`` follows: gymnasium adds it to Python floats (the legs' offset) and subtracts that from a body's
Python float ``y``: a float32 would make the observation's y float32 arithmetic, which the kernels do not do."""


def _write_prev_shaping(params: np.record, row: StateRows, value: Any) -> None:
    if value is not None:
        value = written.exact(value, np.dtype(np.float64), (), "LunarLander.prev_shaping", _SHAPING_KINDS)
    write_prev_shaping(row.env_f, row.env_i, P.PREV_SHAPING, P.HAS_PREV_SHAPING, value, "LunarLander")


def _read_helipad_y(params: np.record, row: StateRows) -> float:
    return float(row.env_f[P.HELIPAD_Y])


def _write_helipad_y(params: np.record, row: StateRows, value: Any) -> None:
    row.env_f[P.HELIPAD_Y] = written.exact(value, np.dtype(np.float64), (), "LunarLander.helipad_y", _HELIPAD_KINDS)


def _wind_index(column: int, drawn: int, name: str) -> StateView:
    """gymnasium's ``wind_idx`` or ``torque_idx``, which exist once a reset with wind draws them (or one is assigned)."""

    def read(params: np.record, row: StateRows) -> np.int64:
        if not row.env_i[P.WIND_DRAWN] & drawn:
            raise AttributeError(f"'LunarLander' object has no attribute {name!r} (a reset with wind draws it)")
        return np.int64(row.env_i[column])

    def write(params: np.record, row: StateRows, value: Any) -> None:
        written.store(row.env_i, column, value, name)
        row.env_i[P.WIND_DRAWN] |= drawn  # gymnasium's attribute exists once assigned

    return StateView(name, read, write, f"gymnasium's ``{name}``: the offset of the next {name[:-4]} value.")


class _LunarLander:
    """What LunarLander's single and vector envs share: the physics, its parameters of the arguments, the spaces,
    gymnasium's attributes of the lander's state."""

    physics = P.PHYSICS
    state_views = (
        StateView(
            "game_over",
            _read_game_over,
            _write_game_over,
            "Whether the lander's body touched the moon (the episode then ends with -100).",
        ),
        StateView(
            "prev_shaping",
            _read_prev_shaping,
            _write_prev_shaping,
            "The last step's shaping term (``None`` before the first step of an episode).",
        ),
        StateView(
            "helipad_y",
            _read_helipad_y,
            _write_helipad_y,
            "The helipad's height, where the observation's y is measured from.",
        ),
        _wind_index(P.WIND_IDX, P.WIND_DRAWN_BIT, "wind_idx"),
        _wind_index(P.TORQUE_IDX, P.TORQUE_DRAWN_BIT, "torque_idx"),
    )
    continuous = P.CONTINUOUS
    # gymnasium's reset builds its world with b2World(gravity=(0, gravity)): pybox2d takes floats, not 0-d arrays.
    written_kinds = {"gravity": (written.PYTHON, written.FLOAT64, written.FLOAT_SUBCLASS)}
    asserts_action_in_space = True  # gymnasium's step asserts action_space.contains(action): np.uint64 is refused

    def _configure(self, arguments: Any) -> np.ndarray:
        P.check_arguments(arguments.gravity, arguments.wind_power, arguments.turbulence_power)
        return P.new_params(
            arguments.continuous,
            arguments.gravity,
            arguments.enable_wind,
            arguments.wind_power,
            arguments.turbulence_power,
            with_particles=arguments.render_mode is not None,  # gymnasium's flames exist only when rendering
        )

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Space]:
        return P.observation_and_action_spaces(self.continuous)


class LunarLander(DrawsResetTwice, _LunarLander, KernelEnv, EzPickle):
    r"""
    ## Description
    A rocket trajectory optimisation problem. By Pontryagin's maximum principle it is optimal to fire an
    engine at full throttle or not at all, hence the discrete version's on/off engines; the continuous
    version throttles them.

    The landing pad is always at coordinates (0, 0), the first two numbers of the observation. Landing
    outside the pad is possible, and fuel is infinite.

    To watch a heuristic land: `python -m nbgym.envs.box2d.lunar_lander`.

    ## Action Space
    Discrete (`Discrete(4)`):
    - 0: do nothing
    - 1: fire the left orientation engine
    - 2: fire the main engine
    - 3: fire the right orientation engine

    Continuous (`continuous=True`, `Box(-1, +1, (2,), float32)`): `[main, lateral]`. The main engine is
    off for `main < 0` and throttles from 50% to 100% over `0 <= main <= 1`; the lateral boosters are off
    for `-0.5 < lateral < 0.5`, and the left (`lateral < -0.5`) or right (`lateral > 0.5`) one
    throttles from 50% to 100% as `|lateral|` goes from 0.5 to 1.

    ## Observation Space
    8 floats: the lander's `x`, `y`, velocities `vx`, `vy`, its angle, its angular velocity, and two
    booleans (1.0/0.0), whether each leg touches the ground.

    ## Rewards
    Each step's reward is the change of a shaping term that grows as the lander nears the pad, slows
    down and levels out, plus 10 points per leg touching the ground; firing the main engine costs
    0.3 points a frame and a side engine 0.03. Crashing ends the episode with -100, coming to rest with
    +100. An episode of 200 points or more counts as a solution.

    ## Starting State
    The lander starts at the top centre of the viewport with a random force applied to its centre of mass.

    ## Episode Termination
    The episode ends when
    1. the lander's body touches the moon (a crash);
    2. the lander leaves the viewport (`|x| >= 1`);
    3. the lander is not awake: Box2D found it at rest and put it to sleep.

    ## Arguments
    ```python
    >>> import nbgym
    >>> env = nbgym.make("LunarLander-v3", continuous=False, gravity=-10.0,
    ...                  enable_wind=False, wind_power=15.0, turbulence_power=1.5)
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<LunarLander<LunarLander-v3>>>>>

    ```
    * `continuous`: continuous actions (engine throttles) instead of discrete ones.
    * `gravity`: the gravitational constant, strictly between -12 and 0 (default -10).
    * `enable_wind`: blow wind on the lander while no leg touches the ground, a force of
      `tanh(sin(2 k (t+C)) + sin(pi k (t+C)))` with `k = 0.01` and `C` drawn from [-9999, 9999) at reset,
      and a turbulence torque of the same form with its own `C`.
    * `wind_power`: the wind's largest force (recommended 0 to 20).
    * `turbulence_power`: the turbulence's largest torque (recommended 0 to 2).

    ## Version History
    - v3: wind and turbulence offsets drawn at every reset; a new world at every reset (deterministic);
      observation bounds widened to x, y in [-2.5, 2.5], velocities in [-10, 10], angle in [-2 pi, 2 pi].
    - v2: energy spent counted; wind and turbulence.
    - v1: legs' ground contact in the observation, contact rewards; rewards renormalised to 200.
    - v0: initial version.

    ## Notes
    Kept from gymnasium for exactness: the side engines push at a point that moves with the lander's
    orientation (17 pixels instead of `SIDE_ENGINE_HEIGHT`), which gives an orientation-dependent torque;
    and the observation's units are scaled (angular velocity in units of 0.4 rad/s; with the default
    constants x by 10, y by 6.666, vx by 5, vy by 7.5, angular velocity by 2.5).

    ## Credits
    Created by Oleg Klimov.
    """

    gymnasium_hooks = {
        "_create_particle": ("step",),
        "_clean_particles": ("step", "render"),
        "_destroy": ("reset",),
    }

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": FPS}
    _port_world_per_episode = True  # gymnasium's reset makes a new b2World: a held one is the last episode's

    @declares_arguments
    def __init__(
        self,
        render_mode: str | None = None,
        continuous: bool = False,
        gravity: float = -10.0,
        enable_wind: bool = False,
        wind_power: float = 15.0,
        turbulence_power: float = 1.5,
    ) -> None:
        """Creates the environment; the lander, legs and terrain are built at each reset.

        Args:
            render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (flame particles exist only when rendering).
            continuous: Continuous engine throttles (``Box(-1, 1, (2,))``) instead of ``Discrete(4)``.
            gravity: The gravitational constant, strictly between -12 and 0.
            enable_wind: Whether wind and turbulence act on the lander.
            wind_power: The wind's largest force (a warning outside 0..20).
            turbulence_power: The turbulence's largest torque (a warning outside 0..2).

        Raises:
            AssertionError: ``gravity`` is not strictly between -12 and 0 (gymnasium's check).
        """
        EzPickle.__init__(self, render_mode, continuous, gravity, enable_wind, wind_power, turbulence_power)
        self._batch.state.w.world_f[0, W.WF_GY] = np.float32(gravity)  # gymnasium's b2World before the first reset
        self._with_particles = render_mode is not None
        self._continuous = bool(continuous)
        self._wind_on = bool(self._params["enable_wind"][0])
        self._unsigned_actions = False  # whether the last discrete action was of an unsigned dtype (see left_reach)
        self.screen: Any = None
        self.clock: Any = None
        self.surf: Any = None
        self.isopen = True
        self.prev_reward = None
        self._moon: PortBody | None = None
        self._lander: PortBody | None = None
        self._legs = FixedList(name="LunarLander.legs")
        self._particle_objects: dict[int, PortBody] = {}
        self._port_generation = 0

    # gymnasium's env pickles as its constructor's arguments (a new env), not mid-episode.
    __getstate__ = EzPickle.__getstate__
    __setstate__ = EzPickle.__setstate__

    # -- the world and its bodies ----------------------------------------------------------------------------

    def _port_world(self, moved_proxies: int = 0) -> tuple[Any, int]:
        if moved_proxies:
            self._make_room(0)
        return self._batch.state.w, 0

    def _port_body(self, index: int) -> PortBody:
        for body in (self._lander, self._moon, *self._legs):
            if body is not None and body._index == index:
                return body
        return self._particle(index)

    def _particle(self, index: int) -> PortBody:
        body = self._particle_objects.get(index)
        if body is None:
            body = self._particle_objects[index] = Particle(self, index)
        return body

    def _make_room(self, new_particles: int) -> None:
        """Grows the world's rows when the next step (making ``new_particles``) or a ``SetTransform`` could run
        short (see ``room_for_step``)."""
        batch = self._batch
        state = P.room_for_step(batch.state, new_particles)
        if state is not batch.state:
            batch.state = state
            self._bind(self.np_random)  # the bound kernels hold the arrays

    def _episode_body(name: str, doc: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: LunarLander) -> Any:
            return getattr(self, "_" + name)

        def set(self: LunarLander, value: Any) -> None:
            raise AttributeError(
                f"{name} is the compiled world's, which the kernels step: change it through its attributes "
                f"(position, linearVelocity, ApplyForceToCenter...)."
            )

        return property(get, set, doc=doc)

    lander = _episode_body("lander", "The lander's body (``None`` before the first reset).")
    legs = _episode_body(
        "legs",
        "The two legs' bodies, left then right, with ``ground_contact`` (a new list each "
        "episode, which refuses changes: the kernels step the world's legs).",
    )
    moon = _episode_body("moon", "The moon: a static body of 11 edges (``None`` before the first reset).")
    del _episode_body

    @property
    def world(self) -> PortWorld:
        """The Box2D world, over the compiled rows: ``gravity`` reads and writes this episode's (``SetGravity``);
        a reset makes a new world with the ``gravity`` argument, as gymnasium's, and the world held from before it
        refuses (``ReferenceError``) rather than reach the new one."""
        return PortWorld(self)

    @world.setter
    def world(self, value: Any) -> None:
        raise AttributeError("world is the compiled world the kernels step: set its gravity (world.gravity = ...).")

    @property
    def particles(self) -> FixedList:
        """The living flame particles, oldest first (a list that refuses changes: the kernels make and destroy
        them). Each has its ``ttl``; only a rendered env has them."""
        if not self._state_was_reset:
            return FixedList(name="LunarLander.particles")
        state = self._batch.state
        living = state.particles[0, : state.env_i[0, P.PARTICLE_COUNT]].tolist()
        self._particle_objects = {b: self._particle(b) for b in living}
        return FixedList((self._particle_objects[b] for b in living), "LunarLander.particles")

    @particles.setter
    def particles(self, value: Any) -> None:
        raise AttributeError("particles are the world's bodies, made by the kernels: set a particle's ttl instead.")

    # -- episodes --------------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Builds new terrain and a new lander, pushed by a random force, and takes one idle step.

        Args:
            seed: The seed of :attr:`np_random` (``None`` keeps the stream going).
            options: Unused.

        Returns:
            ``(observation, {})``.
        """
        self._port_generation += 1  # the objects of the last episode refuse to be read
        return super().reset(seed=seed, options=options)  # "human" mode: two window updates (DrawsResetTwice)

    def _release_held(self, mask: np.ndarray | None = None, params: np.ndarray | None = None) -> None:
        # KernelEnv.reset calls this right after the kernels reset (and before a "human" frame is drawn): the new
        # episode's bodies and drawing lists, as gymnasium's reset makes them.
        super()._release_held(mask, params)
        state = self._batch.state
        env_i = state.env_i[0]
        self._moon = PortBody(self, int(env_i[P.MOON]))
        self._moon.color1 = self._moon.color2 = (0.0, 0.0, 0.0)
        self._lander = PortBody(self, int(env_i[P.LANDER]))
        self._lander.color1, self._lander.color2 = P.LANDER_COLORS
        legs = [GroundedBody(self, int(env_i[P.LEG_LEFT])), GroundedBody(self, int(env_i[P.LEG_RIGHT]))]
        self._legs = FixedList(legs, "LunarLander.legs")
        for leg in self._legs:
            leg.color1, leg.color2 = P.LANDER_COLORS
        self.drawlist = [self.lander, *self.legs]
        self._particle_objects = {}
        width, height = VIEWPORT_W / SCALE, VIEWPORT_H / SCALE
        chunk_x = [width / (CHUNKS - 1) * i for i in range(CHUNKS)]
        smooth_y = list(state.env_f[0, P.SMOOTH_Y : P.SMOOTH_Y + CHUNKS])  # np.float64, as gymnasium's
        self.helipad_x1 = chunk_x[CHUNKS // 2 - 1]
        self.helipad_x2 = chunk_x[CHUNKS // 2 + 1]
        self.sky_polys = [
            [
                (chunk_x[i], smooth_y[i]),
                (chunk_x[i + 1], smooth_y[i + 1]),
                (chunk_x[i + 1], height),
                (chunk_x[i], height),
            ]
            for i in range(CHUNKS - 1)
        ]

    def step(self, action: Any) -> tuple[np.ndarray, Any, bool, bool, dict]:
        """Fires the engines of ``action`` and advances the world by one frame (1/50 s).

        Args:
            action: An int of ``Discrete(4)``, or ``[main, lateral]`` throttles when continuous.

        Returns:
            ``(observation, reward, terminated, False, {})``; the reward is an ``np.float64``, or the
            int -100 (crash, out of view) or +100 (at rest) when the episode ends.

        Raises:
            InvalidAction: A discrete action outside ``Discrete(4)``.
            IndexError: A continuous action of fewer than two numbers.
            ValueError: A continuous action of more than one dimension.
            AttributeError: As gymnasium's, when ``enable_wind`` was set after a reset without wind (nothing moves).
            AssertionError: Before the first reset, as gymnasium's.
        """
        assert self._lander is not None, "You forgot to call reset()"
        if self._continuous:
            # gymnasium clips the first two throttles as float64 and ignores the rest (a float32 or float64 pair is
            # read as float64 by the kernels: the same values).
            if not (type(action) is np.ndarray and action.shape == (2,) and action.dtype in ACTION_FLOAT_DTYPES):
                action = reading.read(P.PHYSICS.read_action, self._params[0], action, self.action_space)[:2]
        elif (type(action) is int or type(action) is np.int64) and 0 <= action < 4:
            if self._unsigned_actions:
                self._note_action_dtype(np.dtype(np.int64))
        else:
            reading.read(P.PHYSICS.read_action, self._params[0], action, self.action_space)
            self._note_action_dtype(np.asarray(action).dtype)
        if self._ready:
            if self._wind_on and self._batch.state.env_i[0, P.WIND_DRAWN] != P.WIND_AND_TORQUE_DRAWN:
                P.refuse_undrawn_wind(self._params, self._batch.state, self._batch.all_envs)
            if self._with_particles:
                self._make_room(2)
        # gymnasium's reward starts as the int 0 and is a float64 only through numpy values: the shaping change
        # (none when prev_shaping was set to None) or a continuous engine's numpy power.
        numpy_reward = self._batch.state.env_i[0, P.HAS_PREV_SHAPING] != 0 or (
            self._continuous and _fires_an_engine(action)
        )
        observation, reward, terminated, truncated, info = super().step(action)
        if not terminated:
            reward = np.float64(reward) if numpy_reward else float(reward)
        return observation, reward, terminated, truncated, info

    def _note_action_dtype(self, dtype: np.dtype) -> None:
        P.note_action_dtype(self._params, dtype)
        self._unsigned_actions = dtype.kind == "u"

    @property
    def enable_wind(self) -> bool:
        """Whether wind and turbulence act on the lander (read at each step; a reset draws their offsets)."""
        return self._wind_on

    @enable_wind.setter
    def enable_wind(self, value: Any) -> None:
        self._params["enable_wind"] = value
        self._wind_on = bool(self._params["enable_wind"][0])

    def _terminal_reward(self, reward: float) -> int:
        return int(reward)  # gymnasium's -100 and +100 are ints

    def _refused_action_error(self, action: Any, message: str) -> Exception:
        return error.InvalidAction(
            f"{action!r} ({type(action)}) invalid (LunarLander's actions are 0 (nothing), 1 (left engine), "
            "2 (main engine) and 3 (right engine), ints of a dtype that casts to int64)"
        )

    # -- frames ----------------------------------------------------------------------------------------------

    def render(self) -> np.ndarray | None:
        """Draws the sky, the moon, the flames, the lander and the helipad's flags (600x400).

        Each frame ages the flame particles (their life is counted in frames drawn, as in gymnasium).

        Returns:
            The frame as a ``(400, 600, 3)`` uint8 array in ``"rgb_array"`` mode, else ``None``.

        Raises:
            DependencyNotInstalled: If pygame-ce is not installed.
        """
        return rendering.render(self)

    def _compile_python_calls(self) -> None:
        compile_port_calls(self)

    def close(self) -> None:
        """Closes the window of ``"human"`` mode (the env may still step, as gymnasium's)."""
        close_window(self)


def _fires_an_engine(throttles: Any) -> bool:
    """Whether a continuous action fires the main (``[0] > 0``) or a side engine (``|[1]| > 0.5``)."""
    throttles = np.asarray(throttles, dtype=np.float64)
    return bool(throttles[0] > 0.0 or abs(throttles[1]) > 0.5)


class LunarLanderVectorEnv(vector_env_class(LunarLander)):
    """LunarLander's compiled vector environment: every sub-environment's Box2D world (a row of the compiled Box2D
    port, ``nbgym._box2d``) stepped in one call, with the physics the single env runs.

    The same results, bit for bit, as ``gymnasium.make_vec("LunarLander-v3", num_envs,
    vectorization_mode="sync")`` (or ``LunarLanderContinuous-v3``) for the same seeds and actions, in every
    autoreset mode, and without the ``box2d`` wheel. See ``LunarLander`` for the environment and
    ``KernelVectorEnv`` for the vector options.

    It draws no frames: ``make_vec`` with a ``render_mode`` makes a ``SyncVectorEnv`` of single environments
    (whose flame particles exist only when rendered, as in gymnasium).
    """

    def _before_rows(self, actions: Any, first: int, stop: int) -> None:
        """Before sub-environments ``first`` to ``stop - 1`` step (see ``KernelVectorEnv._before_rows``): the left
        engine's lever for the actions' dtype.

        Raises:
            AttributeError: As gymnasium's sub-environment, when ``enable_wind`` was set after a reset without wind
                and a sub-environment that is not being reset would blow it (nothing moves).
        """
        params = self._params  # its fields read here, not through the properties: a send of microseconds
        if not params["continuous"][0]:
            P.note_action_dtype(params, actions.dtype if isinstance(actions, np.ndarray) else np.asarray(actions).dtype)
        if self._ready and params["enable_wind"][0]:
            stepping = np.zeros(self.num_envs, dtype=np.bool_)
            stepping[first:stop] = self.stepping_envs()[first:stop]
            P.refuse_undrawn_wind(params, self._batch.state, stepping)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Space]:
        return P.observation_and_action_spaces(self.continuous)


def heuristic(env: Any, s: np.ndarray) -> Any:
    """A hand-written controller that lands most of the time, for tests and demonstrations.

    Args:
        env: The environment (wrapped or not); its ``continuous`` attribute picks the action kind.
        s: The observation: x, y, vx, vy, angle, angular velocity, left and right leg contact.

    Returns:
        An action of ``env``'s action space.
    """
    angle_target = s[0] * 0.5 + s[2] * 1.0  # point towards the centre
    angle_target = min(max(angle_target, -0.4), 0.4)  # more than 0.4 rad (22 degrees) is bad
    hover_target = 0.55 * np.abs(s[0])  # the further off-centre, the higher
    angle_todo = (angle_target - s[4]) * 0.5 - (s[5]) * 1.0
    hover_todo = (hover_target - s[1]) * 0.5 - (s[3]) * 0.5
    if s[6] or s[7]:  # on the ground: only damp the fall
        angle_todo = 0
        hover_todo = -(s[3]) * 0.5
    if env.unwrapped.continuous:
        return np.clip(np.array([hover_todo * 20 - 1, -angle_todo * 20]), -1, +1)
    if hover_todo > np.abs(angle_todo) and hover_todo > 0.05:
        return 2
    if angle_todo < -0.05:
        return 3
    if angle_todo > +0.05:
        return 1
    return 0


def demo_heuristic_lander(env: Any, seed: int | None = None, render: bool = False) -> float:
    """Runs one episode of :func:`heuristic` on ``env``, printing its progress every 20 steps.

    Args:
        env: A LunarLander environment.
        seed: The reset's seed.
        render: Whether to render every step.

    Returns:
        The episode's total reward.
    """
    total_reward = 0.0
    steps = 0
    s, _ = env.reset(seed=seed)
    while True:
        s, r, terminated, truncated, _ = env.step(heuristic(env, s))
        total_reward += r
        if render and env.render() is False:
            break
        if steps % 20 == 0 or terminated or truncated:
            print("observations:", " ".join([f"{x:+0.2f}" for x in s]))
            print(f"step {steps} total_reward {total_reward:+0.2f}")
        steps += 1
        if terminated or truncated:
            break
    if render:
        env.close()
    return total_reward


class LunarLanderContinuous:
    """Refuses to be constructed, as gymnasium's: make ``LunarLander-v3`` with ``continuous=True``."""

    def __init__(self) -> None:
        """Raises.

        Raises:
            Error: Always, saying how to make the continuous environment.
        """
        raise error.Error(
            "Error initializing LunarLanderContinuous Environment.\n"
            "Currently, we do not support initializing this mode of environment by calling the class directly.\n"
            "To use this environment, instead create it by specifying the continuous keyword in nbgym.make, i.e.\n"
            'nbgym.make("LunarLander-v3", continuous=True)'
        )
