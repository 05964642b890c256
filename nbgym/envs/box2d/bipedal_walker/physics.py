"""BipedalWalker's physics and constants, on the compiled Box2D port (``nbgym._box2d``).

The physics below is gymnasium 1.4.0's ``BipedalWalker.reset``/``step`` written against the port: the same Box2D
calls in the same order with the same float32 values, the same float64 (or, for float32 actions, float32)
arithmetic around them, and the same random draws (the clouds' included). As in gymnasium, an environment keeps
its world for its whole life: a reset destroys the previous episode's bodies in gymnasium's order (terrain, hull,
legs) and builds the new ones in the same world, whose broad-phase tree reuses the freed nodes as Box2D's does.
The lidar is ``b2World::RayCast`` with gymnasium's nearest-ground callback (``broad_phase.ray_cast_closest``, the ten
rays cast against the terrain's leaves in their fan's box).

The single environment (``bipedal_walker.BipedalWalker``) and the vector environment (``bipedal_walker.BipedalWalkerVectorEnv``)
run these kernels; neither needs the ``box2d`` wheel. (A module of its own: an edit of the environments' classes
does not make numba compile the kernels again.)
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from nbgym import spaces
from nbgym._box2d import broad_phase, revolute_joint, shapes
from nbgym._box2d import world as W
from nbgym._box2d import world_step
from nbgym._box2d.simd import LANES
from nbgym._box2d.columns import Columns
from nbgym.engine import Physics, borrowing_njit, njit, rng

__all__ = ["PHYSICS", "walker_params", "walker_spaces"]

F32 = np.float32

FPS = 50
SCALE = 30.0  # pixels per metre: how fast-paced the game is (forces are tuned to it)

MOTORS_TORQUE = 80
SPEED_HIP = 4
SPEED_KNEE = 6
LIDAR_RANGE = 160 / SCALE
LIDAR_RAYS = 10

INITIAL_RANDOM = 5

HULL_POLY = ((-30, +9), (+6, +9), (+34, +1), (+34, -8), (-30, -8))
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

GRASS, STUMP, STAIRS, PIT, _STATES_ = range(5)
"""The terrain generator's states; hardcore terrain draws one of STUMP, STAIRS, PIT after each stretch of grass."""

CLOUDS = TERRAIN_LENGTH // 20
CLOUD_VERTICES = 5

HULL_COLORS = ((127, 51, 229), (76, 76, 127))
OBSTACLE_COLORS = ((255, 255, 255), (153, 153, 153))
GROUND_COLOR = (102, 153, 76)

_HULL_POINTS = np.array([(x / SCALE, y / SCALE) for x, y in HULL_POLY], dtype=np.float32)
# Each ray's end relative to the hull, as gymnasium computes it: (x + sin(1.5 k / 10) R, y - cos(1.5 k / 10) R).
_LIDAR_DX = np.array([math.sin(1.5 * k / 10.0) * LIDAR_RANGE for k in range(LIDAR_RAYS)])
_LIDAR_DY = np.array([math.cos(1.5 * k / 10.0) * LIDAR_RANGE for k in range(LIDAR_RAYS)])
_INIT_X = TERRAIN_STEP * TERRAIN_STARTPAD / 2
_INIT_Y = TERRAIN_HEIGHT + 2 * LEG_H
_FINISH_X = (TERRAIN_LENGTH - TERRAIN_GRASS) * TERRAIN_STEP
_COST = 0.00035 * MOTORS_TORQUE  # gymnasium's 0.00035 * MOTORS_TORQUE * clip(|a|, 0, 1), left to right
_DT = F32(1.0 / FPS)
_VELOCITY_ITERATIONS = 6 * 30
_POSITION_ITERATIONS = 2 * 30

