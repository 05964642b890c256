"""BipedalWalker: teach a two-legged robot to walk, as gymnasium's ``BipedalWalker-v3`` (and its hardcore terrain), on Box2D."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import error, spaces
from nbgym._engine.jit import kernel
from nbgym.core import Env
from nbgym.envs.box2d._common import Box2D, GroundContactDetector, action_vector, close_window, frame, show, start_render
from nbgym.utils import EzPickle

__all__ = ["BipedalWalker", "BipedalWalkerHardcore", "BipedalWalkerHeuristics"]

FPS = 50
SCALE = 30.0  # pixels per metre: how fast-paced the game is (forces are tuned to it)

MOTORS_TORQUE = 80
SPEED_HIP = 4
SPEED_KNEE = 6
LIDAR_RANGE = 160 / SCALE
LIDAR_RAYS = 10
LIDAR_OFFSETS = np.array(
    [(math.sin(1.5 * i / 10.0) * LIDAR_RANGE, -(math.cos(1.5 * i / 10.0) * LIDAR_RANGE)) for i in range(LIDAR_RAYS)]
)
"""Each ray's end relative to the hull: fanning from straight down to 1.35 rad forward."""

INITIAL_RANDOM = 5

HULL_POLY = [(-30, +9), (+6, +9), (+34, +1), (+34, -8), (-30, -8)]
LEG_DOWN = -8 / SCALE
LEG_W, LEG_H = 8 / SCALE, 34 / SCALE

VIEWPORT_W = 600
VIEWPORT_H = 400

TERRAIN_STEP = 14 / SCALE
TERRAIN_LENGTH = 200  # in steps
TERRAIN_HEIGHT = VIEWPORT_H / SCALE / 4
TERRAIN_GRASS = 10  # the longest stretch of grass between obstacles, in steps
TERRAIN_STARTPAD = 20  # in steps
FRICTION = 2.5

GRASS, STUMP, STAIRS, PIT = range(4)
"""The terrain generator's states; hardcore terrain draws one of the last three after each stretch of grass."""

HULL_FD = Box2D.b2.fixtureDef(
    shape=Box2D.b2.polygonShape(vertices=[(x / SCALE, y / SCALE) for x, y in HULL_POLY]),
    density=5.0,
    friction=0.1,
    categoryBits=0x0020,
    maskBits=0x001,  # collides with the ground only
    restitution=0.0,
)

LEG_FD = Box2D.b2.fixtureDef(
    shape=Box2D.b2.polygonShape(box=(LEG_W / 2, LEG_H / 2)),
    density=1.0,
    restitution=0.0,
    categoryBits=0x0020,
    maskBits=0x001,
)

LOWER_FD = Box2D.b2.fixtureDef(
    shape=Box2D.b2.polygonShape(box=(0.8 * LEG_W / 2, LEG_H / 2)),
    density=1.0,
    restitution=0.0,
    categoryBits=0x0020,
    maskBits=0x001,
)

OBSTACLE_COLORS = ((255, 255, 255), (153, 153, 153))
GROUND_COLOR = (102, 153, 76)


class LidarRay(Box2D.b2.rayCastCallback):
    """One lidar ray: where it starts, where it ends, and how far along it the ground is.

    It is also Box2D's ray-cast callback, as gymnasium's: ``world.RayCast(ray, ray.p1, ray.p2)`` keeps the
    nearest hit of a fixture in category 1 (the ground).

    Attributes:
        p1: Where the ray starts (the hull's position, Box2D's live vector).
        p2: Where it ends: the nearest ground point hit (float32 values, as Box2D reports it), else its
            full range.
        fraction: How far along the ray that end is, 1.0 when the ray hits no ground.
    """

    p1: Any  # unset before the first cast: the renderer draws no ray then
    p2: Any
    fraction: float = 1.0

    def ReportFixture(self, fixture: Any, point: Any, normal: Any, fraction: float) -> float:
        """Box2D reports a fixture on the ray: the ground's shortens the ray to it, others are ignored (-1)."""
        if (fixture.filterData.categoryBits & 1) == 0:
            return -1
        self.p2 = point
        self.fraction = fraction
        return fraction


