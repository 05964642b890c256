"""b2World, b2Body, b2Fixture, b2Joint bookkeeping: the batch layout of the dynamics half and the calls
that build and tear down a world (``CreateBody``/``DestroyBody``/``CreateFixture``/``DestroyFixture``/
``CreateJoint``/``DestroyJoint``, ``ResetMassData``, ``SetAwake``, forces and impulses).

A :class:`World` is a namedtuple of arrays whose first dimension is the row (one sub-environment's
world) and whose second is the item (body, fixture, joint, contact). Every Box2D pointer is an int32
index into its table (-1 is NULL), and every linked list keeps Box2D's order: new bodies, joints and
contacts are prepended to the world's lists, a body's fixtures are prepended to its fixture list, a
joint or contact edge is prepended to each body's edge list. An edge is ``2 * item + side``: side 0 is
the edge stored on body A (its ``other`` is body B), side 1 the edge on body B. The columns of each table
(``body_i[r, b, BI_FLAGS]``, ...) are declared below in their order, and numbered by ``columns.Columns``.

Rows of dead items form a free list through their ``next`` field (the order in which rows are reused
does not matter: nothing in Box2D depends on the addresses its allocator returns).

The broad-phase proxy of a fixture's child 0 carries the fixture index as its userData (the shapes the
environments use have one child each).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from nbgym.engine._jit import borrowing_kernel, kernel
from nbgym.error import PhysicsCapacityError

from . import broad_phase, distance, dynamic_tree, manifold, shapes
from .columns import Columns
from .dynamic_tree import AABB_FLOATS
from .math import (
    SW_A,
    SW_A0,
    SW_ALPHA0,
    SW_C0X,
    SW_C0Y,
    SW_CX,
    SW_CY,
    SW_LX,
    SW_LY,
    SWEEP_FLOATS,
    XF_C,
    XF_FLOATS,
    XF_PX,
    XF_PY,
    XF_S,
    b2max,
    b2min,
    copy_to,
    cosf,
    sinf,
)
from .settings import MAX_MANIFOLD_POINTS
from .simd import LANES, MAX_LANES

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)

WORLDS_PER_CLAIM = 8
"""The worlds a stepping thread claims at a time (CarRacing's ``Physics.max_chunk_size``; LunarLander and BipedalWalker
claim ``simd.LANES``, the worlds their joints are solved beside): a world's rows of velocities,
positions and scratch are 8-48 bytes, so neighbouring worlds share cache lines, and two threads stepping neighbours
fight over them in every solver iteration. One world a claim stepped LunarLander x64 on 2 threads 0.66x as fast as
on one; eight, 1.34x (1.55x once waiting threads spun: ``engine._threads.SPIN_SECONDS``); BipedalWalker 1.56x
against 1.72x."""

# b2BodyType
STATIC = 0
KINEMATIC = 1
DYNAMIC = 2

# b2Body::m_flags
ISLAND_FLAG = 0x0001
AWAKE_FLAG = 0x0002
AUTO_SLEEP_FLAG = 0x0004
BULLET_FLAG = 0x0008
FIXED_ROTATION_FLAG = 0x0010
ACTIVE_FLAG = 0x0020
TOI_FLAG = 0x0040
ADVANCED_FLAG = 0x0100  # the port's own: a static body on WI_ADVANCED_LIST

# b2World::m_flags
NEW_FIXTURE = 0x0001
LOCKED = 0x0002
CLEAR_FORCES = 0x0004

# body_i fields
_body_i = Columns()
BI_TYPE, BI_FLAGS, BI_PREV = _body_i.add_each(3)
BI_NEXT = _body_i.add()  # next body in the world list (or the next free row)
BI_FIXTURES, BI_FIXTURE_COUNT = _body_i.add_each(2)
BI_JOINTS = _body_i.add()  # joint edge list head
BI_CONTACTS = _body_i.add()  # contact edge list head
BI_ISLAND = _body_i.add()  # m_islandIndex
BI_TOUCH = _body_i.add()  # listener: 1 after a BeginContact of this body, 0 after an EndContact
BI_BEGUN = _body_i.add()  # listener: set by any BeginContact of this body (cleared only by the caller)
BI_ALIVE = _body_i.add()
BI_MOVING_PREV, BI_MOVING_NEXT = _body_i.add_each(2)  # a non-static body's neighbours on WI_MOVING_LIST
BI_ADVANCED_NEXT = _body_i.add()  # the next body on WI_ADVANCED_LIST
NBI = _body_i.end()

# body_f fields: the transform and the sweep (each in math's order, so that their slices are math's arrays),
# velocities, ...
_body_f = Columns()
BF_XF = _body_f.add(XF_FLOATS)
BF_PX = BF_XF + XF_PX
BF_PY = BF_XF + XF_PY
BF_QS = BF_XF + XF_S
BF_QC = BF_XF + XF_C
BF_SWEEP = _body_f.add(SWEEP_FLOATS)
BF_LCX = BF_SWEEP + SW_LX
BF_LCY = BF_SWEEP + SW_LY
BF_C0X = BF_SWEEP + SW_C0X
BF_C0Y = BF_SWEEP + SW_C0Y
BF_CX = BF_SWEEP + SW_CX
BF_CY = BF_SWEEP + SW_CY
BF_A0 = BF_SWEEP + SW_A0
BF_A = BF_SWEEP + SW_A
BF_ALPHA0 = BF_SWEEP + SW_ALPHA0
BF_VX, BF_VY, BF_W = _body_f.add_each(3)
BF_FX, BF_FY, BF_TORQUE = _body_f.add_each(3)
BF_MASS, BF_INVMASS, BF_I, BF_INVI = _body_f.add_each(4)
BF_LDAMP, BF_ADAMP, BF_GSCALE, BF_SLEEP = _body_f.add_each(4)
NBF = _body_f.end()

# fixture_i fields
_fixture_i = Columns()
FI_BODY, FI_NEXT, FI_CATEGORY, FI_MASK, FI_GROUP, FI_SENSOR = _fixture_i.add_each(6)
FI_PROXY = _fixture_i.add()  # proxy id of child 0 (-1 if none)
FI_PROXY_COUNT, FI_ALIVE = _fixture_i.add_each(2)
NFI = _fixture_i.end()

# fixture_f fields
_fixture_f = Columns()
FF_DENSITY, FF_FRICTION, FF_RESTITUTION = _fixture_f.add_each(3)
FF_AABB = _fixture_f.add(AABB_FLOATS)  # the proxy's AABB
NFF = _fixture_f.end()

# joint_i fields (revolute joints only)
_joint_i = Columns()
JI_BODYA, JI_BODYB, JI_PREV, JI_NEXT, JI_COLLIDE, JI_ISLAND = _joint_i.add_each(6)
JI_LIMIT_ON, JI_MOTOR_ON, JI_LIMIT_STATE, JI_INDEXA, JI_INDEXB, JI_ALIVE = _joint_i.add_each(6)
JI_SLOTA, JI_SLOTB = _joint_i.add_each(2)  # the bodies' velocity slots in joint_lanes' vectors
NJI = _joint_i.end()

# joint_f fields
_joint_f = Columns()
JF_LAX, JF_LAY, JF_LBX, JF_LBY, JF_REF = _joint_f.add_each(5)
JF_IMPX, JF_IMPY, JF_IMPZ, JF_MOTOR_IMP = _joint_f.add_each(4)
JF_LOWER, JF_UPPER, JF_MAX_TORQUE, JF_MOTOR_SPEED = _joint_f.add_each(4)
JF_RAX, JF_RAY, JF_RBX, JF_RBY = _joint_f.add_each(4)
JF_LCAX, JF_LCAY, JF_LCBX, JF_LCBY = _joint_f.add_each(4)
JF_IMA, JF_IMB, JF_IIA, JF_IIB = _joint_f.add_each(4)
JF_MASS = _joint_f.add(9)  # b2Mat33 m_mass: ex.x ex.y ex.z ey.x ey.y ey.z ez.x ez.y ez.z
JF_MOTOR_MASS = _joint_f.add()
# What b2Mat33::Solve33/Solve22 recompute from m_mass at every velocity iteration (the same floats each time):
# the reciprocal determinants (0 for a singular matrix) and b2Cross(ey, ez), set once by InitVelocityConstraints.
JF_INV_DET33 = _joint_f.add()
JF_CROSS_EY_EZ = _joint_f.add(3)  # x, y, z
JF_INV_DET22 = _joint_f.add()
NJF = _joint_f.end()

LANE_FLOATS = (NJF + 10) * MAX_LANES
"""A world row's ``lanes`` floats per joint: a joint's columns and 4 flags, and the velocities of 2 bodies, in vectors
of ``LANES`` (``joint_lanes``), with room for ``MAX_LANES``."""
LANE_VELOCITIES = NJF + 4
"""The vector of a joint's ``lanes`` floats where the velocities of its 2 bodies' slots begin (v.x, v.y, w each)."""


@borrowing_kernel
def lane_velocity_column(slot, component):
    """The offset in its joint's ``lanes`` floats of the vector of a slot's velocity component (v.x, v.y, w)."""
    return (LANE_VELOCITIES + (slot & 1) * 3 + component) * LANES


@borrowing_kernel
def lane_velocity(slot, component):
    """The offset in a row's ``lanes`` (its C-contiguous floats) of the vector of a slot's velocity component."""
    return (slot >> 1) * LANE_FLOATS + lane_velocity_column(slot, component)


# contact_i fields
_contact_i = Columns()
CI_FLAGS, CI_FA, CI_FB, CI_IA, CI_IB, CI_PREV, CI_NEXT, CI_TOI_COUNT, CI_ALIVE = _contact_i.add_each(9)
NCI = _contact_i.end()

# contact_f fields
_contact_f = Columns()
CF_FRICTION, CF_RESTITUTION, CF_TANGENT_SPEED, CF_TOI = _contact_f.add_each(4)
NCF = _contact_f.end()

# b2Contact::m_flags
C_ISLAND_FLAG = 0x0001
C_TOUCHING_FLAG = 0x0002
C_ENABLED_FLAG = 0x0004
C_FILTER_FLAG = 0x0008
C_BULLET_HIT_FLAG = 0x0010
C_TOI_FLAG = 0x0020

# world_i fields
_world_i = Columns()
WI_BODY_LIST, WI_BODY_COUNT, WI_JOINT_LIST, WI_JOINT_COUNT, WI_CONTACT_LIST, WI_CONTACT_COUNT = _world_i.add_each(6)
WI_FLAGS, WI_STEP_COMPLETE, WI_ALLOW_SLEEP, WI_WARM_STARTING, WI_CONTINUOUS, WI_SUBSTEPPING = _world_i.add_each(6)
WI_LISTENER = _world_i.add()  # the compiled contact listener: a mask of LISTEN_* (0: no listener)
WI_FREE_BODY, WI_FREE_FIXTURE, WI_FREE_JOINT, WI_FREE_CONTACT = _world_i.add_each(4)
WI_ERROR = _world_i.add()  # a capacity ran out (0: none)
WI_EVENT_COUNT = _world_i.add()  # the number of contact events recorded in ``events`` (LISTEN_EVENTS)
# an island held before its velocity iterations (world_step._solve_islands): whether one is, its counts, the next seed
WI_HELD, WI_HELD_BODIES, WI_HELD_CONTACTS, WI_HELD_JOINTS, WI_HELD_SEED = _world_i.add_each(5)
WI_LANE = _world_i.add()  # the held island's lane in joint_lanes' vectors (-1: iterated alone)
# The non-static bodies, in the body list's order: the walks of Solve, SolveTOI and ClearForces over every body change
# nothing on a static one (see world_step), so they walk only this list, not a terrain's hundreds of static bodies.
WI_MOVING_LIST = _world_i.add()
# The static bodies whose sweeps SolveTOI advanced (b2Sweep::Advance sets a static body's alpha0 too) since its last
# reset of every alpha0, chained through BI_ADVANCED_NEXT: the reset walks the moving bodies and these.
WI_ADVANCED_LIST = _world_i.add()
NWI = _world_i.end()

# world_i[WI_LISTENER] bits: what the compiled listener does at BeginContact/EndContact
LISTEN_BODIES = 1  # BI_TOUCH/BI_BEGUN of both bodies
LISTEN_EVENTS = 2  # appends (fixtureA, fixtureB, begin) to the row's ``events``, in the order Box2D calls

# events columns
_events = Columns()
EV_FIXTURE_A, EV_FIXTURE_B = _events.add_each(2)
EV_BEGIN = _events.add()  # 1: BeginContact, 0: EndContact
NEV = _events.end()

# world_f fields
_world_f = Columns()
WF_GX, WF_GY, WF_INV_DT0 = _world_f.add_each(3)
NWF = _world_f.end()

# The island solver's contact constraints (contact_solver), one row per island contact in island order.
# vc_f fields: b2ContactVelocityConstraint, its points at VC_POINTS + VP_STRIDE * j
_vc_point = Columns()
VP_RAX, VP_RAY, VP_RBX, VP_RBY = _vc_point.add_each(4)
VP_NI = _vc_point.add()  # normalImpulse
VP_TI = _vc_point.add()  # tangentImpulse
VP_NMASS, VP_TMASS = _vc_point.add_each(2)
VP_BIAS = _vc_point.add()  # velocityBias
VP_STRIDE = _vc_point.end()
_vc_f = Columns()
VC_NX, VC_NY, VC_MA, VC_MB, VC_IA, VC_IB = _vc_f.add_each(6)
VC_FRICTION, VC_RESTITUTION, VC_TANGENT_SPEED = _vc_f.add_each(3)
VC_K = _vc_f.add(4)  # K: ex.x ex.y ey.x ey.y
VC_NM = _vc_f.add(4)  # normalMass: ex.x ex.y ey.x ey.y
VC_POINTS = _vc_f.add(MAX_MANIFOLD_POINTS * VP_STRIDE)
NVC = _vc_f.end()
CL_FIRST, CL_SECOND, CL_ONE, CL_BLOCK = range(NVC, NVC + 4)
"""``contact_lanes``' columns after ``vc_f``'s: 1.0 where a lane's contact has a first point, a second point, one
point only (the single-point normal solve), or not one (the 2-point block solve)."""
CONTACT_LANE_FLOATS = (NVC + 4) * MAX_LANES
"""A world row's ``contact_lanes`` floats per contact: its ``vc_f`` columns and 4 flags in vectors of ``LANES``, with
room for ``MAX_LANES``."""

# vc_i and pc_i fields
_solver_i = Columns()
SI_A = _solver_i.add()  # indexA
SI_B = _solver_i.add()  # indexB
SI_COUNT = _solver_i.add()  # pointCount
SI_CONTACT = _solver_i.add()  # vc_i: the world's contact index; pc_i: the manifold type
NSI = _solver_i.end()

# pc_f fields: b2ContactPositionConstraint
_pc_f = Columns()
PC_LP = _pc_f.add(2 * MAX_MANIFOLD_POINTS)  # localPoints: x, y of each point
PC_LNX, PC_LNY, PC_LPX, PC_LPY = _pc_f.add_each(4)
PC_MA, PC_MB, PC_LCAX, PC_LCAY, PC_LCBX, PC_LCBY, PC_IA, PC_IB = _pc_f.add_each(8)
PC_RA, PC_RB = _pc_f.add_each(2)
NPC = _pc_f.end()

World = namedtuple(
    "World",
    [
        "world_i",
        "world_f",
        "body_i",
        "body_f",
        "fixture_i",
        "fixture_f",
        "shape_i",
        "shape_f",
        "joint_i",
        "joint_f",
        "jedge",
        "contact_i",
        "contact_f",
        "cedge",
        "man_f",
        "man_i",
        "tree_f",
        "tree_i",
        "tree_s",
        "bp_i",
        "move_buffer",
        "pair_buffer",
        # scratch for Solve/SolveTOI (one row each, so rows can run on different threads)
        "isl_bodies",
        "isl_contacts",
        "isl_joints",
        "stack",
        "positions",
        "velocities",
        "vc_f",
        "vc_i",
        "pc_f",
        "pc_i",
        "old_man_f",
        "old_man_i",
        "xf_tmp",
        "wm_tmp",
        "aabb_tmp",
        # scratch of the broad phase's tree queries, of b2Distance's simplex cache and of SolveTOI's sweep backups
        "query_stack",
        "query_found",
        "simplex_cache",
        "sweep_backup",
        # the contact events recorded by the LISTEN_EVENTS listener since the caller last cleared WI_EVENT_COUNT
        "events",
        # joint_lanes' vectors of the worlds whose velocity iterations run side by side from this row's; when this row's
        # iterations run alone, the copies with which they look for cycles (island.iterate_to_cycle)
        "lanes",
        # contact_lanes' vectors of the same worlds' held contacts, where each lane's contact bodies' velocities are
        # (``contact_lanes.add_world``), and the velocities of one contact's bodies gathered from there
        "contact_lanes",
        "contact_sources",
        "lane_velocities",
    ],
)

# error codes in world_i[WI_ERROR]
ERR_BODIES = 1
ERR_FIXTURES = 2
ERR_JOINTS = 3
ERR_CONTACTS = 4
ERR_PROXIES = 5
ERR_EVENTS = 6


@kernel
def raise_capacity_error(w, r):
    """Raises ``nbgym.error.PhysicsCapacityError`` naming the capacity that world row ``r`` ran out of (its
    ``WI_ERROR``, which must be set).

    A physics calls it after the Box2D calls that may fail (create/step), so that an overflow goes through the
    engine's fault path (the environment refuses to step until a reset) rather than giving wrong results: the
    call that failed left the world without the item it could not make. The physics' reset must then start the
    row afresh (``reset_world``): its lists may name items that were never made.
    """
    code = w.world_i[r, WI_ERROR]
    if code == ERR_BODIES:
        raise PhysicsCapacityError("A Box2D port world ran out of body rows (its `bodies` capacity): call reset().")
    if code == ERR_FIXTURES:
        raise PhysicsCapacityError(
            "A Box2D port world ran out of fixture rows (its `fixtures` capacity): call reset()."
        )
    if code == ERR_JOINTS:
        raise PhysicsCapacityError("A Box2D port world ran out of joint rows (its `joints` capacity): call reset().")
    if code == ERR_CONTACTS:
        raise PhysicsCapacityError(
            "A Box2D port world ran out of contact rows (its `contacts` capacity): call reset()."
        )
    if code == ERR_EVENTS:
        raise PhysicsCapacityError(
            "A Box2D port world ran out of contact event rows (its `events` capacity): call reset()."
        )
    raise PhysicsCapacityError(
        "A Box2D port world ran out of broad-phase proxies (its `proxies` capacity): call reset()."
    )


@borrowing_kernel
def load_pair(rows, ia, ib):
    """Two island bodies' rows of ``World.positions[r]`` or ``velocities[r]`` (b2Position ``c.x, c.y, a`` or
    b2Velocity ``v.x, v.y, w``): body A's three floats, then body B's, as every solver reads them before it
    applies a constraint's impulses."""
    return rows[ia, 0], rows[ia, 1], rows[ia, 2], rows[ib, 0], rows[ib, 1], rows[ib, 2]


