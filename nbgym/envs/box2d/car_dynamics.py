"""Top-down car dynamics with rotating wheels, for CarRacing (as gymnasium's ``car_dynamics``).

The tyre model follows Chris Campbell's top-down car tutorial (http://www.iforce2d.net/b2dtut/top-down-car);
the simulation is Oleg Klimov's. Every Box2D call and every float operation is gymnasium 1.4.0's, in its order.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from nbgym.engine import njit
from nbgym.envs.box2d._common import Box2D

__all__ = ["Car", "Particle"]

SIZE = 0.02
ENGINE_POWER = 100000000 * SIZE * SIZE
WHEEL_MOMENT_OF_INERTIA = 4000 * SIZE * SIZE
FRICTION_LIMIT = 1000000 * SIZE * SIZE  # friction ~ mass ~ size^2 (the mass follows from the density)
WHEEL_R = 27
WHEEL_W = 14
WHEELPOS = [(-55, +80), (+55, +80), (-55, -82), (+55, -82)]
HULL_POLY1 = [(-60, +130), (+60, +130), (+60, +110), (-60, +110)]
HULL_POLY2 = [(-15, +120), (+15, +120), (+20, +20), (-20, 20)]
HULL_POLY3 = [(+25, +20), (+50, -10), (+50, -40), (+20, -90), (-20, -90), (-50, -40), (-50, -10), (-25, +20)]
HULL_POLY4 = [(-50, -120), (+50, -120), (+50, -90), (-50, -90)]
WHEEL_COLOR = (0, 0, 0)
WHEEL_WHITE = (77, 77, 77)
MUD_COLOR = (102, 102, 0)

BRAKE_FORCE = 15  # radians per second
TYRE_GRIP = 205000 * SIZE * SIZE
"""The tyre force per unit of slip speed."""
SKID_TRACE_POINTS = 30
"""A skid trace's longest polyline; a longer skid starts a new trace."""


@dataclass(slots=True)
class Particle:
    """A skid trace left by a wheel: a polyline in world coordinates.

    Attributes:
        color: Its colour (mud on grass, black on the road).
        poly: Its points.
        grass: Whether it was left on grass.
        ttl: Unused (kept from gymnasium).
    """

    color: tuple[int, int, int]
    poly: list[tuple[int, int]]
    grass: Any
    ttl: int = 1


@njit
def rotation(angle: float) -> tuple[float, float, int]:
    """How ``pygame.math.Vector2.rotate_rad(angle)`` rotates: ``(cos, sin, quadrant)`` (compiled: the vector
    env's frames call it in their kernel).

    pygame reduces the angle to [0, 2 pi) with ``fmod`` and, within 1e-6 of a multiple of pi/2, swaps
    and negates coordinates exactly instead of multiplying by the sine and cosine; ``quadrant`` is that
    multiple (0 to 3), or -1 when the sine and cosine of the reduced angle are used.
    """
    angle = np.fmod(angle, 2.0 * math.pi)  # C fmod, as math.fmod (which numba lacks)
    if angle < 0:
        angle += 2.0 * math.pi
    epsilon = 1e-6
    if np.fmod(angle + epsilon, math.pi / 2.0) < 2 * epsilon:
        return 1.0, 0.0, int((angle + epsilon) / (math.pi / 2.0)) % 4
    return math.cos(angle), math.sin(angle), -1


def rotate(x: float, y: float, turn: tuple[float, float, int]) -> tuple[float, float]:
    """``(x, y)`` rotated as ``pygame.math.Vector2((x, y)).rotate_rad(angle)``, with ``turn = rotation(angle)``."""
    cos, sin, quadrant = turn
    if quadrant == -1:
        return cos * x - sin * y, sin * x + cos * y
    return ((x, y), (-y, x), (-x, -y), (y, -x))[quadrant]


@njit
def rotated(x, y, cos, sin, quadrant):  # pragma: no cover (compiled)
    """Compiled :func:`rotate`: ``(x, y)`` rotated by ``(cos, sin, quadrant) = rotation(angle)``."""
    if quadrant == -1:
        return cos * x - sin * y, sin * x + cos * y
    if quadrant == 0:
        return x, y
    if quadrant == 1:
        return -y, x
    if quadrant == 2:
        return -x, -y
    return y, -x