# Capacities of a world row: 199 terrain edges, the hardcore obstacles (at most one polygon per 2.5 steps of
# terrain), the hull and four legs; their four joints; the contacts of the walker's five fixtures with the
# ground (the walker's fixtures collide with the ground only).
_MAX_TERRAIN = 300
_BODIES = _MAX_TERRAIN + 8
_FIXTURES = _BODIES
_JOINTS = 4
_CONTACTS = 128
_PROXIES = 400  # the first step moves every proxy: the pair buffer (4 x this) holds each edge's neighbours twice

# env_i columns: the hull's, legs' and joints' indices in the world row, the number of terrain bodies, and the
# terrain bodies in gymnasium's ``self.terrain`` order (the order _destroy destroys them in).
_env_i = Columns()
HULL = _env_i.add()
LEGS = _env_i.add(4)  # upper and lower leg of side -1, then of side +1
JOINTS = _env_i.add(4)  # hip and knee of side -1, then of side +1
TERRAIN_COUNT = _env_i.add()
TERRAIN = _env_i.add(_MAX_TERRAIN)
HAS_PREV_SHAPING = _env_i.add()  # 0: gymnasium's prev_shaping is None (then PREV_SHAPING is not read)
_NEI = _env_i.end()
# env_f columns: the last shaping (NaN: gymnasium's None), the observation of the last step, the scroll, each
# lidar ray's end (p2: the ground point hit, float32 values, or the ray's full reach), the terrain's heights
# (gymnasium's terrain_y) and the clouds' draws (per cloud: x, then the jitter of each vertex): what the frames
# draw (the vector env keeps them too: one layout, one set of kernels).
CLOUD_WIDTH = 1 + 2 * CLOUD_VERTICES
_env_f = Columns()
PREV_SHAPING = _env_f.add()
STATE = _env_f.add(24)
SCROLL = _env_f.add()
LIDAR_P2 = _env_f.add(2 * LIDAR_RAYS)
TERRAIN_Y = _env_f.add(TERRAIN_LENGTH)
CLOUD_DRAWS = _env_f.add(CLOUDS * CLOUD_WIDTH)
_NEF = _env_f.end()

WalkerRows = namedtuple("WalkerRows", ["w", "env_i", "env_f", "accept"])
"""The state of a batch of walkers: their Box2D worlds (a ``World``, one row each), per row the bodies' and
joints' indices (``env_i``), the float64 values gymnasium keeps (``env_f``), and which fixtures stop the lidar
(``accept``: category 1, the ground)."""


def new_rows(num_envs: int) -> WalkerRows:
    """The state of ``num_envs`` walkers before their first reset."""
    return WalkerRows(
        W.new_world(num_envs, bodies=_BODIES, fixtures=_FIXTURES, joints=_JOINTS, contacts=_CONTACTS, proxies=_PROXIES),
        np.zeros((num_envs, _NEI), np.int64),
        np.zeros((num_envs, _NEF), np.float64),
        np.zeros((num_envs, _FIXTURES), np.bool_),
    )


@borrowing_njit
def _fixture(w, i, b, si, sf, density, friction, category, mask):
    return W.create_fixture(w, i, b, si, sf, F32(density), F32(friction), F32(0.0), category, mask, 0, False)


@borrowing_njit
def _polygon_fixture(params, w, i, b, si, sf):
    """``CreateStaticBody(fixtures=fd_polygon)``'s fixture, with fd_polygon's numbers (the parameters)."""
    W.create_fixture(
        w,
        i,
        b,
        si,
        sf,
        F32(params._polygon_density),
        F32(params._polygon_friction),
        F32(params._polygon_restitution),
        params._polygon_categoryBits,
        params._polygon_maskBits,
        params._polygon_groupIndex,
        False,
    )


@borrowing_njit
def _edge_fixture(params, w, i, b, si, sf):
    """``CreateStaticBody(fixtures=fd_edge)``'s fixture, with fd_edge's numbers (the parameters)."""
    W.create_fixture(
        w,
        i,
        b,
        si,
        sf,
        F32(params._edge_density),
        F32(params._edge_friction),
        F32(params._edge_restitution),
        params._edge_categoryBits,
        params._edge_maskBits,
        params._edge_groupIndex,
        False,
    )