@borrowing_kernel
def store_pair(rows, ia, ib, xa, ya, aa, xb, yb, ab):
    """Writes what ``load_pair`` read, once a constraint's impulses are applied."""
    rows[ia, 0] = xa
    rows[ia, 1] = ya
    rows[ia, 2] = aa
    rows[ib, 0] = xb
    rows[ib, 1] = yb
    rows[ib, 2] = ab


def new_world(
    rows, bodies=16, fixtures=32, joints=8, contacts=64, proxies=None, gravity=(0.0, -10.0), events=0, lane_contacts=8
):
    """A :class:`World` of ``rows`` empty b2Worlds (``b2World(gravity)``), with fixed capacities per row
    (``events``: the contact events a LISTEN_EVENTS listener can record between two clearings; ``lane_contacts``: the
    contacts of a held island solved in vector lanes, ``contact_lanes``; a world holding more iterates alone)."""
    if proxies is None:
        proxies = fixtures
    tree_capacity = max(16, 2 * proxies)
    w = World(
        world_i=np.zeros((rows, NWI), np.int32),
        world_f=np.zeros((rows, NWF), np.float32),
        body_i=np.zeros((rows, bodies, NBI), np.int32),
        body_f=np.zeros((rows, bodies, NBF), np.float32),
        fixture_i=np.zeros((rows, fixtures, NFI), np.int32),
        fixture_f=np.zeros((rows, fixtures, NFF), np.float32),
        shape_i=np.zeros((rows, fixtures, shapes.SHAPE_INTS), np.int32),
        shape_f=np.zeros((rows, fixtures, shapes.SHAPE_ROWS, 2), np.float32),
        joint_i=np.zeros((rows, joints, NJI), np.int32),
        joint_f=np.zeros((rows, joints, NJF), np.float32),
        jedge=np.zeros((rows, 2 * joints, 2), np.int32),
        contact_i=np.zeros((rows, contacts, NCI), np.int32),
        contact_f=np.zeros((rows, contacts, NCF), np.float32),
        cedge=np.zeros((rows, 2 * contacts, 2), np.int32),
        man_f=np.zeros((rows, contacts, manifold.MANIFOLD_FLOATS), np.float32),
        man_i=np.zeros((rows, contacts, manifold.MANIFOLD_INTS), np.uint32),
        tree_f=np.zeros((rows, tree_capacity, AABB_FLOATS), np.float32),
        tree_i=np.zeros((rows, tree_capacity, dynamic_tree.NODE_INTS), np.int32),
        tree_s=np.zeros((rows, dynamic_tree.TREE_INTS), np.int32),
        bp_i=np.zeros((rows, broad_phase.BP_INTS), np.int32),
        move_buffer=np.zeros((rows, max(16, proxies)), np.int32),
        pair_buffer=np.zeros((rows, max(16, 4 * proxies), 2), np.int32),
        isl_bodies=np.zeros((rows, bodies), np.int32),
        isl_contacts=np.zeros((rows, contacts), np.int32),
        isl_joints=np.zeros((rows, joints), np.int32),
        stack=np.zeros((rows, bodies), np.int32),
        positions=np.zeros((rows, bodies, 3), np.float32),
        velocities=np.zeros((rows, bodies, 3), np.float32),
        vc_f=np.zeros((rows, contacts, NVC), np.float32),
        vc_i=np.zeros((rows, contacts, NSI), np.int32),
        pc_f=np.zeros((rows, contacts, NPC), np.float32),
        pc_i=np.zeros((rows, contacts, NSI), np.int32),
        old_man_f=np.zeros((rows, manifold.MANIFOLD_FLOATS), np.float32),
        old_man_i=np.zeros((rows, manifold.MANIFOLD_INTS), np.uint32),
        xf_tmp=np.zeros((rows, 2, XF_FLOATS), np.float32),
        wm_tmp=np.zeros((rows, manifold.WM_FLOATS), np.float32),
        aabb_tmp=np.zeros((rows, 2, AABB_FLOATS), np.float32),
        query_stack=np.zeros((rows, tree_capacity + 1), np.int32),
        query_found=np.zeros((rows, tree_capacity), np.int32),
        simplex_cache=np.zeros((rows, distance.CACHE_SIZE), np.float32),
        sweep_backup=np.zeros((rows, 3, SWEEP_FLOATS), np.float32),
        events=np.zeros((rows, events, NEV), np.int32),
        lanes=np.zeros((rows, joints, LANE_FLOATS), np.float32),
        contact_lanes=np.zeros((rows, lane_contacts, CONTACT_LANE_FLOATS), np.float32),
        contact_sources=np.zeros((rows, lane_contacts, 4, MAX_LANES), np.int32),
        lane_velocities=np.zeros((rows, 6 * MAX_LANES), np.float32),
    )
    gx = np.float32(gravity[0])
    gy = np.float32(gravity[1])
    for r in range(rows):
        reset_world(w, r, gx, gy)
    return w


