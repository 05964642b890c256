"""Copying objects of the box2d wheel (pybox2d 2.3.10) into a port World: the wheel's stored shape data
(vertices, normals, centroid, radius), bodies with their fixtures in creation order, revolute joints.

Used by the differential tests and benchmarks, and by anything that has to take a wheel world over.
Duck-typed on pybox2d's objects: this module does not import Box2D.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import shapes
from . import world as W

F32 = np.float32


def port_shape(shape: Any) -> tuple[np.ndarray, np.ndarray]:
    """The wheel's shape as the port's ``(shape_i, shape_f)``, from the data Box2D stores (no re-``Set``)."""
    si = np.zeros(shapes.SHAPE_INTS, np.int32)
    sf = np.zeros((shapes.SHAPE_ROWS, 2), np.float32)
    sf[shapes.RADIUS, 0] = shape.radius
    kind = type(shape).__name__
    if kind == "b2PolygonShape":
        vertices = shape.vertices
        si[shapes.TYPE] = shapes.POLYGON
        si[shapes.COUNT] = len(vertices)
        sf[shapes.CENTROID] = tuple(shape.centroid)
        sf[shapes.VERTICES : shapes.VERTICES + len(vertices)] = vertices
        sf[shapes.NORMALS : shapes.NORMALS + len(vertices)] = shape.normals
    elif kind == "b2EdgeShape":
        si[shapes.TYPE] = shapes.EDGE
        si[shapes.COUNT] = 2
        si[shapes.HAS_VERTEX0] = shape.hasVertex0
        si[shapes.HAS_VERTEX3] = shape.hasVertex3
        sf[shapes.VERTEX0] = tuple(shape.vertex0)
        sf[shapes.VERTEX3] = tuple(shape.vertex3)
        sf[shapes.VERTICES] = tuple(shape.vertex1)
        sf[shapes.VERTICES + 1] = tuple(shape.vertex2)
    elif kind == "b2CircleShape":
        si[shapes.TYPE] = shapes.CIRCLE
        si[shapes.COUNT] = 1
        sf[shapes.VERTICES] = tuple(shape.pos)
    else:
        raise TypeError(f"the Box2D port has no {kind}")
    return si, sf


_TYPES = {0: W.STATIC, 1: W.KINEMATIC, 2: W.DYNAMIC}  # b2BodyType


def mirror_body(w: W.World, r: int, body: Any) -> int:
    """``CreateBody`` of a new wheel body (as its def made it) and ``CreateFixture`` of its fixtures in
    creation order, on row ``r``; returns the port's body index."""
    b = W.create_body(
        w,
        r,
        _TYPES[int(body.type)],
        F32(body.position[0]),
        F32(body.position[1]),
        F32(body.angle),
        F32(body.linearVelocity[0]),
        F32(body.linearVelocity[1]),
        F32(body.angularVelocity),
        F32(body.linearDamping),
        F32(body.angularDamping),
        bool(body.sleepingAllowed),
        bool(body.awake),
        bool(body.fixedRotation),
        bool(body.bullet),
        bool(body.active),
        F32(body.gravityScale),
    )
    if b < 0:
        raise RuntimeError("the port World has no free body row")
    for fixture in body.fixtures:  # pybox2d lists them in creation order (Box2D's list reversed)
        mirror_fixture(w, r, b, fixture)
    return b


def mirror_fixture(w: W.World, r: int, b: int, fixture: Any) -> int:
    """``CreateFixture`` on port body ``b`` of a fixture the wheel just created; returns its index."""
    si, sf = port_shape(fixture.shape)
    flt = fixture.filterData
    f = W.create_fixture(
        w,
        r,
        b,
        si,
        sf,
        F32(fixture.density),
        F32(fixture.friction),
        F32(fixture.restitution),
        flt.categoryBits,
        flt.maskBits,
        flt.groupIndex,
        bool(fixture.sensor),
    )
    if f < 0:
        raise RuntimeError("the port World has no free fixture row")
    return f


def mirror_revolute_joint(w: W.World, r: int, jd: Any, body_a: int, body_b: int) -> int:
    """``CreateJoint`` of a wheel b2RevoluteJointDef between port bodies ``body_a`` and ``body_b``."""
    j = W.create_revolute_joint(
        w,
        r,
        body_a,
        body_b,
        F32(jd.localAnchorA[0]),
        F32(jd.localAnchorA[1]),
        F32(jd.localAnchorB[0]),
        F32(jd.localAnchorB[1]),
        F32(jd.referenceAngle),
        F32(jd.lowerAngle),
        F32(jd.upperAngle),
        F32(jd.maxMotorTorque),
        F32(jd.motorSpeed),
        bool(jd.enableLimit),
        bool(jd.enableMotor),
        bool(jd.collideConnected),
    )
    if j < 0:
        raise RuntimeError("the port World has no free joint row")
    return j