class _HandsOutTheWorld:
    """An attribute of :class:`BipedalWalker` through which the Box2D world can be reached (a body's
    ``world``, its contacts' bodies): reading or assigning it means the ground may change in ways nbgym
    cannot see, so from then on the environment's lidar asks Box2D itself, as gymnasium's does.

    The value lives in the instance's ``__dict__`` under the name with a leading underscore, which the
    environment's own code uses.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.private_name = "_" + name

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            return self
        try:
            value = env.__dict__[self.private_name]
        except KeyError:
            raise AttributeError(f"BipedalWalker has no {self.name} before its first reset(): call env.reset() first") from None
        env._world_handed_out = True
        return value

    def __set__(self, env: Any, value: Any) -> None:
        env._world_handed_out = True
        env.__dict__[self.private_name] = value


@kernel
def _edge_hit(p1x, p1y, dx, dy, v1x, v1y, v2x, v2y):  # pragma: no cover (compiled)
    """Box2D 2.3's ``b2EdgeShape::RayCast`` of a static edge, in float32: the hit's fraction, or 2 for none."""
    ex = v2x - v1x
    ey = v2y - v1y
    nx, ny = ey, -ex
    length = np.float32(math.sqrt(nx * nx + ny * ny))
    if length >= np.float32(1.1920929e-07):  # b2_epsilon: shorter normals stay as they are
        inv = np.float32(1.0) / length
        nx = nx * inv
        ny = ny * inv
    numerator = nx * (v1x - p1x) + ny * (v1y - p1y)
    denominator = nx * dx + ny * dy
    if denominator == 0:
        return np.float32(2.0)
    t = numerator / denominator
    if t < 0 or np.float32(1.0) < t:
        return np.float32(2.0)
    qx = p1x + t * dx
    qy = p1y + t * dy
    rr = ex * ex + ey * ey
    if rr == 0:
        return np.float32(2.0)
    along = ((qx - v1x) * ex + (qy - v1y) * ey) / rr
    if along < 0 or np.float32(1.0) < along:
        return np.float32(2.0)
    return t


@kernel
def _polygon_hit(p1x, p1y, dx, dy, vertices, normals):  # pragma: no cover (compiled)
    """Box2D 2.3's ``b2PolygonShape::RayCast`` of a static polygon, in float32: the hit's fraction, or 2 for none."""
    lower = np.float32(0.0)
    upper = np.float32(1.0)
    index = -1
    for i in range(vertices.shape[0]):
        numerator = normals[i, 0] * (vertices[i, 0] - p1x) + normals[i, 1] * (vertices[i, 1] - p1y)
        denominator = normals[i, 0] * dx + normals[i, 1] * dy
        if denominator == 0:
            if numerator < 0:
                return np.float32(2.0)
        elif denominator < 0 and numerator < lower * denominator:
            lower = numerator / denominator
            index = i
        elif denominator > 0 and numerator < upper * denominator:
            upper = numerator / denominator
        if upper < lower:
            return np.float32(2.0)
    return lower if index >= 0 else np.float32(2.0)


def _bounds(shapes: np.ndarray) -> np.ndarray:
    """Each shape's box ``(low x, high x, low y, high y)``; ``shapes`` is ``(n, vertices, 2)``."""
    x, y = shapes[:, :, 0], shapes[:, :, 1]
    return np.stack([x.min(axis=1), x.max(axis=1), y.min(axis=1), y.max(axis=1)], axis=1)


@kernel
def _apart(bounds, x0, x1, y0, y1):  # pragma: no cover (compiled)
    """Whether a shape's box ``bounds`` lies beyond a margin outside the box ``[x0, x1] x [y0, y1]`` on one
    side: then no ray inside that box can hit the shape, whatever the rounding."""
    margin = 0.01
    return bounds[1] < x0 - margin or bounds[0] > x1 + margin or bounds[3] < y0 - margin or bounds[2] > y1 + margin