@borrowing_njit
def _add_terrain(state, i, b):
    n = state.env_i[i, TERRAIN_COUNT]
    if n >= _MAX_TERRAIN:
        state.w.world_i[i, W.WI_ERROR] = W.ERR_BODIES
        return
    state.env_i[i, TERRAIN + n] = b
    state.env_i[i, TERRAIN_COUNT] = n + 1


@borrowing_njit
def _static_polygon(params, state, i, si, sf, points):
    """``fd_polygon.shape.vertices = points``; ``CreateStaticBody(fixtures=fd_polygon)``; terrain.append."""
    w = state.w
    b = W.create_default_body(w, i, W.STATIC, 0.0, 0.0, 0.0)
    if b < 0:
        return  # the world is full (WI_ERROR says so): the step raises
    shapes.polygon_set(si, sf, points, 4)
    _polygon_fixture(params, w, i, b, si, sf)
    _add_terrain(state, i, b)


@borrowing_njit
def _quad(points, x0, y0, x1, y1, x2, y2, x3, y3):
    points[0, 0] = F32(x0)
    points[0, 1] = F32(y0)
    points[1, 0] = F32(x1)
    points[1, 1] = F32(y1)
    points[2, 0] = F32(x2)
    points[2, 1] = F32(y2)
    points[3, 0] = F32(x3)
    points[3, 1] = F32(y3)


@borrowing_njit
def _destroy(state, i):
    """gymnasium's ``_destroy``: without the listener, the terrain (in its list's order), the hull, the legs."""
    w = state.w
    n = state.env_i[i, TERRAIN_COUNT]
    if n == 0:
        return
    w.world_i[i, W.WI_LISTENER] = 0
    for k in range(n):
        world_step.destroy_body(w, i, state.env_i[i, TERRAIN + k])
    state.env_i[i, TERRAIN_COUNT] = 0
    world_step.destroy_body(w, i, state.env_i[i, HULL])
    for k in range(4):
        world_step.destroy_body(w, i, state.env_i[i, LEGS + k])