@borrowing_kernel(entry=True)
def reset_world(w, r, gx, gy):
    """Row ``r`` becomes a new ``b2World(gravity)``: no bodies, joints, contacts or proxies."""
    wi = w.world_i[r]
    wi[:] = 0
    wi[WI_BODY_LIST] = -1
    wi[WI_JOINT_LIST] = -1
    wi[WI_CONTACT_LIST] = -1
    wi[WI_MOVING_LIST] = -1
    wi[WI_ADVANCED_LIST] = -1
    wi[WI_FLAGS] = CLEAR_FORCES
    wi[WI_STEP_COMPLETE] = 1
    wi[WI_ALLOW_SLEEP] = 1
    wi[WI_WARM_STARTING] = 1
    wi[WI_CONTINUOUS] = 1
    wi[WI_SUBSTEPPING] = 0
    wi[WI_LISTENER] = 0
    w.world_f[r, WF_GX] = gx
    w.world_f[r, WF_GY] = gy
    w.world_f[r, WF_INV_DT0] = _ZERO
    nb = w.body_i.shape[1]
    for i in range(nb):
        w.body_i[r, i, BI_ALIVE] = 0
        w.body_i[r, i, BI_NEXT] = i + 1 if i + 1 < nb else -1
    wi[WI_FREE_BODY] = 0 if nb > 0 else -1
    nf = w.fixture_i.shape[1]
    for i in range(nf):
        w.fixture_i[r, i, FI_ALIVE] = 0
        w.fixture_i[r, i, FI_NEXT] = i + 1 if i + 1 < nf else -1
    wi[WI_FREE_FIXTURE] = 0 if nf > 0 else -1
    nj = w.joint_i.shape[1]
    for i in range(nj):
        w.joint_i[r, i, JI_ALIVE] = 0
        w.joint_i[r, i, JI_NEXT] = i + 1 if i + 1 < nj else -1
    wi[WI_FREE_JOINT] = 0 if nj > 0 else -1
    nc = w.contact_i.shape[1]
    for i in range(nc):
        w.contact_i[r, i, CI_ALIVE] = 0
        w.contact_i[r, i, CI_NEXT] = i + 1 if i + 1 < nc else -1
    wi[WI_FREE_CONTACT] = 0 if nc > 0 else -1
    broad_phase.reset(w.tree_f[r], w.tree_i[r], w.tree_s[r], w.bp_i[r])