@kernel
def _cast_lidar(x, y, ends, edges, edge_bounds, vertices, normals, polygon_bounds, fractions, points):  # pragma: no cover
    """Casts each ray from ``(x, y)`` to ``ends[i]`` at the static ground, as ``b2World::RayCast`` with
    gymnasium's callback does: the nearest hit's fraction and point, both float32 (``fractions[i]`` is 2
    when the ray hits nothing). Box2D takes the points as float32. ``edges`` (``(n, 2, 2)``) and the
    polygons' ``vertices`` and ``normals`` (``(n, 4, 2)``) are float32 as Box2D keeps them, with their
    boxes (:func:`_bounds`).

    The world reports the fixtures in its tree's order and each report shortens the ray, so what remains
    is the nearest hit; Box2D computes each fixture's fraction independently of the order.
    """
    one = np.float32(1.0)
    zero = np.float32(0.0)
    origin_x = np.float32(x)
    origin_y = np.float32(y)
    # A static body's transform is the identity, which Box2D still applies (b2MulT): 1 * x + 0 * y.
    p1x = one * origin_x + zero * origin_y
    p1y = -zero * origin_x + one * origin_y
    for r in range(ends.shape[0]):
        end_x = np.float32(ends[r, 0])
        end_y = np.float32(ends[r, 1])
        p2x = one * end_x + zero * end_y
        p2y = -zero * end_x + one * end_y
        dx = p2x - p1x
        dy = p2y - p1y
        x0, x1 = min(origin_x, end_x), max(origin_x, end_x)
        y0, y1 = min(origin_y, end_y), max(origin_y, end_y)
        nearest = np.float32(2.0)
        for k in range(edges.shape[0]):
            if _apart(edge_bounds[k], x0, x1, y0, y1):
                continue
            t = _edge_hit(p1x, p1y, dx, dy, edges[k, 0, 0], edges[k, 0, 1], edges[k, 1, 0], edges[k, 1, 1])
            if t < nearest:
                nearest = t
        for k in range(vertices.shape[0]):
            if _apart(polygon_bounds[k], x0, x1, y0, y1):
                continue
            t = _polygon_hit(p1x, p1y, dx, dy, vertices[k], normals[k])
            if t < nearest:
                nearest = t
        fractions[r] = nearest
        if nearest <= one:
            points[r, 0] = (one - nearest) * origin_x + nearest * end_x
            points[r, 1] = (one - nearest) * origin_y + nearest * end_y


