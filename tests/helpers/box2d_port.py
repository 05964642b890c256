"""A world built the same way in the box2d 2.3.10 wheel and in nbgym's compiled Box2D port (``nbgym._box2d``), whose
bodies and contacts are compared bit for bit: shared by the port's tests (tests/_box2d/) and CarRacing's physics tests
(tests/envs/box2d/test_box2d_car_physics.py)."""

from __future__ import annotations

import Box2D
import numpy as np

from nbgym._box2d import shapes
from nbgym._box2d import world as W
from nbgym._box2d import world_step as S

F32 = np.float32


class Listener(Box2D.b2ContactListener):
    """What the port's compiled listener keeps per body: touching after the last event, and any begin."""

    def __init__(self) -> None:
        Box2D.b2ContactListener.__init__(self)
        self.touch: dict[int, int] = {}
        self.begun: dict[int, int] = {}

    def BeginContact(self, contact):  # noqa: N802 (Box2D's name)
        for body in (contact.fixtureA.body, contact.fixtureB.body):
            self.touch[body.userData] = 1
            self.begun[body.userData] = 1

    def EndContact(self, contact):  # noqa: N802
        for body in (contact.fixtureA.body, contact.fixtureB.body):
            self.touch[body.userData] = 0


class Twin:
    """One world built in the wheel and in the port (row 0 of a one-row World) by the same calls."""

    def __init__(self, gravity=(0.0, -10.0), listener=True, **capacity) -> None:
        self.ref = Box2D.b2World(gravity=gravity)
        self.w = W.new_world(1, gravity=gravity, **capacity)
        self.bodies: list[tuple[object, int, int]] = []  # (wheel body, port index, key: the listener's userData)
        self.bodies_made = 0
        self.fixtures: list[tuple[object, int, object, int]] = []  # (wheel body, port body, wheel fixture, port)
        self.listener = None
        if listener:
            self.listener = Listener()
            self.ref.contactListener = self.listener
            self.w.world_i[0, W.WI_LISTENER] = 1

    # ------------------------------------------------------------------ building
    def body(self, dynamic=True, position=(0.0, 0.0), angle=0.0, fixtures=(), static=False, **kw) -> int:
        btype = W.STATIC if static else (W.DYNAMIC if dynamic else W.KINEMATIC)
        kind = Box2D.b2_staticBody if static else (Box2D.b2_dynamicBody if dynamic else Box2D.b2_kinematicBody)
        key = self.bodies_made  # never reused (an id() of a destroyed body's object could be, and its events with it)
        self.bodies_made += 1
        ref = self.ref.CreateBody(type=kind, position=position, angle=angle, userData=key, **kw)
        port = W.create_body(
            self.w,
            0,
            btype,
            F32(position[0]),
            F32(position[1]),
            F32(angle),
            F32(kw.get("linearVelocity", (0, 0))[0]),
            F32(kw.get("linearVelocity", (0, 0))[1]),
            F32(kw.get("angularVelocity", 0.0)),
            F32(kw.get("linearDamping", 0.0)),
            F32(kw.get("angularDamping", 0.0)),
            kw.get("allowSleep", True),
            kw.get("awake", True),
            kw.get("fixedRotation", False),
            kw.get("bullet", False),
            True,
            F32(kw.get("gravityScale", 1.0)),
        )
        assert port >= 0
        for fixture in fixtures:
            self.fixtures.append((ref, port) + self.fixture(ref, port, **fixture))
        self.bodies.append((ref, port, key))
        return len(self.bodies) - 1

    def fixture(
        self,
        ref,
        port,
        shape,
        density=0.0,
        friction=0.2,
        restitution=0.0,
        categoryBits=1,
        maskBits=0xFFFF,
        groupIndex=0,
        isSensor=False,
    ):
        si = np.zeros(shapes.SHAPE_INTS, np.int32)
        sf = np.zeros((shapes.SHAPE_ROWS, 2), np.float32)
        kind = shape[0]
        if kind == "box":
            ref_shape = Box2D.b2PolygonShape(box=shape[1])
            shapes.polygon_set_as_box(si, sf, F32(shape[1][0]), F32(shape[1][1]))
        elif kind == "polygon":
            ref_shape = Box2D.b2PolygonShape(vertices=shape[1])
            points = np.array(shape[1], np.float64).astype(np.float32)
            shapes.polygon_set(si, sf, points, len(shape[1]))
        elif kind == "edge":
            ref_shape = Box2D.b2EdgeShape(vertices=shape[1])
            (x1, y1), (x2, y2) = shape[1]
            shapes.edge_set(si, sf, F32(x1), F32(y1), F32(x2), F32(y2))
        else:
            ref_shape = Box2D.b2CircleShape(radius=shape[1], pos=shape[2])
            shapes.circle_set(si, sf, F32(shape[1]), F32(shape[2][0]), F32(shape[2][1]))
        ref_fixture = ref.CreateFixture(
            Box2D.b2FixtureDef(
                shape=ref_shape,
                density=density,
                friction=friction,
                restitution=restitution,
                categoryBits=categoryBits,
                maskBits=maskBits,
                groupIndex=groupIndex,
                isSensor=isSensor,
            )
        )
        f = W.create_fixture(
            self.w,
            0,
            port,
            si,
            sf,
            F32(density),
            F32(friction),
            F32(restitution),
            categoryBits,
            maskBits,
            groupIndex,
            isSensor,
        )
        assert f >= 0
        return ref_fixture, f

    def revolute(
        self,
        a,
        b,
        anchor_a,
        anchor_b,
        lower=0.0,
        upper=0.0,
        motor_speed=0.0,
        max_motor_torque=0.0,
        enable_limit=False,
        enable_motor=False,
        collide_connected=False,
    ) -> tuple[object, int]:
        ra, pa, _ = self.bodies[a]
        rb, pb, _ = self.bodies[b]
        ref = self.ref.CreateJoint(
            Box2D.b2RevoluteJointDef(
                bodyA=ra,
                bodyB=rb,
                localAnchorA=anchor_a,
                localAnchorB=anchor_b,
                lowerAngle=lower,
                upperAngle=upper,
                motorSpeed=motor_speed,
                maxMotorTorque=max_motor_torque,
                enableLimit=enable_limit,
                enableMotor=enable_motor,
                collideConnected=collide_connected,
            )
        )
        # pybox2d's def sets referenceAngle = bodyB.angle - bodyA.angle in Python (doubles), then float32
        reference = F32(float(rb.angle) - float(ra.angle))
        j = W.create_revolute_joint(
            self.w,
            0,
            pa,
            pb,
            F32(anchor_a[0]),
            F32(anchor_a[1]),
            F32(anchor_b[0]),
            F32(anchor_b[1]),
            reference,
            F32(lower),
            F32(upper),
            F32(max_motor_torque),
            F32(motor_speed),
            enable_limit,
            enable_motor,
            collide_connected,
        )
        assert j >= 0
        return ref, j

    def destroy_fixture(self, i: int) -> None:
        ref_body, _, ref_fixture, f = self.fixtures.pop(i)
        ref_body.DestroyFixture(ref_fixture)
        S.destroy_fixture(self.w, 0, f)

    def destroy(self, i: int) -> None:
        ref, port, _ = self.bodies.pop(i)
        self.ref.DestroyBody(ref)
        S.destroy_body(self.w, 0, port)

    # ------------------------------------------------------------------ stepping
    def step(self, dt=1.0 / 50, velocity_iterations=180, position_iterations=60) -> None:
        self.ref.Step(dt, velocity_iterations, position_iterations)
        S.step(self.w, 0, F32(dt), velocity_iterations, position_iterations)
        assert self.w.world_i[0, W.WI_ERROR] == 0

    def compare(self, where: str = "") -> None:
        bf = self.w.body_f[0]
        bi = self.w.body_i[0]
        for n, (ref, port, key) in enumerate(self.bodies):
            got = np.array(
                [
                    bf[port, W.BF_PX],
                    bf[port, W.BF_PY],
                    bf[port, W.BF_A],
                    bf[port, W.BF_VX],
                    bf[port, W.BF_VY],
                    bf[port, W.BF_W],
                    bf[port, W.BF_CX],
                    bf[port, W.BF_CY],
                ],
                np.float32,
            )
            want = np.array(
                [
                    ref.position[0],
                    ref.position[1],
                    ref.angle,
                    ref.linearVelocity[0],
                    ref.linearVelocity[1],
                    ref.angularVelocity,
                    ref.worldCenter[0],
                    ref.worldCenter[1],
                ],
                np.float64,
            ).astype(np.float32)
            assert got.tobytes() == want.tobytes(), f"{where} body {n}: port {got.tolist()} wheel {want.tolist()}"
            assert bool(bi[port, W.BI_FLAGS] & W.AWAKE_FLAG) == ref.awake, f"{where} body {n} awake"
            if self.listener is not None:
                assert bi[port, W.BI_TOUCH] == self.listener.touch.get(key, 0), f"{where} body {n} touch"
                assert bi[port, W.BI_BEGUN] == self.listener.begun.get(key, 0), f"{where} body {n} begun"
        assert self.w.world_i[0, W.WI_CONTACT_COUNT] == self.ref.contactCount, where
        assert self.w.world_i[0, W.WI_BODY_COUNT] == self.ref.bodyCount, where

    def run(self, steps: int, each=None) -> None:
        self.compare("start")
        for t in range(steps):
            if each is not None:
                each(t)
            self.step()
            self.compare(f"step {t}")


def chain_twin() -> Twin:
    """A chain of four links from a static anchor, the second joint's limits equal (other joints than arms')."""
    twin = Twin(gravity=(0.0, -9.8))
    prev = twin.body(static=True, position=(0.0, 10.0))
    for k in range(4):
        link = twin.body(position=(0.5 + k, 10.0), fixtures=[dict(shape=("box", (0.5, 0.1)), density=1.0)])
        twin.revolute(prev, link, (0.5 if k else 0.0, 0.0), (-0.5, 0.0), lower=0.1, upper=0.1, enable_limit=(k == 1))
        prev = link
    return twin
