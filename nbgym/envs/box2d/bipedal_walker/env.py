"""BipedalWalker's environment classes: ``BipedalWalker`` and ``BipedalWalkerVectorEnv``, made from one declaration
and run on the kernels of ``physics``; gymnasium's ``BipedalWalkerHeuristics``."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym import error, spaces
from nbgym._box2d import shapes
from nbgym._box2d import world as W
from nbgym.engine import KernelEnv, declares_arguments, vector_env_class
from nbgym.engine.state_views import StateRows, StateView
import nbgym.engine.actions as reading
from nbgym.envs.box2d.bipedal_walker.physics import (
    CLOUD_DRAWS,
    CLOUD_WIDTH,
    CLOUDS,
    FPS,
    HULL,
    HULL_COLORS,
    JOINTS,
    LEGS,
    LIDAR_RAYS,
    MOTORS_TORQUE,
    OBSTACLE_COLORS,
    PHYSICS,
    HAS_PREV_SHAPING,
    PREV_SHAPING,
    SCROLL,
    TERRAIN,
    TERRAIN_COUNT,
    TERRAIN_LENGTH,
    TERRAIN_Y,
    walker_params,
    walker_spaces,
)
from nbgym.envs.box2d._port_objects import (
    compile_port_calls,
    FixedList,
    GroundedBody,
    PortBody,
    PortWorld,
    RevoluteJoint,
    fixed_world_row,
    write_prev_shaping,
)
from nbgym.engine import DrawsResetTwice, close_window
from nbgym.envs.box2d.bipedal_walker import rendering
from nbgym.envs.box2d.bipedal_walker.objects import FixtureDef, LidarRay, cloud_poly, terrain_poly, terrain_xs
from nbgym.utils import EzPickle

__all__ = ["BipedalWalker", "BipedalWalkerHardcore", "BipedalWalkerHeuristics", "BipedalWalkerVectorEnv"]


_EPISODE_ATTRIBUTES = (
    "terrain",
    "hull",
    "legs",
    "joints",
    "drawlist",
    "lidar",
    "terrain_x",
    "terrain_y",
    "terrain_poly",
    "cloud_poly",
)
"""The attributes built from the rows at their first read after a reset (see ``BipedalWalker._episode``)."""


def _read_game_over(params: np.record, row: StateRows) -> bool:
    return bool(row.w.body_i[row.env_i[HULL], W.BI_BEGUN])


def _write_game_over(params: np.record, row: StateRows, value: Any) -> None:
    row.w.body_i[row.env_i[HULL], W.BI_BEGUN] = 1 if value else 0


def _read_prev_shaping(params: np.record, row: StateRows) -> float | None:
    return row.env_f.item(PREV_SHAPING) if row.env_i[HAS_PREV_SHAPING] else None


def _write_prev_shaping(params: np.record, row: StateRows, value: Any) -> None:
    write_prev_shaping(row.env_f, row.env_i, PREV_SHAPING, HAS_PREV_SHAPING, value, "BipedalWalker")


def _read_scroll(params: np.record, row: StateRows) -> float:
    return row.env_f.item(SCROLL)


def _write_scroll(params: np.record, row: StateRows, value: Any) -> None:
    row.env_f[SCROLL] = float(value)


class _BipedalWalker:
    """What BipedalWalker's single and vector envs share: the physics, its parameters of the arguments, the spaces,
    gymnasium's attributes of the walker's state."""

    physics = PHYSICS
    state_views = (
        StateView(
            "game_over",
            _read_game_over,
            _write_game_over,
            """Whether the hull has touched the ground (gymnasium's contact listener sets it): the next step then
            ends the episode with -100. Assigning it is read by the next step, as in gymnasium.""",
        ),
        StateView(
            "prev_shaping",
            _read_prev_shaping,
            _write_prev_shaping,
            """The shaping of the last step (``None`` before the first step of an episode); the next reward is the
            change of the shaping since. Assigning it is read by the next step.""",
            before_reset=None,
        ),
        StateView(
            "scroll",
            _read_scroll,
            _write_scroll,
            """How far the view has scrolled (metres): 1/5 of the view behind the hull, set by each step and read
            by the frames.""",
        ),
    )

    def _configure(self, arguments: Any) -> np.ndarray:
        return walker_params(arguments.hardcore)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Box]:
        return walker_spaces()


class BipedalWalker(DrawsResetTwice, _BipedalWalker, KernelEnv, EzPickle):
    """
    ## Description
    A 4-joint walker robot. There are two versions:
    - normal, with slightly uneven terrain;
    - hardcore, with ladders, stumps and pitfalls.

    Solving the normal version takes 300 points in 1600 time steps, the hardcore version 300 points in
    2000 time steps. A heuristic controller is provided for tests and demonstrations:
    `python -m nbgym.envs.box2d.bipedal_walker`.

    ## Action Space
    Motor speed values in [-1, 1] for each of the 4 joints: hip and knee of each leg
    (`Box(-1, 1, (4,), float32)`). The sign of a value sets the motor's direction, its magnitude the
    motor's torque.

    ## Observation Space
    24 floats: the hull's angle, angular velocity, horizontal and vertical speed; for each leg, its hip
    and knee joint angles and speeds and whether the lower leg touches the ground; and 10 lidar
    rangefinder fractions. There are no coordinates in the observation.

    ## Rewards
    Moving forward earns 300+ points up to the far end; falling costs -100; motor torque costs a little,
    so a better agent scores more.

    ## Starting State
    The walker stands at the left end of the terrain with its hull horizontal and both legs in the same
    position, knees slightly bent.

    ## Episode Termination
    The episode ends when the hull touches the ground or the walker passes the right end of the terrain.

    ## Arguments
    For the hardcore terrain, pass `hardcore=True` (or make `BipedalWalkerHardcore-v3`):
    ```python
    >>> import nbgym
    >>> env = nbgym.make("BipedalWalker-v3", hardcore=True, render_mode="rgb_array")
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<BipedalWalker<BipedalWalker-v3>>>>>

    ```

    The dynamics are compiled (nbgym's Box2D port; the kernels of `make_vec`'s `BipedalWalkerVectorEnv`), and no
    `box2d` wheel is needed. gymnasium's Box2D objects are there, reading and writing the compiled world:
    `hull` and `legs` (position, angle, velocities...; the lower legs' `ground_contact`), `joints` (angle,
    speed, motor, limits), `lidar` (each ray's `fraction`, `p1`, `p2`), `terrain`, `drawlist`, `world`
    (gravity, bodies); so are `game_over`, `prev_shaping`, `scroll`, `lidar_render`, `terrain_poly`,
    `cloud_poly`, `fd_polygon` and `fd_edge`. What the port cannot do (creating or destroying bodies, say)
    raises, saying so.

    ## Version History
    - v3: the lidar reports the closest point instead of the furthest; faster video recording.
    - v2: energy spent counted.
    - v1: legs report ground contact; stronger, faster motors; more ground friction; lidar rendered
      less nervously.
    - v0: initial version.

    ## Credits
    Created by Oleg Klimov.
    """

    gymnasium_hooks = {
        "_destroy": ("reset",),
        "_generate_terrain": ("reset",),
        "_generate_clouds": ("reset",),
    }

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": FPS}
    _port_world_per_episode = False  # gymnasium's BipedalWalker makes its world once, in __init__

    @declares_arguments
    def __init__(self, render_mode: str | None = None, hardcore: bool = False) -> None:
        """Creates the environment (and its Box2D world); terrain and walker are built at each reset.

        Args:
            render_mode: ``None``, ``"human"`` or ``"rgb_array"``.
            hardcore: Whether the terrain has stumps, stairs and pits.
        """
        EzPickle.__init__(self, render_mode, hardcore)
        self.isopen = True
        self.screen: Any = None
        self.clock: Any = None
        self.fd_polygon = FixtureDef(self, "polygon")
        self.fd_edge = FixtureDef(self, "edge")
        self._episode: dict[str, Any] = {}
        """The attributes built from the rows at their first read since the last reset (``_EPISODE_ATTRIBUTES``),
        and the objects standing for the world's bodies (``"bodies"``): gymnasium builds them at reset; nbgym builds
        them only for a user (or a frame) that reads them, so that stepping costs nothing in Python."""
        self._reward_type: type = np.float32
        self._port_generation = 0

    # Pickled as gymnasium's: by the constructor's arguments (a copy is a new environment, to be reset).
    __getstate__ = EzPickle.__getstate__
    __setstate__ = EzPickle.__setstate__

    # -- the Box2D objects ------------------------------------------------------------------------------------

    def _port_world(self, moved_proxies: int = 0) -> tuple[W.World, int]:
        """The world the kernels step and this env's row of it (``PortSource``)."""
        return fixed_world_row(self._batch.state.w, "BipedalWalker", moved_proxies)

    def _port_body(self, index: int) -> PortBody:
        """The object that stands for body ``index`` (``PortSource``): the env's own hull, leg or terrain body."""
        bodies = self._episode_objects()["bodies"]
        body = bodies.get(index)
        if body is None:
            body = bodies[index] = PortBody(self, index)
        return body

    def _episode_objects(self) -> dict[str, Any]:
        """The episode's attributes (see ``_episode``), built from the rows at the first call since the reset.

        Raises:
            AttributeError: Before the first reset.
        """
        episode = self._episode
        if episode:
            return episode
        if not self._state_was_reset:
            raise AttributeError("BipedalWalker builds its terrain and walker at reset(): call env.reset() first.")
        state = self._batch.state
        env_i = state.env_i[0].tolist()
        w = state.w
        bodies: dict[int, PortBody] = {}
        terrain = []
        for k in range(env_i[TERRAIN_COUNT]):
            b = env_i[TERRAIN + k]
            body = bodies[b] = PortBody(self, b)
            if w.shape_i[0, w.body_i[0, b, W.BI_FIXTURES], shapes.TYPE] == shapes.EDGE:
                # gymnasium colours the edges alternately in the order it made them (the list is reversed).
                body.color1 = body.color2 = (76, 255 if (TERRAIN_LENGTH - 2 - k) % 2 == 0 else 204, 76)
            else:
                body.color1, body.color2 = OBSTACLE_COLORS
            terrain.append(body)
        hull = bodies[env_i[HULL]] = PortBody(self, env_i[HULL])
        hull.color1, hull.color2 = HULL_COLORS
        legs = []
        for k, side in ((0, -1), (1, -1), (2, 1), (3, 1)):
            b = env_i[LEGS + k]
            leg = bodies[b] = (GroundedBody if k % 2 else PortBody)(self, b)  # the lower legs feel the ground
            leg.color1 = (153 - side * 25, 76 - side * 25, 127 - side * 25)
            leg.color2 = (102 - side * 25, 51 - side * 25, 76 - side * 25)
            legs.append(leg)
        terrain_x = terrain_xs()
        terrain_y = list(state.env_f[0, TERRAIN_Y : TERRAIN_Y + TERRAIN_LENGTH].copy())
        episode.update(
            bodies=bodies,
            terrain=FixedList(terrain, "BipedalWalker.terrain"),
            hull=hull,
            legs=FixedList(legs, "BipedalWalker.legs"),
            joints=FixedList([RevoluteJoint(self, env_i[JOINTS + k]) for k in range(4)], "BipedalWalker.joints"),
            drawlist=[*terrain, *legs, hull],
            lidar=FixedList([LidarRay(self, k) for k in range(LIDAR_RAYS)], "BipedalWalker.lidar"),
            terrain_x=terrain_x,
            terrain_y=terrain_y,
            terrain_poly=terrain_poly(terrain_x, terrain_y),
            cloud_poly=cloud_poly(state.env_f[0, CLOUD_DRAWS : CLOUD_DRAWS + CLOUDS * CLOUD_WIDTH]),
        )
        return episode

    @property
    def world(self) -> PortWorld:
        """The Box2D world (the port's row): gravity, its bodies, its counts (see ``PortWorld``)."""
        return PortWorld(self)

    @world.setter
    def world(self, value: Any) -> None:
        raise AttributeError(
            "BipedalWalker's world is the compiled port's row that its kernels step: it cannot be replaced."
        )

    # -- reset and step ---------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Generates new terrain and clouds, stands the walker at the start and takes one idle step.

        Args:
            seed: The seed of :attr:`np_random` (``None`` keeps the stream going).
            options: Unused.

        Returns:
            ``(observation, {})``.
        """
        self._episode = {}
        self._port_generation += 1  # the objects of the last episode refuse to be read
        self.lidar_render = 0
        return super().reset(seed=seed, options=options)  # "human" mode: two window updates (DrawsResetTwice)

    def step(self, action: np.ndarray) -> tuple[np.ndarray, Any, bool, bool, dict]:
        """Drives the four joint motors by ``action`` and advances the world by one frame (1/50 s).

        Args:
            action: Four numbers in [-1, 1]: hip and knee of the first leg, then of the second. Numbers after
                the fourth cost torque in the reward but drive nothing, as in gymnasium.

        Returns:
            ``(observation, reward, terminated, False, {})``; the reward has the action's float dtype
            (``np.float32`` for the action space's actions, ``np.float64`` for float64 or int actions), or is the
            int -100 when the walker falls.

        Raises:
            TypeError: ``action`` is a Python number or has more than one dimension (gymnasium's exception).
            IndexError: ``action`` has fewer than four numbers (gymnasium's exception).
            AssertionError: Before the first reset (gymnasium's assertion).
            InvalidAction: One of the four is NaN (gymnasium's Box2D would stop on an assertion,
                ``AssertionError``, after corrupting the world), or the action's dtype is not a float32, float64
                or integer one.
        """
        # gymnasium's step asserts that reset made the hull (an unpickled copy is a new env, to be reset).
        assert self._state_was_reset, "BipedalWalker draws its terrain and walker in reset(): call env.reset() first."
        if type(action) is np.ndarray and action.shape == (4,):
            self._reward_type = np.float32 if action.dtype == np.float32 else np.float64
            return super().step(action)
        reading.read(PHYSICS.read_action, self._params[0], action, self.action_space)
        motors = np.asarray(action)
        self._reward_type = np.float32 if motors.dtype == np.float32 else np.float64
        observation, reward, terminated, truncated, info = super().step(motors[:4])
        if type(reward) is not int:  # not the fall's -100
            for a in motors[4:]:
                reward -= 0.00035 * MOTORS_TORQUE * np.clip(np.abs(a), 0, 1)
        return observation, reward, terminated, truncated, info

    def _reward(self) -> Any:
        return self._reward_type(self._batch.rewards.item(0))

    def _terminal_reward(self, reward: Any) -> Any:
        state = self._batch.state
        hull = int(state.env_i[0, HULL])
        if state.w.body_i[0, hull, W.BI_BEGUN] or state.w.body_f[0, hull, W.BF_PX] < 0:
            return -100  # gymnasium's int
        return reward

    def _refused_action_error(self, action: Any, message: str) -> Exception:
        return error.InvalidAction(f"BipedalWalker's motor speeds are numbers in [-1, 1], not NaN: got {action!r}")

    # -- frames -----------------------------------------------------------------------------------------------

    def render(self) -> np.ndarray | None:
        """Draws the sky, clouds, terrain, one lidar ray, the walker and the start flag (600x400), as gymnasium.

        Returns:
            The frame as a ``(400, 600, 3)`` uint8 array in ``"rgb_array"`` mode, else ``None``.

        Raises:
            DependencyNotInstalled: If pygame-ce is not installed.
            ResetNeeded: Before the first reset.
        """
        return rendering.render(self)

    def _compile_python_calls(self) -> None:
        compile_port_calls(self)

    def close(self) -> None:
        """Closes the window of ``"human"`` mode; ``step()`` needs a ``reset()`` again."""
        close_window(self)
        super().close()


def _episode_attribute(name: str, settable: bool) -> property:
    def get(self: BipedalWalker) -> Any:
        if not self._state_was_reset and name in _BEFORE_RESET:
            return _BEFORE_RESET[name]()
        return self._episode_objects()[name]

    def set(self: BipedalWalker, value: Any) -> None:
        if not settable:
            raise AttributeError(
                f"BipedalWalker.{name} holds the objects of the compiled world that the kernels step: it cannot be "
                f"replaced (change the objects' attributes instead: positions, velocities, motor speeds...)."
            )
        self._episode_objects()[name] = value

    return property(get, set, doc=f"gymnasium's ``{name}``, built from the compiled rows (see ``_episode``).")


_BEFORE_RESET = {"terrain": list, "hull": lambda: None}
"""What gymnasium's environment holds before its first reset (the other attributes do not exist then)."""

for _name in _EPISODE_ATTRIBUTES:
    setattr(
        BipedalWalker,
        _name,
        _episode_attribute(_name, _name in ("drawlist", "terrain_x", "terrain_y", "terrain_poly", "cloud_poly")),
    )
del _name


BipedalWalkerVectorEnv = vector_env_class(
    BipedalWalker,
    doc="""BipedalWalker's compiled vector environment: every sub-environment's Box2D world (a row of the compiled
    Box2D port, ``nbgym._box2d``) stepped in one call, with the physics the single env runs.

    The same results, bit for bit, as ``gymnasium.make_vec("BipedalWalker-v3", num_envs,
    vectorization_mode="sync")`` (or ``BipedalWalkerHardcore-v3``) for the same seeds and actions, in every
    autoreset mode, and without the ``box2d`` wheel. See ``BipedalWalker`` for the environment and
    ``KernelVectorEnv`` for the vector options.

    It draws no frames: ``make_vec`` with a ``render_mode`` makes a ``SyncVectorEnv`` of single environments.
    """,
)


class BipedalWalkerHardcore:
    """Refuses to be constructed, as gymnasium's: make ``BipedalWalker-v3`` with ``hardcore=True``."""

    def __init__(self) -> None:
        """Raises.

        Raises:
            Error: Always, saying how to make the hardcore environment.
        """
        raise error.Error(
            "Error initializing BipedalWalkerHardcore Environment.\n"
            "Currently, we do not support initializing this mode of environment by calling the class directly.\n"
            "To use this environment, instead create it by specifying the hardcore keyword in nbgym.make, i.e.\n"
            'nbgym.make("BipedalWalker-v3", hardcore=True)'
        )


class BipedalWalkerHeuristics:
    """A hand-written walking controller (suboptimal: it has no notion of balance), for tests and demonstrations."""

    STAY_ON_ONE_LEG, PUT_OTHER_DOWN, PUSH_OFF = 1, 2, 3
    SPEED = 0.29  # it falls forward at higher speeds
    SUPPORT_KNEE_ANGLE = +0.1

    def __init__(self) -> None:
        """Starts standing on the second leg, the first one moving."""
        self.state = self.STAY_ON_ONE_LEG
        self.moving_leg = 0
        self.supporting_leg = 1 - self.moving_leg
        self.supporting_knee_angle = self.SUPPORT_KNEE_ANGLE
        self.a = np.array([0.0, 0.0, 0.0, 0.0])

    def step_heuristic(self, s: np.ndarray) -> np.ndarray:
        """The next action for the observation ``s``.

        Args:
            s: An observation of :class:`BipedalWalker`.

        Returns:
            Four motor speeds in [-1, 1].
        """
        moving_s_base = 4 + 5 * self.moving_leg
        supporting_s_base = 4 + 5 * self.supporting_leg
        hip_targ: list[Any] = [None, None]  # -0.8 .. +1.1
        knee_targ: list[Any] = [None, None]  # -0.6 .. +0.9
        hip_todo = [0.0, 0.0]
        knee_todo = [0.0, 0.0]

        if self.state == self.STAY_ON_ONE_LEG:
            hip_targ[self.moving_leg] = 1.1
            knee_targ[self.moving_leg] = -0.6
            self.supporting_knee_angle += 0.03
            if s[2] > self.SPEED:
                self.supporting_knee_angle += 0.03
            self.supporting_knee_angle = min(self.supporting_knee_angle, self.SUPPORT_KNEE_ANGLE)
            knee_targ[self.supporting_leg] = self.supporting_knee_angle
            if s[supporting_s_base + 0] < 0.10:  # the supporting leg is behind
                self.state = self.PUT_OTHER_DOWN
        if self.state == self.PUT_OTHER_DOWN:
            hip_targ[self.moving_leg] = +0.1
            knee_targ[self.moving_leg] = self.SUPPORT_KNEE_ANGLE
            knee_targ[self.supporting_leg] = self.supporting_knee_angle
            if s[moving_s_base + 4]:
                self.state = self.PUSH_OFF
                self.supporting_knee_angle = min(s[moving_s_base + 2], self.SUPPORT_KNEE_ANGLE)
        if self.state == self.PUSH_OFF:
            knee_targ[self.moving_leg] = self.supporting_knee_angle
            knee_targ[self.supporting_leg] = +1.0
            if s[supporting_s_base + 2] > 0.88 or s[2] > 1.2 * self.SPEED:
                self.state = self.STAY_ON_ONE_LEG
                self.moving_leg = 1 - self.moving_leg
                self.supporting_leg = 1 - self.moving_leg

        if hip_targ[0]:
            hip_todo[0] = 0.9 * (hip_targ[0] - s[4]) - 0.25 * s[5]
        if hip_targ[1]:
            hip_todo[1] = 0.9 * (hip_targ[1] - s[9]) - 0.25 * s[10]
        if knee_targ[0]:
            knee_todo[0] = 4.0 * (knee_targ[0] - s[6]) - 0.25 * s[7]
        if knee_targ[1]:
            knee_todo[1] = 4.0 * (knee_targ[1] - s[11]) - 0.25 * s[12]

        hip_todo[0] -= 0.9 * (0 - s[0]) - 1.5 * s[1]  # PID to keep the head straight
        hip_todo[1] -= 0.9 * (0 - s[0]) - 1.5 * s[1]
        knee_todo[0] -= 15.0 * s[3]  # vertical speed, to damp oscillations
        knee_todo[1] -= 15.0 * s[3]

        self.a[0] = hip_todo[0]
        self.a[1] = knee_todo[0]
        self.a[2] = hip_todo[1]
        self.a[3] = knee_todo[1]
        self.a = np.clip(0.5 * self.a, -1.0, 1.0)
        return self.a