# ---------------------------------------------------------------------------------------------- bodies


@borrowing_kernel
def take_row(wi, table_i, free, next_column, error):
    """Pops the first row of a table's free list (its head ``wi[free]``, chained through ``next_column``); returns
    -1, with ``WI_ERROR`` set to ``error``, when the table is full."""
    x = wi[free]
    if x < 0:
        wi[WI_ERROR] = error
        return -1
    wi[free] = table_i[x, next_column]
    return x


@borrowing_kernel
def free_row(wi, table_i, x, free, next_column, alive_column):
    """Marks row ``x`` dead and pushes it on its table's free list (see ``take_row``)."""
    table_i[x, alive_column] = 0
    table_i[x, next_column] = wi[free]
    wi[free] = x


@borrowing_kernel
def link_item(wi, table_i, x, head, prev_column, next_column):
    """Prepends item ``x`` to its world list (first item ``wi[head]``): where Box2D puts a new body, joint or
    contact."""
    first = wi[head]
    table_i[x, prev_column] = -1
    table_i[x, next_column] = first
    if first >= 0:
        table_i[first, prev_column] = x
    wi[head] = x


@borrowing_kernel
def unlink_item(wi, table_i, x, head, prev_column, next_column):
    """Removes item ``x`` from its world list (see ``link_item``)."""
    prev = table_i[x, prev_column]
    nxt = table_i[x, next_column]
    if prev >= 0:
        table_i[prev, next_column] = nxt
    if nxt >= 0:
        table_i[nxt, prev_column] = prev
    if x == wi[head]:
        wi[head] = nxt