@njit
def _generate_terrain(params, state, i, stream, si, sf):
    """gymnasium's ``_generate_terrain``: the same draws, the obstacles created as drawn, then the edges."""
    w = state.w
    terrain_y = state.env_f[i, TERRAIN_Y : TERRAIN_Y + TERRAIN_LENGTH]
    points = np.empty((4, 2), np.float32)
    first = np.empty((4, 2))
    hardcore = params.hardcore
    tstate = GRASS
    velocity = 0.0
    y = TERRAIN_HEIGHT
    counter = TERRAIN_STARTPAD
    oneshot = False
    stair_steps, stair_width, stair_height = 0, 0, 0
    original_y = 0.0
    for k in range(TERRAIN_LENGTH):
        x = k * TERRAIN_STEP
        if tstate == GRASS and not oneshot:
            diff = TERRAIN_HEIGHT - y
            sign = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)
            velocity = 0.8 * velocity + 0.01 * sign
            if k > TERRAIN_STARTPAD:
                velocity += rng.uniform(stream, i, -1.0, 1.0) / SCALE
            y += velocity
        elif tstate == PIT and oneshot:
            counter = rng.integers(stream, i, 3, 5)
            first[0, 0], first[0, 1] = x, y
            first[1, 0], first[1, 1] = x + TERRAIN_STEP, y
            first[2, 0], first[2, 1] = x + TERRAIN_STEP, y - 4 * TERRAIN_STEP
            first[3, 0], first[3, 1] = x, y - 4 * TERRAIN_STEP
            _quad(
                points,
                first[0, 0],
                first[0, 1],
                first[1, 0],
                first[1, 1],
                first[2, 0],
                first[2, 1],
                first[3, 0],
                first[3, 1],
            )
            _static_polygon(params, state, i, si, sf, points)
            shift = TERRAIN_STEP * counter
            _quad(
                points,
                first[0, 0] + shift,
                first[0, 1],
                first[1, 0] + shift,
                first[1, 1],
                first[2, 0] + shift,
                first[2, 1],
                first[3, 0] + shift,
                first[3, 1],
            )
            _static_polygon(params, state, i, si, sf, points)
            counter += 2
            original_y = y
        elif tstate == PIT and not oneshot:
            y = original_y
            if counter > 1:
                y -= 4 * TERRAIN_STEP
        elif tstate == STUMP and oneshot:
            counter = rng.integers(stream, i, 1, 3)
            _quad(
                points,
                x,
                y,
                x + counter * TERRAIN_STEP,
                y,
                x + counter * TERRAIN_STEP,
                y + counter * TERRAIN_STEP,
                x,
                y + counter * TERRAIN_STEP,
            )
            _static_polygon(params, state, i, si, sf, points)
        elif tstate == STAIRS and oneshot:
            stair_height = +1 if rng.random(stream, i) > 0.5 else -1
            stair_width = rng.integers(stream, i, 4, 5)
            stair_steps = rng.integers(stream, i, 3, 5)
            original_y = y
            for s in range(stair_steps):
                _quad(
                    points,
                    x + (s * stair_width) * TERRAIN_STEP,
                    y + (s * stair_height) * TERRAIN_STEP,
                    x + ((1 + s) * stair_width) * TERRAIN_STEP,
                    y + (s * stair_height) * TERRAIN_STEP,
                    x + ((1 + s) * stair_width) * TERRAIN_STEP,
                    y + (-1 + s * stair_height) * TERRAIN_STEP,
                    x + (s * stair_width) * TERRAIN_STEP,
                    y + (-1 + s * stair_height) * TERRAIN_STEP,
                )
                _static_polygon(params, state, i, si, sf, points)
            counter = stair_steps * stair_width
        elif tstate == STAIRS and not oneshot:
            s = stair_steps * stair_width - counter - stair_height
            n = s / stair_width
            y = original_y + (n * stair_height) * TERRAIN_STEP
        oneshot = False
        terrain_y[k] = y
        counter -= 1
        if counter == 0:
            counter = rng.integers(stream, i, TERRAIN_GRASS // 2, TERRAIN_GRASS)
            if tstate == GRASS and hardcore:
                tstate = rng.integers(stream, i, 1, _STATES_)
                oneshot = True
            else:
                tstate = GRASS
                oneshot = True

    for k in range(TERRAIN_LENGTH - 1):
        b = W.create_default_body(w, i, W.STATIC, 0.0, 0.0, 0.0)
        if b < 0:
            return
        shapes.edge_set(
            si, sf, F32(k * TERRAIN_STEP), F32(terrain_y[k]), F32((k + 1) * TERRAIN_STEP), F32(terrain_y[k + 1])
        )
        _edge_fixture(params, w, i, b, si, sf)
        _add_terrain(state, i, b)
    # self.terrain.reverse()
    n = state.env_i[i, TERRAIN_COUNT]
    for k in range(n // 2):
        a = state.env_i[i, TERRAIN + k]
        state.env_i[i, TERRAIN + k] = state.env_i[i, TERRAIN + n - 1 - k]
        state.env_i[i, TERRAIN + n - 1 - k] = a


@njit
def _generate_clouds(state, i, stream):
    """gymnasium's ``_generate_clouds``: its draws, kept for the frames (per cloud: the x draw, then each vertex's
    two jitters)."""
    draws = state.env_f[i, CLOUD_DRAWS : CLOUD_DRAWS + CLOUDS * CLOUD_WIDTH]
    for c in range(CLOUDS):
        o = c * CLOUD_WIDTH
        draws[o] = rng.uniform(stream, i, 0.0, TERRAIN_LENGTH)
        for a in range(CLOUD_VERTICES):
            draws[o + 1 + 2 * a] = rng.uniform(stream, i, 0.0, 5 * TERRAIN_STEP)
            draws[o + 2 + 2 * a] = rng.uniform(stream, i, 0.0, 5 * TERRAIN_STEP)


def _reset(params, state, i, stream, aux):
    """gymnasium's ``reset``: the old bodies destroyed, terrain, clouds, hull (pushed) and legs, then ``step(0)``.

    A world that ran out of a capacity (the step raised) is started afresh: its bodies' rows are not to be trusted.
    """
    w = state.w
    if w.world_i[i, W.WI_ERROR] != 0:
        W.reset_world(w, i, w.world_f[i, W.WF_GX], w.world_f[i, W.WF_GY])
        state.env_i[i, TERRAIN_COUNT] = 0
    _destroy(state, i)
    w.world_i[i, W.WI_LISTENER] = 1
    state.env_i[i, HAS_PREV_SHAPING] = 0  # gymnasium's prev_shaping = None

    si = np.zeros(shapes.SHAPE_INTS, np.int32)
    sf = np.zeros((shapes.SHAPE_ROWS, 2), np.float32)
    _generate_terrain(params, state, i, stream, si, sf)
    _generate_clouds(state, i, stream)

    hull = W.create_default_body(w, i, W.DYNAMIC, _INIT_X, _INIT_Y, 0.0)
    state.env_i[i, HULL] = hull
    if hull < 0:
        W.raise_capacity_error(w, i)
    shapes.polygon_set(si, sf, _HULL_POINTS, len(HULL_POLY))
    _fixture(w, i, hull, si, sf, 5.0, 0.1, 0x0020, 0x001)
    push = rng.uniform(stream, i, -INITIAL_RANDOM, INITIAL_RANDOM)
    W.apply_force_to_center(w, i, hull, F32(push), F32(0.0), True)

    for side in (-1, 1):
        k = 0 if side == -1 else 2
        leg = W.create_default_body(w, i, W.DYNAMIC, _INIT_X, _INIT_Y - LEG_H / 2 - LEG_DOWN, side * 0.05)
        state.env_i[i, LEGS + k] = leg
        if leg < 0:
            W.raise_capacity_error(w, i)
        shapes.polygon_set_as_box(si, sf, F32(LEG_W / 2), F32(LEG_H / 2))
        _fixture(w, i, leg, si, sf, 1.0, 0.2, 0x0020, 0x001)
        # pybox2d's revoluteJointDef(bodyA=..., bodyB=...) sets referenceAngle = bodyB.angle - bodyA.angle (in Python).
        reference = np.float64(w.body_f[i, leg, W.BF_A]) - np.float64(w.body_f[i, hull, W.BF_A])
        hip = W.create_revolute_joint(
            w,
            i,
            hull,
            leg,
            F32(0.0),
            F32(LEG_DOWN),
            F32(0.0),
            F32(LEG_H / 2),
            F32(reference),
            F32(-0.8),
            F32(1.1),
            F32(MOTORS_TORQUE),
            F32(side),
            True,
            True,
            False,
        )
        state.env_i[i, JOINTS + k] = hip

        lower = W.create_default_body(w, i, W.DYNAMIC, _INIT_X, _INIT_Y - LEG_H * 3 / 2 - LEG_DOWN, side * 0.05)
        state.env_i[i, LEGS + k + 1] = lower
        if lower < 0:
            W.raise_capacity_error(w, i)
        shapes.polygon_set_as_box(si, sf, F32(0.8 * LEG_W / 2), F32(LEG_H / 2))
        _fixture(w, i, lower, si, sf, 1.0, 0.2, 0x0020, 0x001)
        reference = np.float64(w.body_f[i, lower, W.BF_A]) - np.float64(w.body_f[i, leg, W.BF_A])
        knee = W.create_revolute_joint(
            w,
            i,
            leg,
            lower,
            F32(0.0),
            F32(-LEG_H / 2),
            F32(0.0),
            F32(LEG_H / 2),
            F32(reference),
            F32(-1.6),
            F32(-0.1),
            F32(MOTORS_TORQUE),
            F32(1.0),
            True,
            True,
            False,
        )
        state.env_i[i, JOINTS + k + 1] = knee
    if w.world_i[i, W.WI_ERROR] != 0:
        W.raise_capacity_error(w, i)

    # Which fixtures stop the lidar: gymnasium's callback takes those of category 1 (the ground).
    for f in range(state.accept.shape[1]):
        state.accept[i, f] = w.fixture_i[i, f, W.FI_ALIVE] != 0 and (w.fixture_i[i, f, W.FI_CATEGORY] & 1) != 0

    # gymnasium's reset returns step(np.array([0, 0, 0, 0]))'s observation: int actions, no motor, no torque.
    _set_motors(state, i, (0.0, 0.0, 0.0, 0.0), False)
    world_step.step(w, i, _DT, _VELOCITY_ITERATIONS, _POSITION_ITERATIONS)
    _sense_and_reward(state, i, (0.0, 0.0, 0.0, 0.0), False)


@njit
def joint_angle(w, i, j):
    """b2RevoluteJoint::GetJointAngle (float32)."""
    a = w.body_f[i, w.joint_i[i, j, W.JI_BODYA], W.BF_A]
    b = w.body_f[i, w.joint_i[i, j, W.JI_BODYB], W.BF_A]
    return (b - a) - w.joint_f[i, j, W.JF_REF]


@njit
def joint_speed(w, i, j):
    """b2RevoluteJoint::GetJointSpeed (float32)."""
    a = w.body_f[i, w.joint_i[i, j, W.JI_BODYA], W.BF_W]
    b = w.body_f[i, w.joint_i[i, j, W.JI_BODYB], W.BF_W]
    return b - a


@njit
def _strength(a):
    """``np.clip(np.abs(a), 0, 1)``."""
    return min(abs(a), 1.0)


@borrowing_njit
def _set_motors(state, i, action, float32_actions):
    """gymnasium's ``step`` of ``action`` (four float64 values, read from float32 ones if ``float32_actions``) up to
    the Box2D step: the motors set.

    One compiled function that borrows ``state``'s arrays (no reference counting: see ``borrows_state`` below), as
    ``_sense_and_reward``."""
    w = state.w
    for k in range(4):
        a = action[k]
        sign = 1.0 if a > 0 else (-1.0 if a < 0 else 0.0)  # np.sign (of -0.0 too: 0.0)
        strength = _strength(a)
        if float32_actions:
            torque = np.float64(F32(MOTORS_TORQUE) * F32(strength))  # 80 * a float32 is a float32
        else:
            torque = MOTORS_TORQUE * strength
        j = state.env_i[i, JOINTS + k]
        revolute_joint.set_motor_speed(w, i, j, F32((SPEED_HIP if k % 2 == 0 else SPEED_KNEE) * sign))
        revolute_joint.set_max_motor_torque(w, i, j, F32(torque))


@borrowing_njit
def _sense_and_reward(state, i, action, float32_actions):
    """gymnasium's ``step`` of ``action`` after the Box2D step: the lidar, the observation (kept in ``env_f``), the
    reward and whether the episode ended."""
    w = state.w
    if w.world_i[i, W.WI_ERROR] != 0:
        W.raise_capacity_error(w, i)

    hull = state.env_i[i, HULL]
    bf = w.body_f[i, hull]
    px = bf[W.BF_PX]
    py = bf[W.BF_PY]
    fixture_body = w.fixture_i[i, :, W.FI_BODY]
    body_xf = w.body_f[i, :, W.BF_XF : W.BF_XF + 4]
    env_f = state.env_f[i]
    # The rays' ends, and the terrain's leaves in the box of the fan they span, found in one walk of the tree: the
    # rays differ only in their ends (each ray's own walk found the same leaves again).
    lx, ly, ux, uy = px, py, px, py
    for k in range(LIDAR_RAYS):
        end_x = F32(np.float64(px) + _LIDAR_DX[k])
        end_y = F32(np.float64(py) - _LIDAR_DY[k])
        lx, ly, ux, uy = min(lx, end_x), min(ly, end_y), max(ux, end_x), max(uy, end_y)
    leaves = w.query_stack[i]
    count = broad_phase.overlapping_leaves(
        w.tree_f[i], w.tree_i[i], w.tree_s[i], lx, ly, ux, uy, state.accept[i], leaves
    )
    for k in range(LIDAR_RAYS):
        end_x = np.float64(px) + _LIDAR_DX[k]
        end_y = np.float64(py) - _LIDAR_DY[k]
        hit, fraction, hit_x, hit_y = broad_phase.ray_cast_closest(
            leaves,
            count,
            w.tree_f[i],
            w.tree_i[i],
            px,
            py,
            F32(end_x),
            F32(end_y),
            w.shape_i[i],
            w.shape_f[i],
            fixture_body,
            body_xf,
        )
        env_f[STATE + 14 + k] = np.float64(fraction) if hit else 1.0
        env_f[LIDAR_P2 + 2 * k] = np.float64(hit_x) if hit else end_x
        env_f[LIDAR_P2 + 2 * k + 1] = np.float64(hit_y) if hit else end_y

    legs = LEGS
    joints = JOINTS
    env_f[STATE + 0] = np.float64(bf[W.BF_A])
    env_f[STATE + 1] = 2.0 * np.float64(bf[W.BF_W]) / FPS
    env_f[STATE + 2] = 0.3 * np.float64(bf[W.BF_VX]) * (VIEWPORT_W / SCALE) / FPS
    env_f[STATE + 3] = 0.3 * np.float64(bf[W.BF_VY]) * (VIEWPORT_H / SCALE) / FPS
    for side in range(2):
        o = STATE + 4 + 5 * side
        hip = state.env_i[i, joints + 2 * side]
        knee = state.env_i[i, joints + 2 * side + 1]
        env_f[o + 0] = np.float64(joint_angle(w, i, hip))
        env_f[o + 1] = np.float64(joint_speed(w, i, hip)) / SPEED_HIP
        env_f[o + 2] = np.float64(joint_angle(w, i, knee)) + 1.0
        env_f[o + 3] = np.float64(joint_speed(w, i, knee)) / SPEED_KNEE
        lower = state.env_i[i, legs + 2 * side + 1]
        env_f[o + 4] = 1.0 if w.body_i[i, lower, W.BI_TOUCH] != 0 else 0.0

    x = np.float64(px)
    env_f[SCROLL] = x - VIEWPORT_W / SCALE / 5
    shaping = 130 * x / SCALE
    shaping -= 5.0 * abs(env_f[STATE + 0])
    prev_shaping = env_f[PREV_SHAPING]
    # a flag, not NaN, for gymnasium's None: a NaN shaping (of a NaN state) makes the next reward NaN, as there
    shaped = state.env_i[i, HAS_PREV_SHAPING] != 0
    env_f[PREV_SHAPING] = shaping
    state.env_i[i, HAS_PREV_SHAPING] = 1
    if float32_actions:
        # NumPy 2: the Python float (reward) meets a float32 (the torque cost), so the sum is float32.
        reward32 = F32(shaping - prev_shaping) if shaped else F32(0.0)
        for k in range(4):
            reward32 = reward32 - F32(_COST) * F32(_strength(action[k]))
        reward = np.float64(reward32)
    else:
        reward = shaping - prev_shaping if shaped else 0.0
        for k in range(4):
            reward -= _COST * _strength(action[k])

    terminated = False
    if w.body_i[i, hull, W.BI_BEGUN] != 0 or x < 0:  # game_over: the hull touched the ground
        reward = -100.0
        terminated = True
    if x > _FINISH_X:
        terminated = True
    return reward, terminated


@borrowing_njit
def _action(actions, i):
    return (
        np.float64(actions[i, 0]),
        np.float64(actions[i, 1]),
        np.float64(actions[i, 2]),
        np.float64(actions[i, 3]),
    )


def _act(params, state, i, actions, stream, aux):
    _set_motors(state, i, _action(actions, i), actions.itemsize == 4)


def _advance(params, state, first, stop, resting):
    """One Box2D step of each world that moves, their joints' velocity iterations side by side."""
    world_step.step_rows(state.w, first, stop, resting, _DT, _VELOCITY_ITERATIONS, _POSITION_ITERATIONS)


def _step(params, state, i, actions, stream, aux):
    return _sense_and_reward(state, i, _action(actions, i), actions.itemsize == 4)


def _observe(params, state, i, obs):
    for k in range(24):
        obs[i, k] = np.float32(state.env_f[i, STATE + k])


def _action_valid(params, actions, i):
    for k in range(4):
        if math.isnan(actions[i, k]):
            return False  # gymnasium's Box2D would stop on an assertion after the NaN reached the world
    return True


def _read_action(params: Any, action: Any) -> Any:
    """gymnasium's reading of an action: each motor's ``float(speed * np.sign(action[k]))`` and
    ``float(MOTORS_TORQUE * np.clip(np.abs(action[k]), 0, 1))`` for ``k < 4``, and its reward's
    ``np.clip(np.abs(a), 0, 1)`` of every ``a`` in the action (after the world moved there; refused before here)."""
    for k in range(4):
        float(np.sign(action[k]))
        float(np.clip(np.abs(action[k]), 0, 1))
    for a in action:
        np.clip(np.abs(a), 0, 1)
    return action


PHYSICS = Physics(
    "BipedalWalker",
    params=[("hardcore", np.bool_)]
    + [
        (f"_{kind}_{name}", dtype)
        for kind in ("polygon", "edge")
        for name, dtype in (
            ("friction", np.float64),
            ("density", np.float64),
            ("restitution", np.float64),
            ("categoryBits", np.int64),
            ("maskBits", np.int64),
            ("groupIndex", np.int64),
        )
    ],
    state=new_rows,
    reset=_reset,
    act=_act,
    advance=_advance,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=_read_action,
    max_chunk_size=LANES,
    borrows_state=True,
)


def walker_spaces() -> tuple[spaces.Box, spaces.Box]:
    """gymnasium's observation and action spaces of one walker.

    Joint speeds are bounded by 5: ground contacts can push the joints to 5x their rated speed.
    """
    angle_speed = [math.pi, 5.0]
    leg = [*angle_speed, *angle_speed, 5.0]  # hip angle and speed, knee angle and speed, contact
    high = np.array([math.pi, 5.0, 5.0, 5.0, *leg, *leg] + [1.0] * LIDAR_RAYS).astype(np.float32)
    low = -high
    low[8] = low[13] = -0.0
    action_space = spaces.Box(np.array([-1, -1, -1, -1]).astype(np.float32), np.array([1, 1, 1, 1]).astype(np.float32))
    return spaces.Box(low, high), action_space


def walker_params(hardcore: bool) -> np.ndarray:
    """The physics' parameters: the terrain kind, and ``fd_polygon``'s and ``fd_edge``'s numbers (gymnasium's)."""
    fixture = {
        "friction": FRICTION,
        "density": 0.0,
        "restitution": 0.0,
        "categoryBits": 1,
        "maskBits": 0xFFFF,
        "groupIndex": 0,
    }
    return PHYSICS.new_params(
        hardcore=hardcore,
        **{f"_{kind}_{name}": value for kind in ("polygon", "edge") for name, value in fixture.items()},
    )