class BipedalWalker(Env, EzPickle):
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

    ## Version History
    - v3: the lidar reports the closest point instead of the furthest; faster video recording.
    - v2: energy spent counted.
    - v1: legs report ground contact; stronger, faster motors; more ground friction; lidar rendered
      less nervously.
    - v0: initial version.

    ## Credits
    Created by Oleg Klimov.
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": FPS}

    world = _HandsOutTheWorld()
    terrain = _HandsOutTheWorld()
    drawlist = _HandsOutTheWorld()
    hull = _HandsOutTheWorld()
    legs = _HandsOutTheWorld()
    joints = _HandsOutTheWorld()

    def __init__(self, render_mode: str | None = None, hardcore: bool = False) -> None:
        """Creates the environment; terrain and walker are built at each reset.

        Args:
            render_mode: ``None``, ``"human"`` or ``"rgb_array"``.
            hardcore: Whether the terrain has stumps, stairs and pits.
        """
        EzPickle.__init__(self, render_mode, hardcore)
        self.isopen = True
        # One world for every episode (as gymnasium): the bodies are destroyed and rebuilt at reset.
        self._world = Box2D.b2World()
        # Whether the world has been handed out (see _HandsOutTheWorld): then the lidar is Box2D's ray
        # casts, for the rest of the environment's life, since the world outlives the episodes.
        self._world_handed_out = False
        self._terrain: list[Any] = []
        self._hull: Any = None
        self._legs: list[Any] = []
        self._joints: list[Any] = []
        self.prev_shaping = None
        self.hardcore = hardcore
        self.fd_polygon = Box2D.b2.fixtureDef(
            shape=Box2D.b2.polygonShape(vertices=[(0, 0), (1, 0), (1, -1), (0, -1)]),
            friction=FRICTION,
        )
        self.fd_edge = Box2D.b2.fixtureDef(
            shape=Box2D.b2.edgeShape(vertices=[(0, 0), (1, 1)]),
            friction=FRICTION,
            categoryBits=0x0001,
        )
        # Joint speeds are bounded by 5: ground contacts can push the joints to 5x their rated speed.
        angle_speed = [math.pi, 5.0]
        leg = [*angle_speed, *angle_speed, 5.0]  # hip angle and speed, knee angle and speed, contact
        high = np.array([math.pi, 5.0, 5.0, 5.0, *leg, *leg] + [1.0] * LIDAR_RAYS).astype(np.float32)
        low = -high
        low[8] = low[13] = -0.0
        self.action_space = spaces.Box(
            np.array([-1, -1, -1, -1]).astype(np.float32), np.array([1, 1, 1, 1]).astype(np.float32)
        )
        self.observation_space = spaces.Box(low, high)
        self.render_mode = render_mode
        self.screen: Any = None
        self.clock: Any = None
        self.surf: Any = None

    def _destroy(self) -> None:
        if not self._terrain:
            return
        self._world.contactListener = None
        for body in self._terrain:
            self._world.DestroyBody(body)
        self._terrain = []
        self._world.DestroyBody(self._hull)
        self._hull = None
        for leg in self._legs:
            self._world.DestroyBody(leg)
        self._legs = []
        self._joints = []

    def _static_polygon(self, poly: list[tuple[float, float]]) -> None:
        """Adds an obstacle (stump, stair, pit wall) with the vertices ``poly`` to the terrain."""
        self.fd_polygon.shape.vertices = poly
        body = self._world.CreateStaticBody(fixtures=self.fd_polygon)
        body.color1, body.color2 = OBSTACLE_COLORS
        self._terrain.append(body)

    def _generate_terrain(self, hardcore: bool) -> None:
        """Draws the terrain from :attr:`np_random` as gymnasium does, with the same draws in the same order."""
        state = GRASS
        velocity = 0.0
        y = TERRAIN_HEIGHT
        counter: Any = TERRAIN_STARTPAD
        oneshot = False
        self._terrain = []
        self.terrain_x = []
        self.terrain_y = []
        stair_steps, stair_width, stair_height = 0, 0, 0
        original_y = 0
        for i in range(TERRAIN_LENGTH):
            x = i * TERRAIN_STEP
            self.terrain_x.append(x)
            if state == GRASS and not oneshot:
                velocity = 0.8 * velocity + 0.01 * np.sign(TERRAIN_HEIGHT - y)
                if i > TERRAIN_STARTPAD:
                    velocity += self.np_random.uniform(-1, 1) / SCALE
                y += velocity
            elif state == PIT and oneshot:
                counter = self.np_random.integers(3, 5)
                poly = [(x, y), (x + TERRAIN_STEP, y), (x + TERRAIN_STEP, y - 4 * TERRAIN_STEP), (x, y - 4 * TERRAIN_STEP)]
                self._static_polygon(poly)
                self._static_polygon([(p[0] + TERRAIN_STEP * counter, p[1]) for p in poly])
                counter += 2
                original_y = y
            elif state == PIT and not oneshot:
                y = original_y
                if counter > 1:
                    y -= 4 * TERRAIN_STEP
            elif state == STUMP and oneshot:
                counter = self.np_random.integers(1, 3)
                size = counter * TERRAIN_STEP
                self._static_polygon([(x, y), (x + size, y), (x + size, y + size), (x, y + size)])
            elif state == STAIRS and oneshot:
                stair_height = +1 if self.np_random.random() > 0.5 else -1
                stair_width = self.np_random.integers(4, 5)
                stair_steps = self.np_random.integers(3, 5)
                original_y = y
                for s in range(stair_steps):
                    left = x + (s * stair_width) * TERRAIN_STEP
                    right = x + ((1 + s) * stair_width) * TERRAIN_STEP
                    top = y + (s * stair_height) * TERRAIN_STEP
                    bottom = y + (-1 + s * stair_height) * TERRAIN_STEP
                    self._static_polygon([(left, top), (right, top), (right, bottom), (left, bottom)])
                counter = stair_steps * stair_width
            elif state == STAIRS and not oneshot:
                s = stair_steps * stair_width - counter - stair_height
                n = s / stair_width
                y = original_y + (n * stair_height) * TERRAIN_STEP
            oneshot = False
            self.terrain_y.append(y)
            counter -= 1
            if counter == 0:
                counter = self.np_random.integers(TERRAIN_GRASS // 2, TERRAIN_GRASS)
                state = self.np_random.integers(STUMP, PIT + 1) if state == GRASS and hardcore else GRASS
                oneshot = True

        self.terrain_poly = []
        for i in range(TERRAIN_LENGTH - 1):
            poly = [(self.terrain_x[i], self.terrain_y[i]), (self.terrain_x[i + 1], self.terrain_y[i + 1])]
            self.fd_edge.shape.vertices = poly
            body = self._world.CreateStaticBody(fixtures=self.fd_edge)
            body.color1 = body.color2 = (76, 255 if i % 2 == 0 else 204, 76)
            self._terrain.append(body)
            poly += [(poly[1][0], 0), (poly[0][0], 0)]
            self.terrain_poly.append((poly, GROUND_COLOR))
        self._terrain.reverse()
        # The ground's shapes as Box2D keeps them (float32; polygons with its vertex order and normals),
        # for the lidar: only fixtures in category 1 stop a ray (gymnasium's callback), whatever fd_edge
        # and fd_polygon say.
        edges, vertices, normals = [], [], []
        for body in self._terrain:
            for fixture in body.fixtures:
                if (fixture.filterData.categoryBits & 1) == 0:
                    continue
                shape = fixture.shape
                if isinstance(shape, Box2D.b2.edgeShape):
                    edges.append(shape.vertices)
                else:
                    vertices.append(shape.vertices)
                    normals.append(shape.normals)
        edges = np.array(edges, dtype=np.float32).reshape(-1, 2, 2)
        vertices = np.array(vertices, dtype=np.float32).reshape(-1, 4, 2)
        normals = np.array(normals, dtype=np.float32).reshape(-1, 4, 2)
        self._ground = (edges, _bounds(edges), vertices, normals, _bounds(vertices))

    def _generate_clouds(self) -> None:
        """Ten clouds (decoration), each a pentagon jittered by :attr:`np_random`."""
        self.cloud_poly = []
        uniform = self.np_random.uniform
        for _ in range(TERRAIN_LENGTH // 20):
            x = uniform(0, TERRAIN_LENGTH) * TERRAIN_STEP
            y = VIEWPORT_H / SCALE * 3 / 4
            poly = [
                (
                    x + 15 * TERRAIN_STEP * math.sin(3.14 * 2 * a / 5) + uniform(0, 5 * TERRAIN_STEP),
                    y + 5 * TERRAIN_STEP * math.cos(3.14 * 2 * a / 5) + uniform(0, 5 * TERRAIN_STEP),
                )
                for a in range(5)
            ]
            self.cloud_poly.append((poly, min(p[0] for p in poly), max(p[0] for p in poly)))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Generates new terrain and clouds, stands the walker at the start and takes one idle step.

        Args:
            seed: The seed of :attr:`np_random` (``None`` keeps the stream going).
            options: Unused.

        Returns:
            ``(observation, {})``.
        """
        super().reset(seed=seed)
        self._destroy()
        self._world.contactListener_bug_workaround = GroundContactDetector(self, "_hull", (1, 3), "_legs")
        self._world.contactListener = self._world.contactListener_bug_workaround
        self.game_over = False
        self.prev_shaping = None
        self.scroll = 0.0
        self.lidar_render = 0

        self._generate_terrain(self.hardcore)
        self._generate_clouds()

        init_x = TERRAIN_STEP * TERRAIN_STARTPAD / 2
        init_y = TERRAIN_HEIGHT + 2 * LEG_H
        self._hull = self._world.CreateDynamicBody(position=(init_x, init_y), fixtures=HULL_FD)
        self._hull.color1 = (127, 51, 229)
        self._hull.color2 = (76, 76, 127)
        self._hull.ApplyForceToCenter((self.np_random.uniform(-INITIAL_RANDOM, INITIAL_RANDOM), 0), True)

        self._legs = []
        self._joints = []
        for side in (-1, +1):
            # Upper leg on the hip joint, then lower leg on the knee joint.
            for fixture, y, anchor_a, speed, lower_angle, upper_angle in (
                (LEG_FD, init_y - LEG_H / 2 - LEG_DOWN, (0, LEG_DOWN), side, -0.8, 1.1),
                (LOWER_FD, init_y - LEG_H * 3 / 2 - LEG_DOWN, (0, -LEG_H / 2), 1, -1.6, -0.1),
            ):
                leg = self._world.CreateDynamicBody(position=(init_x, y), angle=side * 0.05, fixtures=fixture)
                leg.color1 = (153 - side * 25, 76 - side * 25, 127 - side * 25)
                leg.color2 = (102 - side * 25, 51 - side * 25, 76 - side * 25)
                joint = Box2D.b2.revoluteJointDef(
                    bodyA=self._legs[-1] if fixture is LOWER_FD else self._hull,
                    bodyB=leg,
                    localAnchorA=anchor_a,
                    localAnchorB=(0, LEG_H / 2),
                    enableMotor=True,
                    enableLimit=True,
                    maxMotorTorque=MOTORS_TORQUE,
                    motorSpeed=speed,
                    lowerAngle=lower_angle,
                    upperAngle=upper_angle,
                )
                if fixture is LOWER_FD:
                    leg.ground_contact = False
                self._legs.append(leg)
                self._joints.append(self._world.CreateJoint(joint))

        self._drawlist = self._terrain + self._legs + [self._hull]
        self.lidar = [LidarRay() for _ in range(LIDAR_RAYS)]

        if self.render_mode == "human":
            self.render()
        return self.step(np.array([0, 0, 0, 0]))[0], {}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, Any, bool, bool, dict]:
        """Drives the four joint motors by ``action`` and advances the world by one frame (1/50 s).

        Args:
            action: Four numbers in [-1, 1]: hip and knee of the first leg, then of the second.

        Returns:
            ``(observation, reward, terminated, False, {})``; the reward has the action's float dtype
            (``np.float32`` for the action space's actions), or is the int -100 when the walker falls.

        Raises:
            TypeError: ``action`` is a Python number or has more than one dimension (gymnasium's exception).
            IndexError: ``action`` has fewer than four numbers (gymnasium's exception).
            InvalidAction: One of the four is NaN (gymnasium's Box2D would stop on an assertion,
                ``AssertionError``, after corrupting the world).
        """
        assert self._hull is not None
        motors = action_vector(action, "BipedalWalker", "of motor speeds [hip, knee, hip, knee]", 4, True)
        signs = np.sign(motors[:4]).tolist()  # exactly -1, 0 or 1 (NaN for NaN) in any dtype
        if any(sign != sign for sign in signs):
            raise error.InvalidAction(f"BipedalWalker's motor speeds are numbers in [-1, 1], not NaN: got {action!r}")
        strengths = np.clip(np.abs(motors), 0, 1)
        # The torques in the action's dtype (80 * a float32 is a float32), as gymnasium's numpy scalars.
        torques = (MOTORS_TORQUE * strengths[:4]).tolist()
        for joint, speed, sign, torque in zip(self._joints, (SPEED_HIP, SPEED_KNEE, SPEED_HIP, SPEED_KNEE), signs, torques):
            joint.motorSpeed = speed * sign
            joint.maxMotorTorque = torque

        self._world.Step(1.0 / FPS, 6 * 30, 2 * 30)

        position = self._hull.position
        velocity = self._hull.linearVelocity
        ends = np.array((position[0], position[1])) + LIDAR_OFFSETS
        if self._world_handed_out:
            for lidar, end in zip(self.lidar, ends.tolist()):
                lidar.fraction = 1.0
                lidar.p1 = position
                lidar.p2 = tuple(end)
                self._world.RayCast(lidar, lidar.p1, lidar.p2)
        else:
            fractions = np.empty(LIDAR_RAYS, dtype=np.float32)
            points = np.empty((LIDAR_RAYS, 2), dtype=np.float32)
            _cast_lidar(position[0], position[1], ends, *self._ground, fractions, points)
            for lidar, end, fraction, point in zip(self.lidar, ends.tolist(), fractions.tolist(), points.tolist()):
                lidar.p1 = position
                if fraction <= 1.0:
                    lidar.fraction, lidar.p2 = fraction, point
                else:
                    lidar.fraction, lidar.p2 = 1.0, tuple(end)

        joints = self._joints
        state = [
            self._hull.angle,
            2.0 * self._hull.angularVelocity / FPS,
            0.3 * velocity.x * (VIEWPORT_W / SCALE) / FPS,  # normalised to about -1..1
            0.3 * velocity.y * (VIEWPORT_H / SCALE) / FPS,
            joints[0].angle,
            joints[0].speed / SPEED_HIP,
            joints[1].angle + 1.0,
            joints[1].speed / SPEED_KNEE,
            1.0 if self._legs[1].ground_contact else 0.0,
            joints[2].angle,
            joints[2].speed / SPEED_HIP,
            joints[3].angle + 1.0,
            joints[3].speed / SPEED_KNEE,
            1.0 if self._legs[3].ground_contact else 0.0,
        ]
        state += [lidar.fraction for lidar in self.lidar]

        self.scroll = position.x - VIEWPORT_W / SCALE / 5
        # Moving forward is rewarded (300 at the far end); so is keeping the head straight.
        shaping = 130 * position[0] / SCALE
        shaping -= 5.0 * abs(state[0])
        reward: Any = 0
        if self.prev_shaping is not None:
            reward = shaping - self.prev_shaping
        self.prev_shaping = shaping
        # Torque costs about -50 over a heuristic's episode; numpy scalars keep the action's dtype.
        for cost in (0.00035 * MOTORS_TORQUE) * strengths:
            reward -= cost

        terminated = False
        if self.game_over or position[0] < 0:
            reward = -100
            terminated = True
        if position[0] > (TERRAIN_LENGTH - TERRAIN_GRASS) * TERRAIN_STEP:
            terminated = True

        if self.render_mode == "human":
            self.render()
        return np.array(state, dtype=np.float32), reward, terminated, False, {}

    def render(self) -> np.ndarray | None:
        """Draws the sky, clouds, terrain, one lidar ray, the walker and the start flag (600x400).

        Returns:
            The frame as a ``(400, 600, 3)`` uint8 array in ``"rgb_array"`` mode, else ``None``.

        Raises:
            DependencyNotInstalled: If pygame-ce is not installed.
        """
        pygame = start_render(self, (VIEWPORT_W, VIEWPORT_H))
        if pygame is None:
            return None
        gfxdraw = pygame.gfxdraw

        scroll = self.scroll
        # The surface spans the terrain from x = 0 to the viewport's right edge.
        self.surf = surface = pygame.Surface((VIEWPORT_W + max(0.0, scroll) * SCALE, VIEWPORT_H))
        sky = [
            (scroll * SCALE, 0),
            (scroll * SCALE + VIEWPORT_W, 0),
            (scroll * SCALE + VIEWPORT_W, VIEWPORT_H),
            (scroll * SCALE, VIEWPORT_H),
        ]
        pygame.draw.polygon(surface, color=(215, 215, 255), points=sky)

        # Clouds move at half the walker's speed.
        for poly, x1, x2 in self.cloud_poly:
            if x2 < scroll / 2 or x1 > scroll / 2 + VIEWPORT_W / SCALE:
                continue
            points = [(p[0] * SCALE + scroll * SCALE / 2, p[1] * SCALE) for p in poly]
            pygame.draw.polygon(surface, color=(255, 255, 255), points=points)
            gfxdraw.aapolygon(surface, points, (255, 255, 255))

        for poly, color in self.terrain_poly:
            if poly[1][0] < scroll or poly[0][0] > scroll + VIEWPORT_W / SCALE:
                continue
            scaled_poly = [[x * SCALE, y * SCALE] for x, y in poly]
            pygame.draw.polygon(surface, color=color, points=scaled_poly)
            gfxdraw.aapolygon(surface, scaled_poly, color)

        # One lidar ray per frame, sweeping forth and back, then a pause.
        self.lidar_render = (self.lidar_render + 1) % 100
        i = self.lidar_render
        if i < 2 * len(self.lidar):
            ray = self.lidar[i] if i < len(self.lidar) else self.lidar[len(self.lidar) - i - 1]
            if hasattr(ray, "p1") and hasattr(ray, "p2"):
                pygame.draw.line(
                    surface,
                    color=(255, 0, 0),
                    start_pos=(ray.p1[0] * SCALE, ray.p1[1] * SCALE),
                    end_pos=(ray.p2[0] * SCALE, ray.p2[1] * SCALE),
                    width=1,
                )

        for body in self._drawlist:
            for fixture in body.fixtures:
                transform = fixture.body.transform
                path = [transform * v * SCALE for v in fixture.shape.vertices]
                if len(path) > 2:
                    pygame.draw.polygon(surface, color=body.color1, points=path)
                    gfxdraw.aapolygon(surface, path, body.color1)
                    path.append(path[0])
                    pygame.draw.polygon(surface, color=body.color2, points=path, width=1)
                    gfxdraw.aapolygon(surface, path, body.color2)
                else:
                    pygame.draw.aaline(surface, start_pos=path[0], end_pos=path[1], color=body.color1)

        pole_bottom = TERRAIN_HEIGHT * SCALE
        pole_top = pole_bottom + 50
        x = TERRAIN_STEP * 3 * SCALE
        pygame.draw.aaline(surface, color=(0, 0, 0), start_pos=(x, pole_bottom), end_pos=(x, pole_top))
        flag = [(x, pole_top), (x, pole_top - 10), (x + 25, pole_top - 5)]
        pygame.draw.polygon(surface, color=(230, 51, 0), points=flag)
        pygame.draw.lines(surface, color=(0, 0, 0), points=flag + [flag[0]], width=1, closed=False)

        self.surf = pygame.transform.flip(surface, False, True)
        if self.render_mode == "human":
            show(self, self.surf, (-scroll * SCALE, 0))
            return None
        return frame(self.surf)[:, -VIEWPORT_W:]

    def close(self) -> None:
        """Closes the window of ``"human"`` mode."""
        close_window(self)


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


if __name__ == "__main__":
    env = BipedalWalker(render_mode="human")
    observation, _ = env.reset()
    heuristics = BipedalWalkerHeuristics()
    steps = 0
    total_reward = 0.0
    action = np.array([0.0, 0.0, 0.0, 0.0])
    while True:
        observation, reward, terminated, truncated, _ = env.step(action)
        total_reward += reward
        if steps % 20 == 0 or terminated or truncated:
            print(f"step {steps} total_reward {total_reward:+0.2f}")
        steps += 1
        action = heuristics.step_heuristic(observation)
        if terminated or truncated:
            break