@borrowing_kernel
def link_edges(edges, body_i, r, x, body_a, body_b, head):
    """Prepends item ``x``'s two edges (``2 * x`` on body A, ``2 * x + 1`` on body B) to the bodies' edge lists
    (``head`` the body's column holding the first edge), as b2World::CreateJoint and b2ContactManager::AddPair do."""
    for side in range(2):
        body = body_a if side == 0 else body_b
        e = 2 * x + side
        first = body_i[r, body, head]
        edges[r, e, 0] = -1
        edges[r, e, 1] = first
        if first >= 0:
            edges[r, first, 0] = e
        body_i[r, body, head] = e


@borrowing_kernel
def set_awake(w, r, b, flag):
    """b2Body::SetAwake."""
    bi = w.body_i[r, b]
    bf = w.body_f[r, b]
    if flag:
        if (bi[BI_FLAGS] & AWAKE_FLAG) == 0:
            bi[BI_FLAGS] |= AWAKE_FLAG
            bf[BF_SLEEP] = _ZERO
    else:
        bi[BI_FLAGS] &= ~AWAKE_FLAG
        bf[BF_SLEEP] = _ZERO
        bf[BF_VX] = _ZERO
        bf[BF_VY] = _ZERO
        bf[BF_W] = _ZERO
        bf[BF_FX] = _ZERO
        bf[BF_FY] = _ZERO
        bf[BF_TORQUE] = _ZERO


@borrowing_kernel
def create_body(
    w,
    r,
    btype,
    px,
    py,
    angle,
    vx,
    vy,
    av,
    linear_damping,
    angular_damping,
    allow_sleep,
    awake,
    fixed_rotation,
    bullet,
    active,
    gravity_scale,
):
    """b2World::CreateBody with a b2BodyDef of these (float32) values; returns the body index (-1 if full)."""
    angle = F32(angle)  # sinf/cosf of the float32 angle, whatever the caller passed
    wi = w.world_i[r]
    b = take_row(wi, w.body_i[r], WI_FREE_BODY, BI_NEXT, ERR_BODIES)
    if b < 0:
        return -1
    bi = w.body_i[r, b]
    bf = w.body_f[r, b]
    bi[:] = 0
    bf[:] = _ZERO
    flags = 0
    if bullet:
        flags |= BULLET_FLAG
    if fixed_rotation:
        flags |= FIXED_ROTATION_FLAG
    if allow_sleep:
        flags |= AUTO_SLEEP_FLAG
    if awake:
        flags |= AWAKE_FLAG
    if active:
        flags |= ACTIVE_FLAG
    bi[BI_FLAGS] = flags
    bi[BI_TYPE] = btype
    bi[BI_ALIVE] = 1
    bi[BI_FIXTURES] = -1
    bi[BI_JOINTS] = -1
    bi[BI_CONTACTS] = -1
    bf[BF_PX] = px
    bf[BF_PY] = py
    bf[BF_QS] = sinf(angle)
    bf[BF_QC] = cosf(angle)
    bf[BF_C0X] = px
    bf[BF_C0Y] = py
    bf[BF_CX] = px
    bf[BF_CY] = py
    bf[BF_A0] = angle
    bf[BF_A] = angle
    bf[BF_VX] = vx
    bf[BF_VY] = vy
    bf[BF_W] = av
    bf[BF_LDAMP] = linear_damping
    bf[BF_ADAMP] = angular_damping
    bf[BF_GSCALE] = gravity_scale
    if btype == DYNAMIC:
        bf[BF_MASS] = _ONE
        bf[BF_INVMASS] = _ONE
    link_item(wi, w.body_i[r], b, WI_BODY_LIST, BI_PREV, BI_NEXT)
    if btype != STATIC:
        link_item(wi, w.body_i[r], b, WI_MOVING_LIST, BI_MOVING_PREV, BI_MOVING_NEXT)
    wi[WI_BODY_COUNT] += 1
    return b


@borrowing_kernel
def create_default_body(w, r, btype, x, y, angle):
    """``b2World::CreateBody`` of pybox2d's default b2BodyDef but its type, position and angle
    (``world.Create{Static,Dynamic}Body(position=(x, y), angle=angle)``); returns the body index (-1 if full)."""
    return create_body(
        w, r, btype, F32(x), F32(y), F32(angle), _ZERO, _ZERO, _ZERO, _ZERO, _ZERO, True, True, False, False, True, _ONE
    )


@borrowing_kernel
def reset_mass_data(w, r, b):
    """b2Body::ResetMassData."""
    bi = w.body_i[r, b]
    bf = w.body_f[r, b]
    bf[BF_MASS] = _ZERO
    bf[BF_INVMASS] = _ZERO
    bf[BF_I] = _ZERO
    bf[BF_INVI] = _ZERO
    bf[BF_LCX] = _ZERO
    bf[BF_LCY] = _ZERO
    if bi[BI_TYPE] == STATIC or bi[BI_TYPE] == KINEMATIC:
        bf[BF_C0X] = bf[BF_PX]
        bf[BF_C0Y] = bf[BF_PY]
        bf[BF_CX] = bf[BF_PX]
        bf[BF_CY] = bf[BF_PY]
        bf[BF_A0] = bf[BF_A]
        return
    lcx = _ZERO
    lcy = _ZERO
    mass = _ZERO
    inertia = _ZERO
    f = bi[BI_FIXTURES]
    while f >= 0:
        density = w.fixture_f[r, f, FF_DENSITY]
        if density != _ZERO:
            m, cx, cy, mi = shapes.compute_mass(w.shape_i[r, f], w.shape_f[r, f], density)
            mass = mass + m
            lcx = lcx + m * cx
            lcy = lcy + m * cy
            inertia = inertia + mi
        f = w.fixture_i[r, f, FI_NEXT]
    if mass > _ZERO:
        inv_mass = _ONE / mass
        lcx = lcx * inv_mass
        lcy = lcy * inv_mass
    else:
        mass = _ONE
        inv_mass = _ONE
    bf[BF_MASS] = mass
    bf[BF_INVMASS] = inv_mass
    if inertia > _ZERO and (bi[BI_FLAGS] & FIXED_ROTATION_FLAG) == 0:
        inertia = inertia - mass * (lcx * lcx + lcy * lcy)
        bf[BF_I] = inertia
        bf[BF_INVI] = _ONE / inertia
    else:
        bf[BF_I] = _ZERO
        bf[BF_INVI] = _ZERO
    old_cx = bf[BF_CX]
    old_cy = bf[BF_CY]
    bf[BF_LCX] = lcx
    bf[BF_LCY] = lcy
    qs = bf[BF_QS]
    qc = bf[BF_QC]
    cx = (qc * lcx - qs * lcy) + bf[BF_PX]
    cy = (qs * lcx + qc * lcy) + bf[BF_PY]
    bf[BF_C0X] = cx
    bf[BF_C0Y] = cy
    bf[BF_CX] = cx
    bf[BF_CY] = cy
    # m_linearVelocity += b2Cross(m_angularVelocity, m_sweep.c - oldCenter)
    dx = cx - old_cx
    dy = cy - old_cy
    av = bf[BF_W]
    bf[BF_VX] = bf[BF_VX] + (-av * dy)
    bf[BF_VY] = bf[BF_VY] + av * dx


