"""LunarLander: land a rocket on a pad, as gymnasium's ``LunarLander-v3`` (discrete or continuous), on Box2D."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import error, logger, spaces
from nbgym.core import Env
from nbgym.envs.box2d._common import Box2D, GroundContactDetector, action_vector, close_window, frame, import_pygame, show, start_render
from nbgym.utils import EzPickle

__all__ = ["LunarLander", "LunarLanderContinuous", "heuristic", "demo_heuristic_lander"]

FPS = 50
SCALE = 30.0  # pixels per metre: how fast-paced the game is (forces are tuned to it)

MAIN_ENGINE_POWER = 13.0
SIDE_ENGINE_POWER = 0.6

INITIAL_RANDOM = 1000.0  # bound of the random force pushing the lander at reset

LANDER_POLY = [(-14, +17), (-17, 0), (-17, -10), (+17, -10), (+17, 0), (+14, +17)]
LEG_AWAY = 20
LEG_DOWN = 18
LEG_W, LEG_H = 2, 8
LEG_SPRING_TORQUE = 40

SIDE_ENGINE_HEIGHT = 14
SIDE_ENGINE_AWAY = 12
MAIN_ENGINE_Y_LOCATION = 4  # where the main engine sits below the lander's centre, in pixels

VIEWPORT_W = 600
VIEWPORT_H = 400

CHUNKS = 11
"""Terrain segments across the viewport."""

WIND_K = 0.01
"""The wind's and turbulence's frequency ``k`` in ``tanh(sin(2 k t) + sin(pi k t))``."""

THROTTLES = ("LunarLanderContinuous", "[main, lateral]", 2)
"""The continuous action, as :func:`~nbgym.envs.box2d._common.action_vector` describes it."""

LANDER_COLORS = ((128, 102, 230), (77, 77, 128))
PARTICLE_TTL_DECAY = 0.15
"""How much of its life a flame particle loses at each rendered frame."""


class LunarLander(Env, EzPickle):
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

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": FPS}

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
            render_mode: ``None``, ``"human"`` or ``"rgb_array"``.
            continuous: Continuous engine throttles (``Box(-1, 1, (2,))``) instead of ``Discrete(4)``.
            gravity: The gravitational constant, strictly between -12 and 0.
            enable_wind: Whether wind and turbulence act on the lander.
            wind_power: The wind's largest force (a warning outside 0..20).
            turbulence_power: The turbulence's largest torque (a warning outside 0..2).

        Raises:
            AssertionError: ``gravity`` is not strictly between -12 and 0 (gymnasium's check).
        """
        EzPickle.__init__(self, render_mode, continuous, gravity, enable_wind, wind_power, turbulence_power)
        assert -12.0 < gravity and gravity < 0.0, f"gravity (current value: {gravity}) must be between -12 and 0"
        self.gravity = gravity
        if 0.0 > wind_power or wind_power > 20.0:
            logger.warn(f"wind_power value is recommended to be between 0.0 and 20.0, (current value: {wind_power})")
        self.wind_power = wind_power
        if 0.0 > turbulence_power or turbulence_power > 2.0:
            logger.warn(
                f"turbulence_power value is recommended to be between 0.0 and 2.0, (current value: {turbulence_power})"
            )
        self.turbulence_power = turbulence_power
        self.enable_wind = enable_wind

        self.screen: Any = None
        self.clock: Any = None
        self.surf: Any = None
        self.isopen = True
        self.world = Box2D.b2World(gravity=(0, gravity))
        self.moon: Any = None
        self.lander: Any = None
        self.legs: list[Any] = []
        self.particles: list[Any] = []
        self.prev_reward = None

        self.continuous = continuous
        # x, y, vx, vy, angle, angular velocity, two leg contacts.
        low = np.array([-2.5, -2.5, -10.0, -10.0, -2 * math.pi, -10.0, -0.0, -0.0]).astype(np.float32)
        high = np.array([2.5, 2.5, 10.0, 10.0, 2 * math.pi, 10.0, 1.0, 1.0]).astype(np.float32)
        self.observation_space = spaces.Box(low, high)
        if continuous:
            self.action_space = spaces.Box(-1, +1, (2,), dtype=np.float32)
        else:
            self.action_space = spaces.Discrete(4)
        self.render_mode = render_mode

    def _destroy(self) -> None:
        if not self.moon:
            return
        self.world.contactListener = None
        self._clean_particles(True)
        self.world.DestroyBody(self.moon)
        self.moon = None
        self.world.DestroyBody(self.lander)
        self.lander = None
        self.world.DestroyBody(self.legs[0])
        self.world.DestroyBody(self.legs[1])

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Builds new terrain and a new lander, pushed by a random force, and takes one idle step.

        Args:
            seed: The seed of :attr:`np_random` (``None`` keeps the stream going).
            options: Unused.

        Returns:
            ``(observation, {})``.
        """
        super().reset(seed=seed)
        self._destroy()
        # A new world at every reset: reusing one after destroying its bodies is not deterministic
        # (gymnasium issue 728).
        self.world = Box2D.b2World(gravity=(0, self.gravity))
        self.world.contactListener_keepref = GroundContactDetector(self, "lander", (0, 1))
        self.world.contactListener = self.world.contactListener_keepref
        self.game_over = False
        self.prev_shaping = None

        width = VIEWPORT_W / SCALE
        height = VIEWPORT_H / SCALE
        heights = self.np_random.uniform(0, height / 2, size=(CHUNKS + 1,))
        chunk_x = [width / (CHUNKS - 1) * i for i in range(CHUNKS)]
        self.helipad_x1 = chunk_x[CHUNKS // 2 - 1]
        self.helipad_x2 = chunk_x[CHUNKS // 2 + 1]
        self.helipad_y = height / 4
        heights[CHUNKS // 2 - 2 : CHUNKS // 2 + 3] = self.helipad_y
        smooth_y = [0.33 * (heights[i - 1] + heights[i + 0] + heights[i + 1]) for i in range(CHUNKS)]

        self.moon = self.world.CreateStaticBody(shapes=Box2D.b2.edgeShape(vertices=[(0, 0), (width, 0)]))
        self.sky_polys = []
        for i in range(CHUNKS - 1):
            p1 = (chunk_x[i], smooth_y[i])
            p2 = (chunk_x[i + 1], smooth_y[i + 1])
            self.moon.CreateEdgeFixture(vertices=[p1, p2], density=0, friction=0.1)
            self.sky_polys.append([p1, p2, (p2[0], height), (p1[0], height)])
        self.moon.color1 = (0.0, 0.0, 0.0)
        self.moon.color2 = (0.0, 0.0, 0.0)

        initial_x = VIEWPORT_W / SCALE / 2
        initial_y = VIEWPORT_H / SCALE
        self.lander = self.world.CreateDynamicBody(
            position=(initial_x, initial_y),
            angle=0.0,
            fixtures=Box2D.b2.fixtureDef(
                shape=Box2D.b2.polygonShape(vertices=[(x / SCALE, y / SCALE) for x, y in LANDER_POLY]),
                density=5.0,
                friction=0.1,
                categoryBits=0x0010,
                maskBits=0x001,  # collides with the ground only
                restitution=0.0,
            ),
        )
        self.lander.color1, self.lander.color2 = LANDER_COLORS
        push_x = self.np_random.uniform(-INITIAL_RANDOM, INITIAL_RANDOM)
        push_y = self.np_random.uniform(-INITIAL_RANDOM, INITIAL_RANDOM)
        self.lander.ApplyForceToCenter((push_x, push_y), True)
        if self.enable_wind:
            self.wind_idx = self.np_random.integers(-9999, 9999)
            self.torque_idx = self.np_random.integers(-9999, 9999)

        self.legs = []
        for side in (-1, +1):
            leg = self.world.CreateDynamicBody(
                position=(initial_x - side * LEG_AWAY / SCALE, initial_y),
                angle=side * 0.05,
                fixtures=Box2D.b2.fixtureDef(
                    shape=Box2D.b2.polygonShape(box=(LEG_W / SCALE, LEG_H / SCALE)),
                    density=1.0,
                    restitution=0.0,
                    categoryBits=0x0020,
                    maskBits=0x001,
                ),
            )
            leg.ground_contact = False
            leg.color1, leg.color2 = LANDER_COLORS
            joint = Box2D.b2.revoluteJointDef(
                bodyA=self.lander,
                bodyB=leg,
                localAnchorA=(0, 0),
                localAnchorB=(side * LEG_AWAY / SCALE, LEG_DOWN / SCALE),
                enableMotor=True,
                enableLimit=True,
                maxMotorTorque=LEG_SPRING_TORQUE,
                motorSpeed=+0.3 * side,  # low enough not to jump back into the sky
            )
            # Each leg swings within half a radian, angled outwards.
            if side == -1:
                joint.lowerAngle = +0.9 - 0.5
                joint.upperAngle = +0.9
            else:
                joint.lowerAngle = -0.9
                joint.upperAngle = -0.9 + 0.5
            leg.joint = self.world.CreateJoint(joint)
            self.legs.append(leg)
        self.drawlist = [self.lander, *self.legs]

        if self.render_mode == "human":
            self.render()
        return self.step(np.array([0, 0]) if self.continuous else 0)[0], {}

    def _create_particle(self, mass: float, x: float, y: float, ttl: float) -> Any:
        particle = self.world.CreateDynamicBody(
            position=(x, y),
            angle=0.0,
            fixtures=Box2D.b2.fixtureDef(
                shape=Box2D.b2.circleShape(radius=2 / SCALE, pos=(0, 0)),
                density=mass,
                friction=0.1,
                categoryBits=0x0100,
                maskBits=0x001,  # collides with the ground only
                restitution=0.3,
            ),
        )
        particle.ttl = ttl
        self.particles.append(particle)
        self._clean_particles(False)
        return particle

    def _clean_particles(self, all_particles: bool) -> None:
        while self.particles and (all_particles or self.particles[0].ttl < 0):
            self.world.DestroyBody(self.particles.pop(0))

    def _engine_powers(self, action: Any) -> tuple[Any, Any, Any]:
        """The main engine's power, the side engines' power and the side (-1 left, +1 right) of ``action``.

        Raises:
            InvalidAction: A discrete action outside ``Discrete(4)``.
            IndexError: A continuous action of fewer than two numbers.
            ValueError: A continuous action of more than one dimension.
        """
        if self.continuous:
            # gymnasium clips the throttles to [-1, 1] as float64 numpy values; clipping does not round,
            # so Python floats give the same powers (NaN throttles fire nothing, as there).
            main, lateral = (min(max(float(x), -1.0), 1.0) for x in action_vector(action, *THROTTLES)[:2].tolist())
            m_power = (main + 1.0) * 0.5 if main > 0.0 else 0.0  # 50% to 100%
            if abs(lateral) > 0.5:
                return m_power, min(abs(lateral), 1.0), 1.0 if lateral > 0 else -1.0
            return m_power, 0.0, 0
        # Python ints and int64 (what sample() gives) in range are what contains accepts without more ado; every
        # other value goes through contains, which also refuses dtypes that do not cast to int64 (np.uint64,
        # whose `action - 2` below would wrap), as gymnasium's assertion does.
        plain_int = (type(action) is int or type(action) is np.int64) and 0 <= action < 4
        if not plain_int and not self.action_space.contains(action):
            raise error.InvalidAction(
                f"{action!r} ({type(action)}) invalid (LunarLander's actions are 0 (nothing), 1 (left engine), "
                "2 (main engine) and 3 (right engine), ints of a dtype that casts to int64)"
            )
        if action == 2:
            return 1.0, 0.0, 0
        if action == 1 or action == 3:
            return 0.0, 1.0, action - 2
        return 0.0, 0.0, 0

    def _blow_wind(self) -> None:
        """Pushes and turns the lander by the wind's and turbulence's next values."""
        wind_mag = (
            math.tanh(math.sin(2 * WIND_K * self.wind_idx) + math.sin(math.pi * WIND_K * self.wind_idx))
            * self.wind_power
        )
        self.wind_idx += 1
        self.lander.ApplyForceToCenter((wind_mag, 0.0), True)
        torque_mag = (
            math.tanh(math.sin(2 * WIND_K * self.torque_idx) + math.sin(math.pi * WIND_K * self.torque_idx))
            * self.turbulence_power
        )
        self.torque_idx += 1
        self.lander.ApplyTorque(torque_mag, True)

    def _fire(
        self, ox: float, oy: float, impulse_pos: tuple[float, float], engine_power: float, throttle: Any, mass: float
    ) -> None:
        """Pushes the lander by the impulse ``-(ox, oy) * engine_power * throttle`` at ``impulse_pos``.

        A rendered game also throws a flame particle of ``mass`` the other way, which lives ``throttle``.
        """
        if self.render_mode is not None:
            # Flame particles are decoration: only a rendered game has them (they do not touch the lander).
            particle = self._create_particle(mass, impulse_pos[0], impulse_pos[1], throttle)
            particle.ApplyLinearImpulse((ox * engine_power * throttle, oy * engine_power * throttle), impulse_pos, True)
        self.lander.ApplyLinearImpulse(
            (-ox * engine_power * throttle, -oy * engine_power * throttle), impulse_pos, True
        )

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
        """
        assert self.lander is not None, "You forgot to call reset()"
        if self.enable_wind and not (self.legs[0].ground_contact or self.legs[1].ground_contact):
            self._blow_wind()
        m_power, s_power, direction = self._engine_powers(action)

        lander = self.lander
        angle = lander.angle
        tip_x, tip_y = math.sin(angle), math.cos(angle)  # the lander's up axis
        side_x, side_y = -tip_y, tip_x
        # Two draws of uniform(-1, 1), in one call: numpy's uniform(low, high) is low + (high - low) * random().
        dispersion = [(-1.0 + 2.0 * draw) / SCALE for draw in self.np_random.random(2).tolist()]

        if m_power != 0.0:
            # The main engine sits 4 pixels below the centre, jittered by the dispersion.
            reach = MAIN_ENGINE_Y_LOCATION / SCALE + 2 * dispersion[0]
            ox = tip_x * reach + side_x * dispersion[1]
            oy = -tip_y * reach - side_y * dispersion[1]
            position = lander.position
            self._fire(ox, oy, (position[0] + ox, position[1] + oy), MAIN_ENGINE_POWER, m_power, 3.5)
        if s_power != 0.0:
            lever = 3 * dispersion[1] + direction * SIDE_ENGINE_AWAY / SCALE
            ox = tip_x * dispersion[0] + side_x * lever
            oy = -tip_y * dispersion[0] - side_y * lever
            position = lander.position
            # 17 pixels where SIDE_ENGINE_HEIGHT (14) was presumably meant: gymnasium's torque quirk.
            impulse_pos = (position[0] + ox - tip_x * 17 / SCALE, position[1] + oy + tip_y * SIDE_ENGINE_HEIGHT / SCALE)
            self._fire(ox, oy, impulse_pos, SIDE_ENGINE_POWER, s_power, 0.7)

        self.world.Step(1.0 / FPS, 6 * 30, 2 * 30)

        position = lander.position
        velocity = lander.linearVelocity
        state = [
            (position.x - VIEWPORT_W / SCALE / 2) / (VIEWPORT_W / SCALE / 2),
            (position.y - (self.helipad_y + LEG_DOWN / SCALE)) / (VIEWPORT_H / SCALE / 2),
            velocity.x * (VIEWPORT_W / SCALE / 2) / FPS,
            velocity.y * (VIEWPORT_H / SCALE / 2) / FPS,
            lander.angle,
            20.0 * lander.angularVelocity / FPS,
            1.0 if self.legs[0].ground_contact else 0.0,
            1.0 if self.legs[1].ground_contact else 0.0,
        ]
        # Ten points per leg on the ground: losing contact after landing costs them again.
        shaping = (
            -100 * math.sqrt(state[0] * state[0] + state[1] * state[1])
            - 100 * math.sqrt(state[2] * state[2] + state[3] * state[3])
            - 100 * abs(state[4])
            + 10 * state[6]
            + 10 * state[7]
        )
        reward: Any = np.float64(0.0 if self.prev_shaping is None else shaping - self.prev_shaping)
        self.prev_shaping = np.float64(shaping)
        reward -= m_power * 0.30  # less fuel spent is better
        reward -= s_power * 0.03

        terminated = False
        if self.game_over or abs(state[0]) >= 1.0:
            terminated = True
            reward = -100
        if not lander.awake:
            terminated = True
            reward = +100

        if self.render_mode == "human":
            self.render()
        return np.array(state, dtype=np.float32), reward, terminated, False, {}

    def render(self) -> np.ndarray | None:
        """Draws the sky, the moon, the flames, the lander and the helipad's flags (600x400).

        Returns:
            The frame as a ``(400, 600, 3)`` uint8 array in ``"rgb_array"`` mode, else ``None``.

        Raises:
            DependencyNotInstalled: If pygame-ce is not installed.
        """
        pygame = start_render(self, (VIEWPORT_W, VIEWPORT_H))
        if pygame is None:
            return None

        self.surf = surface = pygame.Surface((VIEWPORT_W, VIEWPORT_H))
        pygame.draw.rect(surface, (255, 255, 255), surface.get_rect())

        # The flames fade with every frame drawn (their life is counted in frames, not steps).
        for particle in self.particles:
            particle.ttl -= PARTICLE_TTL_DECAY
            particle.color1 = particle.color2 = (
                int(max(0.2, 0.15 + particle.ttl) * 255),
                int(max(0.2, 0.5 * particle.ttl) * 255),
                int(max(0.2, 0.5 * particle.ttl) * 255),
            )
        self._clean_particles(False)

        gfxdraw = pygame.gfxdraw
        for poly in self.sky_polys:
            scaled_poly = [(x * SCALE, y * SCALE) for x, y in poly]
            pygame.draw.polygon(surface, (0, 0, 0), scaled_poly)
            gfxdraw.aapolygon(surface, scaled_poly, (0, 0, 0))

        for body in self.particles + self.drawlist:
            for fixture in body.fixtures:
                transform = fixture.body.transform
                shape = fixture.shape
                if type(shape) is Box2D.b2.circleShape:
                    center = transform * shape.pos * SCALE
                    pygame.draw.circle(surface, color=body.color1, center=center, radius=shape.radius * SCALE)
                    pygame.draw.circle(surface, color=body.color2, center=center, radius=shape.radius * SCALE)
                else:
                    path = [transform * v * SCALE for v in shape.vertices]
                    pygame.draw.polygon(surface, color=body.color1, points=path)
                    gfxdraw.aapolygon(surface, path, body.color1)
                    pygame.draw.aalines(surface, color=body.color2, points=path, closed=True)
                # The flags are drawn again after every fixture: their antialiased edges blend each time.
                self._draw_flags(surface)

        self.surf = pygame.transform.flip(surface, False, True)
        if self.render_mode == "human":
            show(self, self.surf)
            return None
        return frame(self.surf)

    def _draw_flags(self, surface: Any) -> None:
        pygame = import_pygame()
        for x in (self.helipad_x1, self.helipad_x2):
            x = x * SCALE
            pole_bottom = self.helipad_y * SCALE
            pole_top = pole_bottom + 50
            pygame.draw.line(surface, color=(255, 255, 255), start_pos=(x, pole_bottom), end_pos=(x, pole_top), width=1)
            flag = [(x, pole_top), (x, pole_top - 10), (x + 25, pole_top - 5)]
            pygame.draw.polygon(surface, color=(204, 204, 0), points=flag)
            pygame.gfxdraw.aapolygon(surface, flag, (204, 204, 0))

    def close(self) -> None:
        """Closes the window of ``"human"`` mode."""
        close_window(self)


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


if __name__ == "__main__":
    import nbgym

    demo_heuristic_lander(nbgym.make("LunarLander-v3", render_mode="human"), render=True)