@njit
def _screen_points(bodies, body_of, local, cos, sin, quadrant, zoom, tx, ty, out):  # pragma: no cover (compiled)
    """Screen coordinates of body-local points, as gymnasium computes them for drawing the car.

    Point ``i`` of ``local`` (``(n, 2)`` float32) belongs to body ``body_of[i]``, whose transform is the row
    ``(cos, sin, x, y)`` of ``bodies`` (float32). Box2D's ``transform * point`` is float32 arithmetic;
    the view's rotation (``Vector2.rotate_rad``, see :func:`rotation`), zoom and translation are float64.
    """
    for i in range(local.shape[0]):
        b = body_of[i]
        qc, qs, px, py = bodies[b, 0], bodies[b, 1], bodies[b, 2], bodies[b, 3]
        lx, ly = local[i, 0], local[i, 1]
        x = np.float64((qc * lx - qs * ly) + px)
        y = np.float64((qs * lx + qc * ly) + py)
        rx, ry = rotated(x, y, cos, sin, quadrant)
        out[i, 0] = rx * zoom + tx
        out[i, 1] = ry * zoom + ty


class Car:
    """A rear-wheel-drive car: a hull of four polygons and four wheels on revolute joints (the front ones steer).

    Attributes:
        world: The Box2D world.
        hull: The hull's body.
        wheels: The wheels' bodies, front left, front right, rear left, rear right; each carries its
            controls (``gas``, ``brake``, ``steer``), rotation (``phase``, ``omega``), skid state and
            the road ``tiles`` it touches.
        drawlist: The bodies to draw, wheels first.
        particles: The last 30 skid traces.
        fuel_spent: The engine's work since the environment last reset it.
    """

    def __init__(self, world: Any, init_angle: float, init_x: float, init_y: float) -> None:
        """Creates the car's bodies and joints in ``world``.

        Args:
            world: The Box2D world.
            init_angle: The car's heading, in radians.
            init_x: The hull's x.
            init_y: The hull's y.
        """
        self.world = world
        self.hull = self.world.CreateDynamicBody(
            position=(init_x, init_y),
            angle=init_angle,
            fixtures=[
                Box2D.b2.fixtureDef(
                    shape=Box2D.b2.polygonShape(vertices=[(x * SIZE, y * SIZE) for x, y in poly]), density=1.0
                )
                for poly in (HULL_POLY1, HULL_POLY2, HULL_POLY3, HULL_POLY4)
            ],
        )
        self.hull.color = (0.8, 0.0, 0.0)
        self.wheels: list[Any] = []
        self.fuel_spent = 0.0
        wheel_poly = [(-WHEEL_W, +WHEEL_R), (+WHEEL_W, +WHEEL_R), (+WHEEL_W, -WHEEL_R), (-WHEEL_W, -WHEEL_R)]
        for wx, wy in WHEELPOS:
            wheel = self.world.CreateDynamicBody(
                position=(init_x + wx * SIZE, init_y + wy * SIZE),
                angle=init_angle,
                fixtures=Box2D.b2.fixtureDef(
                    shape=Box2D.b2.polygonShape(vertices=[(x * 1.0 * SIZE, y * 1.0 * SIZE) for x, y in wheel_poly]),
                    density=0.1,
                    categoryBits=0x0020,
                    maskBits=0x001,
                    restitution=0.0,
                ),
            )
            wheel.wheel_rad = 1.0 * WHEEL_R * SIZE
            wheel.color = WHEEL_COLOR
            wheel.gas = 0.0
            wheel.brake = 0.0
            wheel.steer = 0.0
            wheel.phase = 0.0  # the wheel's rotation angle
            wheel.omega = 0.0  # its angular velocity
            wheel.skid_start = None
            wheel.skid_particle = None
            joint = Box2D.b2.revoluteJointDef(
                bodyA=self.hull,
                bodyB=wheel,
                localAnchorA=(wx * SIZE, wy * SIZE),
                localAnchorB=(0, 0),
                enableMotor=True,
                enableLimit=True,
                maxMotorTorque=180 * 900 * SIZE * SIZE,
                motorSpeed=0,
                lowerAngle=-0.4,
                upperAngle=+0.4,
            )
            wheel.joint = self.world.CreateJoint(joint)
            wheel.tiles = set()
            wheel.userData = wheel
            self.wheels.append(wheel)
        self.drawlist = self.wheels + [self.hull]
        self.particles: deque[Particle] = deque(maxlen=SKID_TRACE_POINTS)

    def gas(self, gas: Any) -> None:
        """Presses the accelerator (rear-wheel drive): the rear wheels' gas rises by at most 0.1 a step, falls at once.

        Args:
            gas: How much gas, clipped to [0, 1].
        """
        gas = np.clip(gas, 0, 1)
        for wheel in self.wheels[2:4]:
            diff = gas - wheel.gas
            if diff > 0.1:
                diff = 0.1
            wheel.gas += diff

    def brake(self, b: Any) -> None:
        """Brakes every wheel.

        Args:
            b: The braking, 0 to 1; 0.9 or more blocks the wheels.
        """
        for wheel in self.wheels:
            wheel.brake = b

    def steer(self, s: Any) -> None:
        """Turns the steering wheel towards ``s``; the front wheels follow at a limited speed.

        Args:
            s: The target, -1 to 1.
        """
        self.wheels[0].steer = s
        self.wheels[1].steer = s

    def step(self, dt: float) -> None:
        """Applies steering, engine, brakes and tyre friction to every wheel for ``dt`` seconds.

        Args:
            dt: The time step, in seconds.
        """
        for wheel in self.wheels:
            joint = wheel.joint
            # Steer: the joint's motor turns the wheel towards its target.
            direction = np.sign(wheel.steer - joint.angle)
            val = abs(wheel.steer - joint.angle)
            joint.motorSpeed = direction * min(50.0 * val, 3.0)

            # The road's grip where the wheel touches a tile, the grass's (60%) elsewhere.
            grass = True
            friction_limit = FRICTION_LIMIT * 0.6
            for tile in wheel.tiles:
                friction_limit = max(friction_limit, FRICTION_LIMIT * tile.road_friction)
                grass = False

            forward = wheel.GetWorldVector((0, 1))
            sideways = wheel.GetWorldVector((1, 0))
            velocity = wheel.linearVelocity
            forward_speed = forward[0] * velocity[0] + forward[1] * velocity[1]
            side_speed = sideways[0] * velocity[0] + sideways[1] * velocity[1]

            # Engine: less torque at higher wheel speed.
            wheel.omega += dt * ENGINE_POWER * wheel.gas / WHEEL_MOMENT_OF_INERTIA / (abs(wheel.omega) + 5.0)
            self.fuel_spent += dt * ENGINE_POWER * wheel.gas

            if wheel.brake >= 0.9:
                wheel.omega = 0
            elif wheel.brake > 0:
                direction = -np.sign(wheel.omega)
                val = BRAKE_FORCE * wheel.brake
                if abs(val) > abs(wheel.omega):
                    val = abs(wheel.omega)  # at low speed, braking stops the wheel
                wheel.omega += direction * val
            wheel.phase += wheel.omega * dt

            # Tyre force: along the slip between the wheel's rolling speed and the ground's speed.
            rolling_speed = wheel.omega * wheel.wheel_rad
            f_force = -forward_speed + rolling_speed
            p_force = -side_speed
            f_force *= TYRE_GRIP
            p_force *= TYRE_GRIP
            force = np.sqrt(np.square(f_force) + np.square(p_force))

            # Skid traces, where the force exceeds twice the grip.
            if abs(force) > 2.0 * friction_limit:
                trace = wheel.skid_particle
                if trace and trace.grass == grass and len(trace.poly) < SKID_TRACE_POINTS:
                    trace.poly.append((wheel.position[0], wheel.position[1]))
                elif wheel.skid_start is None:
                    wheel.skid_start = wheel.position
                else:
                    wheel.skid_particle = self._create_particle(wheel.skid_start, wheel.position, grass)
                    wheel.skid_start = None
            else:
                wheel.skid_start = None
                wheel.skid_particle = None

            if abs(force) > friction_limit:
                f_force /= force
                p_force /= force
                force = friction_limit
                f_force *= force
                p_force *= force

            wheel.omega -= dt * f_force * wheel.wheel_rad / WHEEL_MOMENT_OF_INERTIA
            wheel.ApplyForceToCenter(
                (p_force * sideways[0] + f_force * forward[0], p_force * sideways[1] + f_force * forward[1]), True
            )

    def draw(self, surface: Any, zoom: float, translation: tuple[float, float], angle: float, draw_particles: bool = True) -> None:
        """Draws the skid traces (if ``draw_particles``), the wheels, their white marks and the hull.

        The polygons, colours and order are gymnasium's; their screen coordinates come from one compiled call.

        Args:
            surface: The pygame surface.
            zoom: Pixels per world unit.
            translation: The screen position of the world's origin, after rotation.
            angle: The view's rotation, in radians.
            draw_particles: Whether to draw the skid traces.
        """
        import pygame.draw

        turn = rotation(angle)
        if draw_particles:
            for particle in self.particles:
                points = []
                for point in particle.poly:
                    x, y = rotate(point[0], point[1], turn)
                    points.append((x * zoom + translation[0], y * zoom + translation[1]))
                pygame.draw.lines(surface, color=particle.color, points=points, width=2, closed=False)

        # Each drawn polygon: its body's index, its local vertices and its colour, in gymnasium's order. The
        # drawlist, fixtures and shapes are read every frame, as gymnasium's: a change of theirs is drawn.
        bodies = np.empty((len(self.drawlist), 4), dtype=np.float32)
        polygons: list[tuple[int, list[Any], Any]] = []
        for b, body in enumerate(self.drawlist):
            shapes = [fixture.shape.vertices for fixture in body.fixtures]
            transform = body.transform
            q = transform.q
            position = transform.position
            bodies[b] = (q.c, q.s, position[0], position[1])
            color = [int(c * 255) for c in body.color]
            phase = body.__dict__.get("phase")
            for vertices in shapes:
                polygons.append((b, vertices, color))
                if phase is None:
                    continue
                # A white mark on the wheel's visible side shows it turning.
                s1, s2 = math.sin(phase), math.sin(phase + 1.2)
                if s1 > 0 and s2 > 0:
                    continue
                c1 = np.sign(math.cos(phase)) if s1 > 0 else math.cos(phase)
                c2 = np.sign(math.cos(phase + 1.2)) if s2 > 0 else math.cos(phase + 1.2)
                white_poly = [
                    (-WHEEL_W * SIZE, +WHEEL_R * c1 * SIZE),
                    (+WHEEL_W * SIZE, +WHEEL_R * c1 * SIZE),
                    (+WHEEL_W * SIZE, +WHEEL_R * c2 * SIZE),
                    (-WHEEL_W * SIZE, +WHEEL_R * c2 * SIZE),
                ]
                polygons.append((b, white_poly, WHEEL_WHITE))
        # Box2D rounds the points to float32 before transforming them.
        local = np.array([v for _, vertices, _ in polygons for v in vertices], dtype=np.float32)
        body_of = np.array([b for b, vertices, _ in polygons for _ in vertices], dtype=np.int64)
        screen = np.empty((len(local), 2))
        cos, sin, quadrant = turn
        _screen_points(bodies, body_of, local, cos, sin, quadrant, zoom, translation[0], translation[1], screen)
        points = screen.tolist()
        start = 0
        for _, vertices, color in polygons:
            end = start + len(vertices)
            pygame.draw.polygon(surface, color=color, points=points[start:end])
            start = end

    def _create_particle(self, point1: Any, point2: Any, grass: bool) -> Particle:
        particle = Particle(
            color=WHEEL_COLOR if not grass else MUD_COLOR, poly=[(point1[0], point1[1]), (point2[0], point2[1])], grass=grass
        )
        self.particles.append(particle)
        return particle

    def destroy(self) -> None:
        """Removes the car's bodies from the world."""
        self.world.DestroyBody(self.hull)
        self.hull = None
        for wheel in self.wheels:
            self.world.DestroyBody(wheel)
        self.wheels = []