@borrowing_kernel
def synchronize_transform(w, r, b):
    """b2Body::SynchronizeTransform."""
    bf = w.body_f[r, b]
    a = bf[BF_A]
    s = sinf(a)
    c = cosf(a)
    bf[BF_QS] = s
    bf[BF_QC] = c
    lcx = bf[BF_LCX]
    lcy = bf[BF_LCY]
    bf[BF_PX] = bf[BF_CX] - (c * lcx - s * lcy)
    bf[BF_PY] = bf[BF_CY] - (s * lcx + c * lcy)


@borrowing_kernel
def advance_sweep(bf, alpha):
    """b2Sweep::Advance on a body's sweep fields."""
    alpha0 = bf[BF_ALPHA0]
    beta = (alpha - alpha0) / (_ONE - alpha0)
    one_minus = _ONE - beta
    bf[BF_C0X] = one_minus * bf[BF_C0X] + beta * bf[BF_CX]
    bf[BF_C0Y] = one_minus * bf[BF_C0Y] + beta * bf[BF_CY]
    bf[BF_A0] = one_minus * bf[BF_A0] + beta * bf[BF_A]
    bf[BF_ALPHA0] = alpha


@borrowing_kernel
def advance_body(w, r, b, alpha):
    """b2Body::Advance: the sweep to ``alpha``, the body's position to the new start of its sweep."""
    bf = w.body_f[r, b]
    advance_sweep(bf, alpha)
    bf[BF_CX] = bf[BF_C0X]
    bf[BF_CY] = bf[BF_C0Y]
    bf[BF_A] = bf[BF_A0]
    synchronize_transform(w, r, b)


@borrowing_kernel
def synchronize_fixtures(w, r, b):
    """b2Body::SynchronizeFixtures: each proxy's AABB covers the swept shape; the broad-phase moves it."""
    bf = w.body_f[r, b]
    a0 = bf[BF_A0]
    s1 = sinf(a0)
    c1 = cosf(a0)
    lcx = bf[BF_LCX]
    lcy = bf[BF_LCY]
    xf1 = w.xf_tmp[r, 0]
    xf1[0] = bf[BF_C0X] - (c1 * lcx - s1 * lcy)
    xf1[1] = bf[BF_C0Y] - (s1 * lcx + c1 * lcy)
    xf1[2] = s1
    xf1[3] = c1
    xf2 = bf[BF_XF : BF_XF + XF_FLOATS]
    f = w.body_i[r, b, BI_FIXTURES]
    while f >= 0:
        fixture_synchronize(w, r, f, xf1, xf2)
        f = w.fixture_i[r, f, FI_NEXT]


@borrowing_kernel
def fixture_synchronize(w, r, f, xf1, xf2):
    """b2Fixture::Synchronize."""
    if w.fixture_i[r, f, FI_PROXY_COUNT] == 0:
        return
    a1 = w.aabb_tmp[r, 0]
    a2 = w.aabb_tmp[r, 1]
    shapes.compute_aabb(w.shape_i[r, f], w.shape_f[r, f], xf1, a1)
    shapes.compute_aabb(w.shape_i[r, f], w.shape_f[r, f], xf2, a2)
    aabb = w.fixture_f[r, f, FF_AABB : FF_AABB + AABB_FLOATS]
    aabb[0] = b2min(a1[0], a2[0])
    aabb[1] = b2min(a1[1], a2[1])
    aabb[2] = b2max(a1[2], a2[2])
    aabb[3] = b2max(a1[3], a2[3])
    dx = xf2[0] - xf1[0]
    dy = xf2[1] - xf1[1]
    broad_phase.move_proxy(
        w.tree_f[r], w.tree_i[r], w.tree_s[r], w.bp_i[r], w.move_buffer[r], w.fixture_i[r, f, FI_PROXY], aabb, dx, dy
    )


@borrowing_kernel
def _accepts_forces(w, r, b, wake):
    """What b2Body's ApplyForce*/ApplyTorque/Apply*Impulse do first: only a dynamic body takes them, woken first if
    ``wake``; a sleeping one ignores them."""
    if w.body_i[r, b, BI_TYPE] != DYNAMIC:
        return False
    if wake and (w.body_i[r, b, BI_FLAGS] & AWAKE_FLAG) == 0:
        set_awake(w, r, b, True)
    return (w.body_i[r, b, BI_FLAGS] & AWAKE_FLAG) != 0


@borrowing_kernel
def apply_force_to_center(w, r, b, fx, fy, wake):
    """b2Body::ApplyForceToCenter."""
    if _accepts_forces(w, r, b, wake):
        bf = w.body_f[r, b]
        bf[BF_FX] = bf[BF_FX] + fx
        bf[BF_FY] = bf[BF_FY] + fy


@borrowing_kernel
def apply_force(w, r, b, fx, fy, px, py, wake):
    """b2Body::ApplyForce."""
    if _accepts_forces(w, r, b, wake):
        bf = w.body_f[r, b]
        bf[BF_FX] = bf[BF_FX] + fx
        bf[BF_FY] = bf[BF_FY] + fy
        dx = px - bf[BF_CX]
        dy = py - bf[BF_CY]
        bf[BF_TORQUE] = bf[BF_TORQUE] + (dx * fy - dy * fx)


@borrowing_kernel
def apply_torque(w, r, b, torque, wake):
    """b2Body::ApplyTorque."""
    if _accepts_forces(w, r, b, wake):
        w.body_f[r, b, BF_TORQUE] = w.body_f[r, b, BF_TORQUE] + torque


@borrowing_kernel
def set_linear_velocity(w, r, b, vx, vy):
    """b2Body::SetLinearVelocity (a static body keeps its zero velocity; a non-zero one wakes the body)."""
    if w.body_i[r, b, BI_TYPE] == STATIC:
        return
    if vx * vx + vy * vy > _ZERO:
        set_awake(w, r, b, True)
    w.body_f[r, b, BF_VX] = vx
    w.body_f[r, b, BF_VY] = vy


@borrowing_kernel
def set_angular_velocity(w, r, b, omega):
    """b2Body::SetAngularVelocity (a static body keeps its zero velocity; a non-zero one wakes the body)."""
    if w.body_i[r, b, BI_TYPE] == STATIC:
        return
    if omega * omega > _ZERO:
        set_awake(w, r, b, True)
    w.body_f[r, b, BF_W] = omega


@borrowing_kernel
def apply_angular_impulse(w, r, b, impulse, wake):
    """b2Body::ApplyAngularImpulse."""
    if _accepts_forces(w, r, b, wake):
        w.body_f[r, b, BF_W] = w.body_f[r, b, BF_W] + w.body_f[r, b, BF_INVI] * impulse


@borrowing_kernel
def apply_linear_impulse(w, r, b, ix, iy, px, py, wake):
    """b2Body::ApplyLinearImpulse."""
    if _accepts_forces(w, r, b, wake):
        bf = w.body_f[r, b]
        im = bf[BF_INVMASS]
        bf[BF_VX] = bf[BF_VX] + im * ix
        bf[BF_VY] = bf[BF_VY] + im * iy
        dx = px - bf[BF_CX]
        dy = py - bf[BF_CY]
        bf[BF_W] = bf[BF_W] + bf[BF_INVI] * (dx * iy - dy * ix)


# -------------------------------------------------------------------------------------------- fixtures


@borrowing_kernel
def create_fixture(w, r, b, shape_i, shape_f, density, friction, restitution, category, mask, group, sensor):
    """b2Body::CreateFixture with a b2FixtureDef of these values (the shape is copied); returns its index."""
    wi = w.world_i[r]
    f = take_row(wi, w.fixture_i[r], WI_FREE_FIXTURE, FI_NEXT, ERR_FIXTURES)
    if f < 0:
        return -1
    fi = w.fixture_i[r, f]
    ff = w.fixture_f[r, f]
    fi[:] = 0
    ff[:] = _ZERO
    fi[FI_ALIVE] = 1
    fi[FI_BODY] = b
    fi[FI_CATEGORY] = category
    fi[FI_MASK] = mask
    fi[FI_GROUP] = group
    fi[FI_SENSOR] = 1 if sensor else 0
    fi[FI_PROXY] = -1
    ff[FF_DENSITY] = density
    ff[FF_FRICTION] = friction
    ff[FF_RESTITUTION] = restitution
    copy_to(w.shape_i[r, f], shape_i)
    for k in range(shape_f.shape[0]):
        copy_to(w.shape_f[r, f, k], shape_f[k])
    if w.body_i[r, b, BI_FLAGS] & ACTIVE_FLAG:
        create_proxies(w, r, f)
    fi[FI_NEXT] = w.body_i[r, b, BI_FIXTURES]
    w.body_i[r, b, BI_FIXTURES] = f
    w.body_i[r, b, BI_FIXTURE_COUNT] += 1
    if density > _ZERO:
        reset_mass_data(w, r, b)
    wi[WI_FLAGS] |= NEW_FIXTURE
    return f


@borrowing_kernel
def create_proxies(w, r, f):
    """b2Fixture::CreateProxies (one child)."""
    b = w.fixture_i[r, f, FI_BODY]
    xf = w.body_f[r, b, BF_XF : BF_XF + XF_FLOATS]
    aabb = w.fixture_f[r, f, FF_AABB : FF_AABB + AABB_FLOATS]
    shapes.compute_aabb(w.shape_i[r, f], w.shape_f[r, f], xf, aabb)
    proxy = broad_phase.create_proxy(w.tree_f[r], w.tree_i[r], w.tree_s[r], w.bp_i[r], w.move_buffer[r], aabb, f)
    if proxy < 0:
        w.world_i[r, WI_ERROR] = ERR_PROXIES
    w.fixture_i[r, f, FI_PROXY] = proxy
    w.fixture_i[r, f, FI_PROXY_COUNT] = 1


@borrowing_kernel
def destroy_proxies(w, r, f):
    """b2Fixture::DestroyProxies."""
    if w.fixture_i[r, f, FI_PROXY_COUNT] > 0:
        broad_phase.destroy_proxy(
            w.tree_f[r], w.tree_i[r], w.tree_s[r], w.bp_i[r], w.move_buffer[r], w.fixture_i[r, f, FI_PROXY]
        )
        w.fixture_i[r, f, FI_PROXY] = -1
    w.fixture_i[r, f, FI_PROXY_COUNT] = 0


@borrowing_kernel
def free_fixture(w, r, f):
    free_row(w.world_i[r], w.fixture_i[r], f, WI_FREE_FIXTURE, FI_NEXT, FI_ALIVE)


# ---------------------------------------------------------------------------------------------- joints


@borrowing_kernel
def create_revolute_joint(
    w,
    r,
    body_a,
    body_b,
    lax,
    lay,
    lbx,
    lby,
    reference_angle,
    lower,
    upper,
    max_motor_torque,
    motor_speed,
    enable_limit,
    enable_motor,
    collide_connected,
):
    """b2World::CreateJoint of a b2RevoluteJointDef with these (float32) values; returns the joint index."""
    wi = w.world_i[r]
    j = take_row(wi, w.joint_i[r], WI_FREE_JOINT, JI_NEXT, ERR_JOINTS)
    if j < 0:
        return -1
    ji = w.joint_i[r, j]
    jf = w.joint_f[r, j]
    ji[:] = 0
    jf[:] = _ZERO
    ji[JI_ALIVE] = 1
    ji[JI_BODYA] = body_a
    ji[JI_BODYB] = body_b
    ji[JI_COLLIDE] = 1 if collide_connected else 0
    ji[JI_LIMIT_ON] = 1 if enable_limit else 0
    ji[JI_MOTOR_ON] = 1 if enable_motor else 0
    ji[JI_LIMIT_STATE] = 0  # e_inactiveLimit
    jf[JF_LAX] = lax
    jf[JF_LAY] = lay
    jf[JF_LBX] = lbx
    jf[JF_LBY] = lby
    jf[JF_REF] = reference_angle
    jf[JF_LOWER] = lower
    jf[JF_UPPER] = upper
    jf[JF_MAX_TORQUE] = max_motor_torque
    jf[JF_MOTOR_SPEED] = motor_speed
    link_item(wi, w.joint_i[r], j, WI_JOINT_LIST, JI_PREV, JI_NEXT)
    wi[WI_JOINT_COUNT] += 1
    link_edges(w.jedge, w.body_i, r, j, body_a, body_b, BI_JOINTS)
    if not collide_connected:
        flag_contacts_between(w, r, body_b, body_a)
    return j


@borrowing_kernel
def edge_other_joint(w, r, e):
    """The ``other`` body of joint edge ``e``."""
    j = e >> 1
    if e & 1:
        return w.joint_i[r, j, JI_BODYA]
    return w.joint_i[r, j, JI_BODYB]


@borrowing_kernel
def edge_other_contact(w, r, e):
    """The ``other`` body of contact edge ``e``."""
    c = e >> 1
    if e & 1:
        return w.fixture_i[r, w.contact_i[r, c, CI_FA], FI_BODY]
    return w.fixture_i[r, w.contact_i[r, c, CI_FB], FI_BODY]


@borrowing_kernel
def flag_contacts_between(w, r, body, other):
    """FlagForFiltering every contact of ``body`` whose other body is ``other``."""
    e = w.body_i[r, body, BI_CONTACTS]
    while e >= 0:
        if edge_other_contact(w, r, e) == other:
            w.contact_i[r, e >> 1, CI_FLAGS] |= C_FILTER_FLAG
        e = w.cedge[r, e, 1]


@borrowing_kernel
def unlink_edge(edges, body_i, r, e, body, head):
    """Removes edge ``e`` of ``body`` from its doubly linked list (a body's joint or contact edges: ``edges`` rows
    are (prev, next), ``head`` the body's column holding the list's first edge), as b2World::DestroyJoint and
    b2ContactManager::Destroy do."""
    ep = edges[r, e, 0]
    en = edges[r, e, 1]
    if ep >= 0:
        edges[r, ep, 1] = en
    if en >= 0:
        edges[r, en, 0] = ep
    if body_i[r, body, head] == e:
        body_i[r, body, head] = en


@borrowing_kernel
def destroy_joint(w, r, j):
    """b2World::DestroyJoint."""
    wi = w.world_i[r]
    ji = w.joint_i[r, j]
    collide_connected = ji[JI_COLLIDE] != 0
    unlink_item(wi, w.joint_i[r], j, WI_JOINT_LIST, JI_PREV, JI_NEXT)
    body_a = ji[JI_BODYA]
    body_b = ji[JI_BODYB]
    set_awake(w, r, body_a, True)
    set_awake(w, r, body_b, True)
    for side in range(2):
        body = body_a if side == 0 else body_b
        e = 2 * j + side
        unlink_edge(w.jedge, w.body_i, r, e, body, BI_JOINTS)
        w.jedge[r, e, 0] = -1
        w.jedge[r, e, 1] = -1
    free_row(wi, w.joint_i[r], j, WI_FREE_JOINT, JI_NEXT, JI_ALIVE)
    wi[WI_JOINT_COUNT] -= 1
    if not collide_connected:
        flag_contacts_between(w, r, body_b, body_a)


@borrowing_kernel
def should_collide_bodies(w, r, b, other):
    """b2Body::ShouldCollide(other) called on ``b``."""
    if w.body_i[r, b, BI_TYPE] != DYNAMIC and w.body_i[r, other, BI_TYPE] != DYNAMIC:
        return False
    e = w.body_i[r, b, BI_JOINTS]
    while e >= 0:
        if edge_other_joint(w, r, e) == other:
            if w.joint_i[r, e >> 1, JI_COLLIDE] == 0:
                return False
        e = w.jedge[r, e, 1]
    return True


# ------------------------------------------------------------------------------------------------ growth

_ITEM_FIELDS = {
    "bodies": ("body_i", "body_f", "isl_bodies", "stack", "positions", "velocities"),
    "fixtures": ("fixture_i", "fixture_f", "shape_i", "shape_f"),
    "joints": ("joint_i", "joint_f", "isl_joints", "lanes"),
    "contacts": ("contact_i", "contact_f", "man_f", "man_i", "isl_contacts", "vc_f", "vc_i", "pc_f", "pc_i"),
    "tree_nodes": ("tree_f", "tree_i", "query_found"),
    "moves": ("move_buffer",),
    "pairs": ("pair_buffer",),
}
"""The fields of a ``World`` whose second dimension is each capacity (``jedge``, ``cedge`` and ``query_stack`` follow
the joints, contacts and tree nodes)."""


def capacities(w: World) -> dict[str, int]:
    """The capacities of a ``World``'s rows, by the names ``grown`` takes."""
    return {name: getattr(w, fields[0]).shape[1] for name, fields in _ITEM_FIELDS.items()}


def grown(w: World, **capacity: int) -> World:
    """A copy of ``w`` whose rows hold more items, with the same contents: the same worlds, stepping to the same
    floats. Box2D's allocators grow without limit; the port's rows are fixed, so a world that can run short (a
    single env's unbounded flame particles) is copied into larger rows between calls.

    New items are appended at the tail of each free list. For the dynamic tree this keeps Box2D's node ids: a
    port tree's free list is Box2D's (nodes freed since, most recent first) followed by the never-used nodes in
    order, which Box2D's tree chains when it doubles (only once its free list is empty); the new nodes continue
    that order. (Body, fixture, joint and contact rows may be handed out in any order: no result depends on them.)

    Args:
        w: The world rows.
        **capacity: New capacities (``bodies``, ``fixtures``, ``joints``, ``contacts``, ``tree_nodes``, ``moves``,
            ``pairs``), each at least the current one; the others are kept.

    Returns:
        The grown copy (``w`` itself is left as it was).

    Raises:
        ValueError: If a capacity is unknown or smaller than the current one.
    """
    old = capacities(w)
    for name, size in capacity.items():
        if name not in old or size < old[name]:
            raise ValueError(f"grown: {name}={size} is not a capacity of at least {old.get(name)} ({sorted(old)})")
    new = {**old, **capacity}
    fields = w._asdict()
    for name, names in _ITEM_FIELDS.items():
        for field in names:
            fields[field] = _widened(fields[field], new[name])
    fields["jedge"] = _widened(w.jedge, 2 * new["joints"])
    fields["cedge"] = _widened(w.cedge, 2 * new["contacts"])
    fields["query_stack"] = _widened(w.query_stack, new["tree_nodes"] + 1)
    g = World(**fields)
    for r in range(g.world_i.shape[0]):
        _chain(g.body_i, r, BI_NEXT, g.world_i[r], WI_FREE_BODY, old["bodies"], (BI_ALIVE,))
        _chain(g.fixture_i, r, FI_NEXT, g.world_i[r], WI_FREE_FIXTURE, old["fixtures"], (FI_ALIVE,))
        _chain(g.joint_i, r, JI_NEXT, g.world_i[r], WI_FREE_JOINT, old["joints"], (JI_ALIVE,))
        _chain(g.contact_i, r, CI_NEXT, g.world_i[r], WI_FREE_CONTACT, old["contacts"], (CI_ALIVE,))
        g.tree_i[r, old["tree_nodes"] :, dynamic_tree.HEIGHT] = -1  # a free node's height
        _chain(g.tree_i, r, dynamic_tree.PARENT, g.tree_s[r], dynamic_tree.FREE_LIST, old["tree_nodes"], ())
    return g


def _widened(array: np.ndarray, size: int) -> np.ndarray:
    """``array`` with its second dimension ``size``: the old items first, zeros after."""
    if array.shape[1] == size:
        return array.copy()
    wide = np.zeros((array.shape[0], size, *array.shape[2:]), array.dtype)
    wide[:, : array.shape[1]] = array
    return wide


def _chain(
    items: np.ndarray,
    r: int,
    next_column: int,
    head_row: np.ndarray,
    head_column: int,
    first_new: int,
    zeroed: tuple[int, ...],
) -> None:
    """Links the new items ``first_new..`` of row ``r`` in order, at the tail of the free list that starts at
    ``head_row[head_column]`` and runs through ``next_column``."""
    size = items.shape[1]
    if first_new == size:
        return
    for k in range(first_new, size):
        for column in zeroed:
            items[r, k, column] = 0
        items[r, k, next_column] = k + 1 if k + 1 < size else -1
    node = head_row[head_column]
    if node < 0:
        head_row[head_column] = first_new
        return
    while items[r, node, next_column] >= 0:
        node = items[r, node, next_column]
    items[r, node, next_column] = first_new
